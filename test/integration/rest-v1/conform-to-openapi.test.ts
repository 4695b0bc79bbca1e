/**
 * What v1 answers conforms to openapi/v1.yaml: each body is validated against the YAML's schema
 * for that operation and status (the schemas forbid extra fields).
 */
import { describe, expect, it } from 'vitest';
import { ACCESS_POLICY } from '../../../src/domain/access/policy.js';
import { V1_DEFINITION, v1Surface } from '../../../src/rest/v1/surface.js';
import type { HttpResult } from '../../support/gateway.js';
import { useGateway } from '../../support/gateway.js';
import { createdV1, fundedMerchant, pay, v1 } from './helpers.js';
import { useContract } from '../../support/contract.js';

const gateway = useGateway();
const contract = useContract(V1_DEFINITION, '/api/v1');

function expectConforms(operationId: string, response: HttpResult, status: number): void {
  expect(response.status, `${operationId}: ${JSON.stringify(response.body)}`).toBe(status);
  contract.expectConforms(operationId, status, response.body);
}

describe('responses conform to openapi/v1.yaml', () => {
  it('for the transaction routes and their refusals', async () => {
    const { organization, key } = await gateway.merchant();
    const readKey = await gateway.createKey(organization.id, 'read');
    expectConforms('createTransaction', await v1.create(gateway, key), 200);
    const created = await createdV1(gateway, key);
    await pay(gateway, created.order_id);
    expectConforms('getTransaction', await v1.getOne(gateway, key, created.order_id), 200);
    expectConforms('listTransactions', await v1.list(gateway, key), 200);
    expectConforms('deleteTransaction', await v1.delete(gateway, key, (await createdV1(gateway, key)).order_id), 200);

    expectConforms('createTransaction', await v1.create(gateway, key, { method_of_payment: 'BANK', products: [] }), 400);
    expectConforms('createTransaction', await v1.create(gateway, undefined), 401);
    expectConforms('createTransaction', await v1.create(gateway, readKey), 403);
    expectConforms('getTransaction', await v1.getOne(gateway, key, crypto.randomUUID()), 404);
    expectConforms('listTransactions', await v1.list(gateway, key, 'limit=0'), 400);
    expectConforms('deleteTransaction', await v1.delete(gateway, key, crypto.randomUUID()), 404);
  });

  it('for the account and cashout routes and their refusals', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const readKey = await gateway.createKey(organization.id, 'read');
    expectConforms('getMainAccount', await v1.account(gateway, readKey), 200);
    expectConforms('getMainAccountWithSlash', await v1.account(gateway, readKey, '/account/'), 200);
    expectConforms('getMainAccount', await v1.account(gateway, key), 403);
    const body = { full_name: 'Awa Diop', amount: 1_000, phone_number: '+221770000001' };
    expectConforms('cashoutWave', await v1.cashout(gateway, key, 'wave', body), 200);
    expectConforms('cashoutOrangeMoney', await v1.cashout(gateway, key, 'orange-money', body), 200);
    expectConforms('cashoutWave', await v1.cashout(gateway, key, 'wave', { ...body, amount: 5 }), 400);
    expectConforms('cashoutOrangeMoney', await v1.cashout(gateway, readKey, 'orange-money', body), 403);
    expectConforms('cashoutWave', await v1.cashout(gateway, key, 'wave', { ...body, phone_number: '+221770000000' }), 500);
  });
});

describe('openapi/v1.yaml and the v1 routes', () => {
  it("bind every contract route, and each route's x-scopes are those of the operation that authorises it", () => {
    const operations = contract.api.getOperations();
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(Object.keys(v1Surface.routes).sort());
    for (const operation of operations) {
      const binding = v1Surface.routes[operation.operationId!]!;
      expect((operation as unknown as { 'x-scopes': string[] })['x-scopes'], operation.operationId).toEqual([...ACCESS_POLICY[binding.operation].scopes]);
    }
  });
});

describe('the examples of openapi/v1.yaml (what /docs shows)', () => {
  type Media = { example?: unknown; examples?: Record<string, { value: unknown }> };
  const examplesOf = (media: Media | undefined): unknown[] => [
    ...(media?.example !== undefined ? [media.example] : []),
    ...Object.values(media?.examples ?? {}).map((example) => example.value),
  ];

  it('exist on every request body and every response, and conform to their schemas', () => {
    for (const operation of contract.api.getOperations()) {
      const id = operation.operationId!;
      const requestBody = operation.requestBody as { content: Record<string, Media> } | undefined;
      if (requestBody) {
        const examples = examplesOf(requestBody.content['application/json']);
        expect(examples.length, `${id} request example`).toBeGreaterThan(0);
        for (const body of examples) {
          const result = contract.api.validateRequest(
            { method: operation.method, path: `/api/v1${operation.path}`, body, headers: { 'content-type': 'application/json' }, query: {} },
            id,
          );
          expect(result.errors ?? [], `${id} request example: ${JSON.stringify(result.errors)}`).toEqual([]);
        }
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const examples = examplesOf((response as { content?: Record<string, Media> }).content?.['application/json']);
        expect(examples.length, `${id} ${status} example`).toBeGreaterThan(0);
        for (const example of examples) {
          const result = contract.api.validateResponse(example, id, Number(status));
          expect(result.errors ?? [], `${id} ${status} example: ${JSON.stringify(result.errors)}`).toEqual([]);
        }
      }
    }
  });
});
