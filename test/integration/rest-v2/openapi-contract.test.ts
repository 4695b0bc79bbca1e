/**
 * What the server answers conforms to openapi/v2.yaml: each response body is validated against
 * the YAML's schema for that operation and status (which forbids extra fields).
 */
import { describe, expect, it } from 'vitest';
import { ACCESS_POLICY } from '../../../src/domain/access/policy.js';
import { V2_DEFINITION, v2Surface } from '../../../src/rest/v2/surface.js';
import { useGateway, transactionBody } from '../../support/gateway.js';
import { useContract } from '../../support/contract.js';

const gateway = useGateway();
const contract = useContract(V2_DEFINITION, '/api/v2');

const { expectConforms } = contract;

describe('responses conform to openapi/v2.yaml', () => {
  it('for each transaction operation and its errors', async () => {
    const { key } = await gateway.merchant();
    const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expectConforms('createTransaction', 200, created.body);
    const bare = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: { method_of_payment: ['wave'], products: [{ name: 'x', price: 50, quantity: 1 }] },
    });
    expectConforms('createTransaction', 200, bare.body);

    const orderId = created.body.order_id;
    expectConforms('getTransaction', 200, (await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body);
    expectConforms('listTransactions', 200, (await gateway.rest('GET', '/api/v2/transactions', { key })).body);
    expectConforms('cancelTransaction', 200, (await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key })).body);

    const refusals: [string, number, Promise<{ status: number; body: unknown }>][] = [
      ['createTransaction', 400, gateway.rest('POST', '/api/v2/transactions', { key, rawBody: '{oops' })],
      ['createTransaction', 401, gateway.rest('POST', '/api/v2/transactions', { body: transactionBody() })],
      ['getTransaction', 404, gateway.rest('GET', `/api/v2/transactions/${crypto.randomUUID()}`, { key })],
      ['cancelTransaction', 400, gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key })],
      ['listTransactions', 400, gateway.rest('GET', '/api/v2/transactions?page=0', { key })],
    ];
    for (const [operationId, status, pending] of refusals) {
      const response = await pending;
      expect(response.status, operationId).toBe(status);
      expectConforms(operationId, status, response.body);
    }
  });

  it('serves the contract itself at /api/v2/openapi.json', async () => {
    const response = await gateway.rest('GET', '/api/v2/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toMatch(/^3\./);
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining(['/transactions', '/transactions/{order_id}', '/refund/{order_id}', '/payouts', '/accounts/stats']),
    );
  });
});

describe('openapi/v2.yaml and the v2 routes', () => {
  // The server registers the contract's routes and looks each one's binding up by operationId: a
  // contract operation without a binding answers 404 at run time, and a binding the contract does
  // not list is never served. The x-scopes a client reads must be what authorisation enforces.
  it("bind every contract route, and each route's x-scopes are those of the operation that authorises it", () => {
    const operations = contract.api.getOperations();
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(Object.keys(v2Surface.routes).sort());
    for (const operation of operations) {
      const binding = v2Surface.routes[operation.operationId!]!;
      expect((operation as unknown as { 'x-scopes': string[] })['x-scopes'], operation.operationId).toEqual([...ACCESS_POLICY[binding.operation].scopes]);
    }
  });
});
