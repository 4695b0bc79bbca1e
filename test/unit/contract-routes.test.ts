/**
 * The REST route table is read straight from each contract's `paths` (src/rest/contract.ts) rather
 * than through openapi-backend at every start: it must list exactly the operations openapi-backend
 * finds in the same file (the library the contract tests validate with).
 */
import { OpenAPIBackend } from 'openapi-backend';
import { describe, expect, it } from 'vitest';
import { contractRoutes } from '../../src/rest/contract.js';
import { V1_DEFINITION } from '../../src/rest/v1/surface.js';
import { V2_DEFINITION } from '../../src/rest/v2/surface.js';

const sorted = (routes: { operationId: string; method: string; path: string }[]) =>
  routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort();

describe('the REST route table', () => {
  it.each([
    ['v2', V2_DEFINITION, '/api/v2'],
    ['v1', V1_DEFINITION, '/api/v1'],
  ])('of %s lists the operations openapi-backend finds in its contract', async (_version, definition, apiRoot) => {
    const backend = new OpenAPIBackend({ definition, apiRoot, validate: false, quick: true });
    await backend.init();
    const expected = backend
      .getOperations()
      .map((operation) => ({ operationId: operation.operationId ?? '', method: operation.method.toUpperCase(), path: operation.path }));
    const routes = await contractRoutes(definition);
    expect(routes.length).toBeGreaterThan(5);
    expect(sorted(routes)).toEqual(sorted(expected));
  });
});
