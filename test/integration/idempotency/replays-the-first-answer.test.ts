import { describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../../support/gateway.js';

const gateway = useGateway();

const count = (organizationId: string) => gateway.ctx.db.transaction.count({ where: { organizationId } });

describe('Idempotency-Key: same key, same request', () => {
  it('replays the first status and body with Idempotent-Replayed: true, creating one transaction', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'order-2026-0001' };
    const first = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers });
    const second = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await count(organization.id)).toBe(1);
  });

  it('treats the same JSON with its keys in another order as the same request', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'reordered' };
    const body = transactionBody();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const first = await gateway.rest('POST', '/api/v2/transactions', { key, body, headers });
    const second = await gateway.rest('POST', '/api/v2/transactions', { key, body: reordered, headers });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.order_id).toBe(first.body.order_id);
    expect(await count(organization.id)).toBe(1);
  });

  it('replays a refusal too (the same 400), without running the request again', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'bad-total' };
    const body = transactionBody({ products: [{ name: 'x', price: 5, quantity: 1 }] });
    const first = await gateway.rest('POST', '/api/v2/transactions', { key, body, headers });
    const second = await gateway.rest('POST', '/api/v2/transactions', { key, body, headers });
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await count(organization.id)).toBe(0);
  });

  it('has no effect without the header: each request creates a transaction', async () => {
    const { organization, key } = await gateway.merchant();
    await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(await count(organization.id)).toBe(2);
  });

  it('scopes keys to the organisation: two merchants may use the same key', async () => {
    const [a, b] = [await gateway.merchant(), await gateway.merchant()];
    const headers = { 'idempotency-key': 'shared-key' };
    const first = await gateway.rest('POST', '/api/v2/transactions', { key: a.key, body: transactionBody(), headers });
    const second = await gateway.rest('POST', '/api/v2/transactions', { key: b.key, body: transactionBody(), headers });
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.order_id).not.toBe(first.body.order_id);
    expect([await count(a.organization.id), await count(b.organization.id)]).toEqual([1, 1]);
  });

  it('forgets a key after 24 hours: the request runs again', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'old-key' };
    await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers });
    await gateway.ctx.db.idempotencyKey.updateMany({ where: { organizationId: organization.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const again = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(organization.id)).toBe(2);
  });
});
