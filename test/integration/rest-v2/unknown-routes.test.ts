import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
let key: string;
beforeAll(async () => {
  ({ key } = await gateway.merchant({ scope: 'readAndWrite' }));
});

describe('requests outside the API', () => {
  it.each([
    ['GET', '/api/v2'],
    ['GET', '/api/v2/nothing-here'],
    ['GET', '/nothing-here'],
    ['OPTIONS', '/api/v2/transactions'],
  ])('%s %s answers 404 {error: "Not found"}', async (method, path) => {
    const response = await gateway.rest(method, path, { key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Not found' });
  });

  it.each([
    ['PUT', '/api/v2/transactions'],
    ['PATCH', '/api/v2/transactions/4f0b8f5e-2c1d-4c7e-9a55-3a9f1f0e7b11'],
    ['POST', '/api/v2/accounts/stats'],
  ])('%s %s (a known path, another verb) answers 405 {error: "Method not allowed"}', async (method, path) => {
    const response = await gateway.rest(method, path, { key, body: {} });
    expect(response.status).toBe(405);
    expect(response.body).toEqual({ error: 'Method not allowed' });
  });
});
