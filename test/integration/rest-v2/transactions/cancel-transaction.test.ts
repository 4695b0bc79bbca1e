import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../../support/gateway.js';
import { expectError } from '../../../support/assertions.js';
import { createOk } from './helpers.js';

const gateway = useGateway();

const cancel = (key: string, orderId: string) => gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key });
const get = (key: string, orderId: string) => gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });
const statusInDb = async (orderId: string) => (await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } })).status;

describe('DELETE /api/v2/transactions/{order_id} cancels a pending transaction', () => {
  it('answers 200 with only a message, then the transaction reads as cancelled', async () => {
    const { key } = await gateway.merchant();
    const { order_id: orderId } = await createOk(gateway, key);

    const response = await cancel(key, orderId);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['message']);
    expect(typeof response.body.message).toBe('string');
    expect(response.body.message.length).toBeGreaterThan(0);

    const after = await get(key, orderId);
    expect(after.status).toBe(200);
    expect(after.body.transaction_status).toBe('cancelled');
    expect(after.body.paid_at).toBeNull();
  });

  it('hides the cancelled transaction from the list, unless include_deleted=true', async () => {
    const { key } = await gateway.merchant();
    const { order_id: cancelled } = await createOk(gateway, key);
    const { order_id: kept } = await createOk(gateway, key);
    expect((await cancel(key, cancelled)).status).toBe(200);

    const listed = await gateway.rest('GET', '/api/v2/transactions', { key });
    expect(listed.body.transactions.map((transaction: any) => transaction.order_id)).toEqual([kept]);
    const withDeleted = await gateway.rest('GET', '/api/v2/transactions?include_deleted=true', { key });
    expect(withDeleted.body.transactions.map((transaction: any) => transaction.order_id).sort()).toEqual([cancelled, kept].sort());
  });

  it('works with a write-scoped and a readAndWrite-scoped key', async () => {
    const { organization, key } = await gateway.merchant();
    for (const scope of ['write', 'readAndWrite']) {
      const { order_id: orderId } = await createOk(gateway, key);
      const scopedKey = await gateway.createKey(organization.id, scope);
      expect((await cancel(scopedKey, orderId)).status).toBe(200);
      expect(await statusInDb(orderId)).toBe('cancelled');
    }
  });
});

describe('DELETE /api/v2/transactions/{order_id} refuses', () => {
  it('a second cancel with 400 "Transaction is already deleted"', async () => {
    const { key } = await gateway.merchant();
    const { order_id: orderId } = await createOk(gateway, key);
    expect((await cancel(key, orderId)).status).toBe(200);
    expectError(await cancel(key, orderId), 400, 'Transaction is already deleted');
    expect(await statusInDb(orderId)).toBe('cancelled');
  });

  it.each([['paid'], ['paid_and_blocked'], ['refunded']] as const)(
    'a %s transaction with 400 "Cannot delete a paid transaction", leaving it unchanged',
    async (status) => {
      const { key } = await gateway.merchant();
      const { order_id: orderId } = await createOk(gateway, key);
      await gateway.ctx.db.transaction.update({ where: { id: orderId }, data: { status, selectedPaymentMethod: 'wave', paidAt: new Date() } });

      expectError(await cancel(key, orderId), 400, 'Cannot delete a paid transaction');
      expect(await statusInDb(orderId)).toBe(status);
      const listed = await gateway.rest('GET', '/api/v2/transactions', { key });
      expect(listed.body.transactions.map((transaction: any) => transaction.order_id)).toEqual([orderId]);
    },
  );

  it('an unknown uuid with 404 "Transaction not found"', async () => {
    const { key } = await gateway.merchant();
    expectError(await cancel(key, randomUUID()), 404, 'Transaction not found');
  });

  it.each([['not-a-uuid'], ['42']])('the malformed id %j with 404 "Transaction not found"', async (id) => {
    const { key } = await gateway.merchant();
    expectError(await cancel(key, id), 404, 'Transaction not found');
  });

  it("another organisation's transaction with 404, exactly like a missing one, and it stays pending", async () => {
    const owner = await gateway.merchant();
    const other = await gateway.merchant();
    const { order_id: orderId } = await createOk(gateway, owner.key);

    const foreign = await cancel(other.key, orderId);
    const missing = await cancel(other.key, randomUUID());
    expectError(foreign, 404, 'Transaction not found');
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });

    const after = await get(owner.key, orderId);
    expect(after.body.transaction_status).toBe('pending');
    expect(await statusInDb(orderId)).toBe('pending');
  });

  it('a read-scoped key with 403 "You don\'t have permission to perform this action", and it stays pending', async () => {
    const { organization, key } = await gateway.merchant();
    const { order_id: orderId } = await createOk(gateway, key);
    const readKey = await gateway.createKey(organization.id, 'read');
    expectError(await cancel(readKey, orderId), 403, "You don't have permission to perform this action");
    expect(await statusInDb(orderId)).toBe('pending');
  });
});

describe('DELETE /api/v2/transactions/{order_id} under concurrency', () => {
  it('cancels once: of 5 simultaneous cancels one succeeds and the others get "Transaction is already deleted"', async () => {
    const { key } = await gateway.merchant();
    const { order_id: orderId } = await createOk(gateway, key);
    const responses = await Promise.all(Array.from({ length: 5 }, () => cancel(key, orderId)));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 200)) expectError(response, 400, 'Transaction is already deleted');
    expect(await statusInDb(orderId)).toBe('cancelled');
  });
});
