/**
 * What the account routes answer conforms to openapi/v2.yaml: each body is validated against the
 * YAML's schema for that operation and status (which forbids extra fields), with money on the
 * accounts so balances are real numbers.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adjustAccount } from '../../../../src/domain/operations.js';
import { V2_DEFINITION } from '../../../../src/rest/v2/surface.js';
import { useGateway } from '../../../support/gateway.js';
import { useContract } from '../../../support/contract.js';

const gateway = useGateway();
const contract = useContract(V2_DEFINITION, '/api/v2');

const { expectConforms } = contract;

describe('account responses conform to openapi/v2.yaml', () => {
  it('for the list, the stats, one account and their errors', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'read' });
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 1_234, reason: 'contract test' });
    const checkoutKey = await gateway.createKey(organization.id, 'checkout');

    const list = await gateway.rest('GET', '/api/v2/accounts', { key });
    expect(list.status).toBe(200);
    expectConforms('listAccounts', 200, list.body);
    expectConforms('getAccountStats', 200, (await gateway.rest('GET', '/api/v2/accounts/stats', { key })).body);
    expectConforms('getAccount', 200, (await gateway.rest('GET', `/api/v2/accounts/${list.body[0].id}`, { key })).body);

    const refusals: [string, number, Promise<{ status: number; body: unknown }>][] = [
      ['getAccount', 400, gateway.rest('GET', '/api/v2/accounts/nope', { key })],
      ['getAccount', 404, gateway.rest('GET', `/api/v2/accounts/${randomUUID()}`, { key })],
      ['getAccount', 403, gateway.rest('GET', `/api/v2/accounts/${list.body[0].id}`, { key: checkoutKey })],
      ['listAccounts', 401, gateway.rest('GET', '/api/v2/accounts')],
      ['listAccounts', 403, gateway.rest('GET', '/api/v2/accounts', { key: checkoutKey })],
      ['getAccountStats', 403, gateway.rest('GET', '/api/v2/accounts/stats', { key: checkoutKey })],
    ];
    for (const [operationId, status, pending] of refusals) {
      const response = await pending;
      expect(response.status, operationId).toBe(status);
      expectConforms(operationId, status, response.body);
    }
  });

  it('the contract would catch a field too many (the schema forbids extras)', () => {
    const result = contract.api.validateResponse({ total_balance: 0, account_count: 2, active_account_count: 2, pending_balance: 0 }, 'getAccountStats', 200);
    expect(result.errors?.length ?? 0).toBeGreaterThan(0);
  });
});
