/**
 * The examples /docs shows are complete and true to the contracts: every operation of
 * openapi/v2.yaml and openapi/v1.yaml has a request example (body, path and query parameters) and
 * an example for each of its documented responses, and every example conforms to the schema it
 * illustrates (which forbids extra fields), so a merchant copying one sends or expects exactly
 * what the contract says.
 */
import { fileURLToPath } from 'node:url';
import ajvFormats from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { describe, expect, it } from 'vitest';

interface MediaType {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  examples?: Record<string, unknown>;
}

const CONTRACTS = [
  { file: 'openapi/v2.yaml', root: '/api/v2' },
  { file: 'openapi/v1.yaml', root: '/api/v1' },
];

/** The media type's examples, by name (a lone `example` is named `example`). */
function examplesOf(media: MediaType | undefined): [string, unknown][] {
  if (!media) return [];
  if (media.examples) return Object.entries(media.examples).map(([name, example]) => [name, example.value]);
  return media.example === undefined ? [] : [['example', media.example]];
}

const json = (content: unknown): MediaType | undefined => (content as Record<string, MediaType> | undefined)?.['application/json'];
const requestBodyOf = (operation: Operation): MediaType | undefined => json((operation.requestBody as { content?: unknown } | undefined)?.content);
const parametersOf = (operation: Operation): Parameter[] => (operation.parameters ?? []) as Parameter[];
const hasExample = (parameter: Parameter): boolean => parameter.example !== undefined || parameter.examples !== undefined;

async function loadContract(file: string, root: string): Promise<{ contract: OpenAPIBackend; operations: Operation[] }> {
  const definition = fileURLToPath(new URL(`../../${file}`, import.meta.url));
  // strict: a definition that does not parse or validate fails the test instead of leaving no operation to check.
  const contract = new OpenAPIBackend({ definition, apiRoot: root, strict: true, customizeAjv: (ajv) => ajvFormats.default(ajv as never) as never });
  await contract.init();
  const operations = contract.getOperations();
  expect(operations.length).toBeGreaterThan(0);
  return { contract, operations };
}

describe.each(CONTRACTS)('the examples of $file', ({ file, root }) => {
  it('cover every operation: its request body, its parameters and each documented response', async () => {
    const { operations } = await loadContract(file, root);
    const missing: string[] = [];
    for (const operation of operations) {
      const name = operation.operationId ?? `${operation.method} ${operation.path}`;
      if (operation.requestBody && examplesOf(requestBodyOf(operation)).length === 0) missing.push(`${name}: request body`);
      for (const parameter of parametersOf(operation)) {
        if (parameter.in === 'path' && !hasExample(parameter)) missing.push(`${name}: path parameter ${parameter.name}`);
      }
      // Query filters: examples on the parameters, or an example request in the description (v2's
      // choice: Swagger UI pre-fills parameter examples into "Try it out").
      const query = parametersOf(operation).filter((parameter) => parameter.in === 'query');
      if (query.length > 0 && !query.some(hasExample) && !/Example/.test(operation.description ?? '')) missing.push(`${name}: an example request`);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (examplesOf(json((response as { content?: unknown }).content)).length === 0) missing.push(`${name}: response ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('conform to the schemas they illustrate', async () => {
    const { contract, operations } = await loadContract(file, root);
    const wrong: string[] = [];
    for (const operation of operations) {
      const name = operation.operationId!;
      for (const [example, value] of examplesOf(requestBodyOf(operation))) {
        const request = { method: operation.method, path: operation.path, headers: { 'content-type': 'application/json' }, body: value };
        const errors = (contract.validateRequest(request, operation).errors ?? []).filter(
          (error) => error.instancePath === '' || error.instancePath.startsWith('/requestBody'),
        );
        if (errors.length) wrong.push(`${name} request ${example}: ${JSON.stringify(errors)}`);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const [example, value] of examplesOf(json((response as { content?: unknown }).content))) {
          const result = contract.validateResponse(value, operation, Number(status));
          if (result.errors?.length) wrong.push(`${name} ${status} ${example}: ${JSON.stringify(result.errors)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
