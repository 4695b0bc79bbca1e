import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { setSwitch } from '../../../src/domain/operations.js';
import { useGateway, transactionBody } from '../../support/gateway.js';

const gateway = useGateway();

const count = (organizationId: string) => gateway.ctx.db.transaction.count({ where: { organizationId } });

describe('Idempotency-Key misuse', () => {
  it('answers 422 to another request with a used key, and runs nothing', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'k-422' };
    await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers });
    const other = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: transactionBody({ products: [{ name: 'Thiof', price: 9000, quantity: 1 }] }),
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ error: 'This Idempotency-Key was already used with a different request' });
    expect(await count(organization.id)).toBe(1);
  });

  it('answers 409 while the first request with the key is still running, and runs nothing', async () => {
    const { organization, key } = await gateway.merchant();
    // The first request is "still running" exactly when its database transaction holds the key's
    // lock: hold that lock from another connection, as the first request's transaction would.
    const first = new pg.Client({ connectionString: gateway.databaseUrl });
    await first.connect();
    try {
      await first.query('BEGIN');
      await first.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${organization.id}:k-409`]);
      const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers: { 'idempotency-key': 'k-409' } });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ error: 'A request with this Idempotency-Key is still being processed. Retry shortly.' });
      expect(await count(organization.id)).toBe(0);
    } finally {
      await first.query('ROLLBACK');
      await first.end();
    }
    // Once the first is over (here: rolled back, leaving no key), the key is free again.
    const retried = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers: { 'idempotency-key': 'k-409' } });
    expect(retried.status).toBe(200);
    expect(await count(organization.id)).toBe(1);
  });

  it('lets exactly one of many concurrent requests with one key run', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'k-race' };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers })),
    );
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(),
    ).toBe(true);
    const orderIds = new Set(responses.filter((response) => response.status === 200).map((response) => response.body.order_id));
    expect(orderIds.size).toBe(1);
    expect(await count(organization.id)).toBe(1);
  });

  it('does not keep a transient failure (503): the same key works once the service is back', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'k-503' };
    await setSwitch(gateway.ctx, gateway.operator, 'transactions', false);
    try {
      expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers })).status).toBe(503);
    } finally {
      await setSwitch(gateway.ctx, gateway.operator, 'transactions', true);
    }
    const retried = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(organization.id)).toBe(1);
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['with a space', 'my key'],
    ['with a non-ASCII character', 'clé'],
  ])('refuses a key %s with 400 and runs nothing', async (_case, idempotencyKey) => {
    const { organization, key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers: { 'idempotency-key': idempotencyKey } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Idempotency-Key must be 1 to 255 visible ASCII characters' });
    expect(await count(organization.id)).toBe(0);
  });
});
