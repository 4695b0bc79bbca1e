import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { createdV1, expectDetail, expectV1Headers, mainBalance, pay, statusInDb, v1, v1TransactionBody } from './helpers.js';

const gateway = useGateway();

const merchant = () => gateway.merchant();
/** Paid with the fees on the customer's side, so main receives the whole amount and covers its refund. */
const paidV1 = async (key: string) => {
  const created = await createdV1(gateway, key, v1TransactionBody({ fees_customer_side: true }));
  await pay(gateway, created.order_id);
  return created.order_id as string;
};

describe('DELETE /api/v1/transaction/delete-transaction', () => {
  it('cancels a pending transaction (v2 cancel): {order_id, message}, then it reads cancelled', async () => {
    const { key } = await merchant();
    const { order_id: orderId } = await createdV1(gateway, key);
    const response = await v1.delete(gateway, key, orderId);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectV1Headers(response);
    expect(response.body).toEqual({ order_id: orderId, message: 'Transaction cancelled successfully' });
    expect(await statusInDb(gateway, orderId)).toBe('cancelled');
  });

  it('refunds a paid transaction (v2 refund): main is debited by the amount, the status becomes refunded', async () => {
    const { organization, key } = await merchant();
    const orderId = await paidV1(key);
    const before = await mainBalance(gateway, organization.id);
    const response = await v1.delete(gateway, key, orderId);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ order_id: orderId, message: 'Transaction refunded successfully' });
    expect(await statusInDb(gateway, orderId)).toBe('refunded');
    expect(await mainBalance(gateway, organization.id)).toBe(before - 3000n);
    expect(await gateway.ctx.db.refund.count({ where: { transactionId: orderId } })).toBe(1);
  });

  it('takes the order_id from the query string when there is no body', async () => {
    const { key } = await merchant();
    const { order_id: orderId } = await createdV1(gateway, key);
    const response = await gateway.rest('DELETE', `/api/v1/transaction/delete-transaction?order_id=${orderId}`, { key });
    expect(response.body).toEqual({ order_id: orderId, message: 'Transaction cancelled successfully' });
  });

  it("answers a cancelled transaction with v2 cancel's 400, a refunded one with v2 refund's 400", async () => {
    const { key } = await merchant();
    const { order_id: cancelled } = await createdV1(gateway, key);
    expect((await v1.delete(gateway, key, cancelled)).status).toBe(200);
    expectDetail(await v1.delete(gateway, key, cancelled), 400, 'Transaction is already deleted');

    const refunded = await paidV1(key);
    expect((await v1.delete(gateway, key, refunded)).status).toBe(200);
    expectDetail(await v1.delete(gateway, key, refunded), 400, 'This Transaction cannot be refund');
    expect(await statusInDb(gateway, refunded)).toBe('refunded');
  });

  it('refuses a refund main cannot cover with 400 Insufficient balance, changing nothing', async () => {
    const { organization, key } = await merchant();
    const orderId = await paidV1(key);
    await gateway.ctx.db.account.updateMany({ where: { organizationId: organization.id, name: 'main' }, data: { balance: 0n } });
    expectDetail(await v1.delete(gateway, key, orderId), 400, 'Insufficient balance');
    expect(await statusInDb(gateway, orderId)).toBe('paid');
  });

  it('refuses a missing order_id with 400, an unknown or foreign one with 404', async () => {
    const { key } = await merchant();
    const other = await merchant();
    const { order_id: foreign } = await createdV1(gateway, other.key);
    expectDetail(await gateway.rest('DELETE', '/api/v1/transaction/delete-transaction', { key }), 400, /^Invalid request body: order_id is required/);
    expectDetail(await gateway.rest('DELETE', '/api/v1/transaction/delete-transaction', { key, body: {} }), 400, /^Invalid request body: order_id is required/);
    expectDetail(await v1.delete(gateway, key, randomUUID()), 404, 'Transaction not found');
    expectDetail(await v1.delete(gateway, key, foreign), 404, 'Transaction not found');
    expect(await statusInDb(gateway, foreign)).toBe('pending');
  });

  it('refuses no key with 401; read and payout keys with 403', async () => {
    const { organization, key } = await merchant();
    const { order_id: orderId } = await createdV1(gateway, key);
    expectDetail(await v1.delete(gateway, undefined, orderId), 401, 'Invalid API key');
    for (const scope of ['read', 'payout']) {
      expectDetail(await v1.delete(gateway, await gateway.createKey(organization.id, scope), orderId), 403, "You don't have permission to perform this action");
    }
    expect(await statusInDb(gateway, orderId)).toBe('pending');
  });

  it('lets a management key refund a paid transaction (v2 refund takes it) but not cancel one (v2 cancel does not): 403', async () => {
    const { organization, key } = await merchant();
    const management = await gateway.createKey(organization.id, 'management');
    const paid = await paidV1(key);
    expect(await v1.delete(gateway, management, paid)).toMatchObject({ status: 200, body: { order_id: paid, message: 'Transaction refunded successfully' } });
    expect(await statusInDb(gateway, paid)).toBe('refunded');

    const { order_id: pending } = await createdV1(gateway, key);
    const { order_id: cancelled } = await createdV1(gateway, key);
    expect((await v1.delete(gateway, key, cancelled)).status).toBe(200);
    for (const orderId of [pending, cancelled, paid]) {
      expectDetail(await v1.delete(gateway, management, orderId), 403, "You don't have permission to perform this action");
    }
    expect(await statusInDb(gateway, pending)).toBe('pending');
  });

  it('accepts write and readAndWrite keys for both a cancel and a refund', async () => {
    const { organization, key } = await merchant();
    for (const scope of ['write', 'readAndWrite']) {
      const scoped = await gateway.createKey(organization.id, scope);
      const { order_id: pending } = await createdV1(gateway, key);
      expect((await v1.delete(gateway, scoped, pending)).body.message).toBe('Transaction cancelled successfully');
      const paid = await paidV1(key);
      expect((await v1.delete(gateway, scoped, paid)).body.message).toBe('Transaction refunded successfully');
    }
  });
});
