/**
 * Spec, Authentication 5 and docs/architecture.md#organisations: an inactive organisation gets 401
 * `Organization is not active` on writes while its reads still work; a blocked one gets 403
 * `Organization is blocked...` on everything. Status changes apply on the next request.
 */
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey, updateOrganization } from '../../../src/domain/operations.js';
import { useGateway, transactionBody } from '../../support/gateway.js';

const NOT_ACTIVE = { error: 'Organization is not active' };

const gateway = useGateway();

/** An active organisation with a key and one pending transaction. */
async function merchantWithTransaction(scope = 'checkout') {
  const { organization, key } = await gateway.merchant({ scope: 'checkout' });
  const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
  expect(created.status).toBe(200);
  const scopedKey = scope === 'checkout' ? key : await gateway.createKey(organization.id, scope);
  return { organizationId: organization.id, key: scopedKey, orderId: created.body.order_id as string };
}

const setStatus = (organizationId: string, status: 'active' | 'inactive' | 'blocked') =>
  updateOrganization(gateway.ctx, gateway.operator, organizationId, { status });

const transactionCount = (organizationId: string) => gateway.ctx.db.transaction.count({ where: { organizationId } });
const storedTransaction = (orderId: string) => gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });

const endpoints = (orderId: string) => [
  { name: 'POST /transactions', method: 'POST', path: '/api/v2/transactions', body: transactionBody() },
  { name: 'GET /transactions', method: 'GET', path: '/api/v2/transactions' },
  { name: 'GET /transactions/{order_id}', method: 'GET', path: `/api/v2/transactions/${orderId}` },
  { name: 'DELETE /transactions/{order_id}', method: 'DELETE', path: `/api/v2/transactions/${orderId}` },
];

/** The blocked answer: exactly `{error}`, a 403 whose message starts as the spec says. */
function expectBlocked(name: string, response: { status: number; body: any }) {
  expect({ endpoint: name, status: response.status, keys: Object.keys(response.body ?? {}) }).toStrictEqual({ endpoint: name, status: 403, keys: ['error'] });
  expect(response.body.error).toMatch(/^Organization is blocked/);
  // "followed by a request to contact the operator"
  expect(response.body.error).toMatch(/contact/i);
}

describe('an inactive organisation', () => {
  it('gets 401 Organization is not active on POST /transactions, and nothing is written', async () => {
    const { organization, key } = await gateway.merchant({ update: { status: 'inactive' } });
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(response.status).toBe(401);
    expect(response.body).toStrictEqual(NOT_ACTIVE);
    expect(await transactionCount(organization.id)).toBe(0);
  });

  it('gets 401 Organization is not active on DELETE /transactions/{order_id}, and the transaction stays pending', async () => {
    const { organizationId, key, orderId } = await merchantWithTransaction();
    await setStatus(organizationId, 'inactive');
    const response = await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key });
    expect(response.status).toBe(401);
    expect(response.body).toStrictEqual(NOT_ACTIVE);
    const transaction = await storedTransaction(orderId);
    expect(transaction.status).toBe('pending');
    expect(transaction.isDeleted).toBe(false);
  });

  it('can still list its transactions (200)', async () => {
    const { organizationId, key, orderId } = await merchantWithTransaction();
    await setStatus(organizationId, 'inactive');
    const response = await gateway.rest('GET', '/api/v2/transactions', { key });
    expect(response.status).toBe(200);
    expect(response.body.transactions.map((transaction: { order_id: string }) => transaction.order_id)).toEqual([orderId]);
  });

  it('can still get one of its transactions (200)', async () => {
    const { organizationId, key, orderId } = await merchantWithTransaction();
    await setStatus(organizationId, 'inactive');
    const response = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });
    expect(response.status).toBe(200);
    expect(response.body.order_id).toBe(orderId);
    expect(response.body.transaction_status).toBe('pending');
  });

  it('gets 401 Invalid API key, not Organization is not active, for a revoked key of the organisation', async () => {
    const { organization } = await gateway.merchant({ update: { status: 'inactive' } });
    const issued = await createApiKey(gateway.ctx, gateway.operator, organization.id, 'checkout');
    await revokeApiKey(gateway.ctx, gateway.operator, issued.apiKey.id);
    const response = await gateway.rest('POST', '/api/v2/transactions', { key: issued.secret, body: transactionBody() });
    expect(response.status).toBe(401);
    expect(response.body).toStrictEqual({ error: 'Invalid API key' });
  });
});

describe('a blocked organisation', () => {
  it('gets 403 Organization is blocked on every transaction endpoint, and nothing changes', async () => {
    const { organizationId, key, orderId } = await merchantWithTransaction();
    await setStatus(organizationId, 'blocked');
    for (const endpoint of endpoints(orderId)) {
      const response = await gateway.rest(endpoint.method, endpoint.path, { key, ...(endpoint.body && { body: endpoint.body }) });
      expectBlocked(endpoint.name, response);
    }
    expect(await transactionCount(organizationId)).toBe(1);
    const transaction = await storedTransaction(orderId);
    expect(transaction.status).toBe('pending');
    expect(transaction.isDeleted).toBe(false);
  });

  it.each(['read', 'write', 'readAndWrite', 'payout', 'management'])(
    'gets Organization is blocked (not a scope or another error) with a %s key on every endpoint',
    async (scope) => {
      const { organizationId, key, orderId } = await merchantWithTransaction(scope);
      await setStatus(organizationId, 'blocked');
      for (const endpoint of endpoints(orderId)) {
        const response = await gateway.rest(endpoint.method, endpoint.path, { key, ...(endpoint.body && { body: endpoint.body }) });
        expectBlocked(`${endpoint.name} (${scope})`, response);
      }
    },
  );

  it('gets 401 Invalid API key, not the blocked 403, for a revoked key of the organisation', async () => {
    const { organization } = await gateway.merchant({ update: { status: 'blocked' } });
    const issued = await createApiKey(gateway.ctx, gateway.operator, organization.id, 'checkout');
    await revokeApiKey(gateway.ctx, gateway.operator, issued.apiKey.id);
    const response = await gateway.rest('GET', '/api/v2/transactions', { key: issued.secret });
    expect(response.status).toBe(401);
    expect(response.body).toStrictEqual({ error: 'Invalid API key' });
  });

  it('is blocked when created blocked', async () => {
    const { key } = await gateway.merchant({ update: { status: 'blocked' } });
    expectBlocked('GET /transactions', await gateway.rest('GET', '/api/v2/transactions', { key }));
  });
});

describe('status changes take effect on the next request, without a restart', () => {
  it('follows active -> inactive -> blocked -> active', async () => {
    const { organizationId, key, orderId } = await merchantWithTransaction();

    const active = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(active.status).toBe(200);

    await setStatus(organizationId, 'inactive');
    const inactiveWrite = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(inactiveWrite.status).toBe(401);
    expect(inactiveWrite.body).toStrictEqual(NOT_ACTIVE);
    const inactiveRead = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });
    expect(inactiveRead.status).toBe(200);

    await setStatus(organizationId, 'blocked');
    expectBlocked('GET /transactions/{order_id} while blocked', await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key }));
    expectBlocked('POST /transactions while blocked', await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() }));

    await setStatus(organizationId, 'active');
    const reactivated = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(reactivated.status).toBe(200);
    const cancelled = await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key });
    expect(cancelled.status).toBe(200);
    expect((await storedTransaction(orderId)).status).toBe('cancelled');

    expect(await transactionCount(organizationId)).toBe(3);
  });

  it('unblocks straight to inactive: reads work again, writes get 401', async () => {
    const { organizationId, key, orderId } = await merchantWithTransaction();
    await setStatus(organizationId, 'blocked');
    expectBlocked('GET /transactions while blocked', await gateway.rest('GET', '/api/v2/transactions', { key }));

    await setStatus(organizationId, 'inactive');
    const read = await gateway.rest('GET', '/api/v2/transactions', { key });
    expect(read.status).toBe(200);
    const write = await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key });
    expect(write.status).toBe(401);
    expect(write.body).toStrictEqual(NOT_ACTIVE);
  });

  it('affects only the organisation whose status changed', async () => {
    const blocked = await merchantWithTransaction();
    const other = await merchantWithTransaction();
    await setStatus(blocked.organizationId, 'blocked');
    expectBlocked('GET /transactions (blocked org)', await gateway.rest('GET', '/api/v2/transactions', { key: blocked.key }));
    const response = await gateway.rest('POST', '/api/v2/transactions', { key: other.key, body: transactionBody() });
    expect(response.status).toBe(200);
  });
});
