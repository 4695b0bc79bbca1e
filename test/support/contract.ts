/**
 * A REST contract (openapi/v2.yaml, openapi/v1.yaml) loaded once per test file: `expectConforms`
 * validates a response body against the contract's schema for that operation and status (the
 * schemas forbid extra fields).
 */
import ajvFormats from 'ajv-formats';
import { OpenAPIBackend } from 'openapi-backend';
import { beforeAll, expect } from 'vitest';

export interface Contract {
  expectConforms(operationId: string, status: number, body: unknown): void;
  /** The loaded contract itself, for what a test asks of it beyond one response. */
  readonly api: OpenAPIBackend;
}

export function useContract(definition: string, apiRoot: string): Contract {
  let backend: OpenAPIBackend;
  beforeAll(async () => {
    // quick: each validator is compiled when a test first asks for it, not all at start (the
    // contract's own validity is api-docs-examples.test.ts's, in strict mode).
    backend = new OpenAPIBackend({ definition, apiRoot, quick: true, customizeAjv: (ajv) => ajvFormats.default(ajv as never) as never });
    await backend.init();
  });
  return {
    get api() {
      return backend;
    },
    expectConforms(operationId, status, body) {
      const result = backend.validateResponse(body, operationId, status);
      expect(result.errors ?? [], `${operationId} ${status}: ${JSON.stringify(result.errors)}`).toEqual([]);
    },
  };
}
