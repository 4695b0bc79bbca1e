/** Every v1 answer says v1 is deprecated (Deprecation, Sunset, Link to v2), success or error, known route or not. */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { createdV1, expectDetail, expectV1Headers, v1 } from './helpers.js';

const gateway = useGateway();

describe('REST v1 deprecation headers', () => {
  it('are on successful answers, with the RFC 9745 and RFC 8594 formats and the v2 successor', async () => {
    const { key } = await gateway.merchant();
    const created = await v1.create(gateway, key);
    expect(created.status).toBe(200);
    expectV1Headers(created);
    expect(created.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(new Date(created.headers.get('sunset')!).toUTCString()).toBe(created.headers.get('sunset'));
    expect(created.headers.get('link')).toMatch(/^<\/api\/v2>; rel="successor-version"$/);
    // v2 says nothing of the kind.
    const v2 = await gateway.rest('GET', `/api/v2/transactions/${created.body.order_id}`, { key });
    expect(v2.headers.get('deprecation')).toBeNull();
    expect(v2.headers.get('sunset')).toBeNull();
  });

  it('are on refusals: 401, 403, 400, 404 of an unknown transaction', async () => {
    const { organization, key } = await gateway.merchant();
    expectDetail(await v1.list(gateway, undefined), 401, 'Invalid API key');
    expectDetail(await v1.account(gateway, key), 403, "You don't have permission to perform this action");
    expectDetail(await gateway.rest('POST', '/api/v1/transaction/create-transaction', { key, rawBody: '[' }), 400, 'Invalid request body');
    expectDetail(await v1.getOne(gateway, await gateway.createKey(organization.id, 'read'), crypto.randomUUID()), 404, 'Transaction not found');
  });

  it('are on a 404 of an unknown v1 path and a 405 of a known path with another verb, both in {Detail}', async () => {
    const { key } = await gateway.merchant();
    expectDetail(await gateway.rest('GET', '/api/v1/transactions', { key }), 404, 'Not found');
    expectDetail(await gateway.rest('GET', '/api/v1/nothing/here'), 404, 'Not found');
    expectDetail(await gateway.rest('GET', '/api/v1/cashout/wave', { key }), 405, 'Method not allowed');
    expectDetail(await gateway.rest('POST', '/api/v1/account', { key }), 405, 'Method not allowed');
  });

  it('are on the bare root and on a path refused before routing (malformed percent-encoding), both in {Detail}', async () => {
    expectDetail(await gateway.rest('GET', '/api/v1'), 404, 'Not found');
    const malformed = await gateway.rest('GET', '/api/v1/transaction/get-one-transaction%zz');
    expect(malformed.status).toBeGreaterThanOrEqual(400);
    expect(malformed.status).toBeLessThan(500);
    expect(Object.keys(malformed.body as object)).toEqual(['Detail']);
    expectV1Headers(malformed);
    // v2 keeps its own shape there, and no deprecation.
    const v2 = await gateway.rest('GET', '/api/v2');
    expect(v2.body).toEqual({ error: 'Not found' });
    expect(v2.headers.get('deprecation')).toBeNull();
  });

  it('are on the v1 contract, served as JSON at /api/v1/openapi.json with the seven endpoints, all deprecated', async () => {
    const response = await gateway.rest('GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expectV1Headers(response);
    expect(response.body.openapi).toMatch(/^3\./);
    const paths = response.body.paths as Record<string, Record<string, any>>;
    expect(Object.keys(paths).sort()).toEqual([
      '/account',
      '/account/',
      '/cashout/orange-money',
      '/cashout/wave',
      '/transaction/create-transaction',
      '/transaction/delete-transaction',
      '/transaction/get-one-transaction',
      '/transaction/get-transactions',
    ]);
    for (const [path, item] of Object.entries(paths)) {
      for (const [verb, operation] of Object.entries(item).filter(([name]) => !name.startsWith('x-')))
        expect(operation.deprecated, `${verb} ${path}`).toBe(true);
    }
    // The v2 contract is served through the same path, without the v1 headers.
    const v2 = await gateway.rest('GET', '/api/v2/openapi.json');
    expect(v2.body.info.version).toMatch(/^2\./);
    expect(v2.headers.get('deprecation')).toBeNull();
  });

  it('do not change what v2 answers for the same data (a v1 transaction reads the same through v2)', async () => {
    const { key } = await gateway.merchant();
    const created = await createdV1(gateway, key);
    const v2 = await gateway.rest('GET', `/api/v2/transactions/${created.order_id}`, { key });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ order_id: created.order_id, amount: created.amount, transaction_status: 'pending', method_of_payment: ['wave'] });
  });
});
