/**
 * Idempotency-Key on v1 is the operation's: the fingerprint is the operation and its normalised
 * input, not the surface, so v1 and v2 calls with one key are one request.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { createdV1, expectDetail, fundedMerchant, mainBalance, pay, v1, v1TransactionBody } from './helpers.js';

const gateway = useGateway();

/** The same request in v2's words: one product of 1500 x 2, wave, the same URLs, no customer. */
const v2Body = {
  method_of_payment: ['wave'],
  products: [{ name: 'Bissap juice', price: 1500, quantity: 2, description: '1 L bottle' }],
  success_url: 'https://shop.example.sn/merci',
  error_url: 'https://shop.example.sn/erreur',
  fees_customer_side: false,
  is_escrow: false,
  is_merchant: false,
};
const v1Body = v1TransactionBody({ products: [{ name: 'Bissap juice', amount: 1500, quantity: 2, description: '1 L bottle' }] });
const countOf = (organizationId: string) => gateway.ctx.db.transaction.count({ where: { organizationId } });

describe('Idempotency-Key on REST v1', () => {
  it('replays a v1 create retried through v1: the same transaction, Idempotent-Replayed: true', async () => {
    const { organization, key } = await gateway.merchant();
    const first = await v1.create(gateway, key, v1Body, 'v1-retry');
    const second = await v1.create(gateway, key, v1Body, 'v1-retry');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await countOf(organization.id)).toBe(1);
  });

  it('replays a v2 create retried through v1 with the same key and input, in the v1 shape', async () => {
    const { organization, key } = await gateway.merchant();
    const original = await gateway.rest('POST', '/api/v2/transactions', { key, body: v2Body, headers: { 'idempotency-key': 'cross-surface' } });
    expect(original.status, JSON.stringify(original.body)).toBe(200);
    const replay = await v1.create(gateway, key, v1Body, 'cross-surface');
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toMatchObject({
      order_id: original.body.order_id,
      method_of_payment: ['WAVE'],
      amount: 3000,
      created_at: original.body.created_at,
      checkout_url: original.body.checkout_url,
    });
    expect(await countOf(organization.id)).toBe(1);
  });

  it('treats a field sent with its default as left out: v2 without the booleans, then v1 with them false, is one request', async () => {
    const { organization, key } = await gateway.merchant();
    const { fees_customer_side: _f, is_escrow: _e, is_merchant: _m, ...bare } = v2Body;
    const original = await gateway.rest('POST', '/api/v2/transactions', { key, body: bare, headers: { 'idempotency-key': 'defaults' } });
    expect(original.status, JSON.stringify(original.body)).toBe(200);
    const replay = await v1.create(gateway, key, v1Body, 'defaults');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.order_id).toBe(original.body.order_id);
    // A true is not a default: another request.
    expect((await v1.create(gateway, key, { ...v1Body, is_merchant: true }, 'defaults')).status).toBe(422);
    expect(await countOf(organization.id)).toBe(1);
  });

  it('answers 422 when the same key comes with another input (a category is part of the input; v2 sent none)', async () => {
    const { organization, key } = await gateway.merchant();
    expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: v2Body, headers: { 'idempotency-key': 'k-422' } })).status).toBe(200);
    expectDetail(await v1.create(gateway, key, v1TransactionBody(), 'k-422'), 422, 'This Idempotency-Key was already used with a different request');
    expectDetail(
      await v1.create(gateway, key, { ...v1Body, method_of_payment: 'ORANGE_MONEY' }, 'k-422'),
      422,
      'This Idempotency-Key was already used with a different request',
    );
    expect(await countOf(organization.id)).toBe(1);
  });

  it('replays a refusal it stored (a 4xx is an answer too)', async () => {
    const { key } = await gateway.merchant();
    const refused = v1TransactionBody({ products: [{ name: 'x', amount: 5, quantity: 1 }] });
    expectDetail(await v1.create(gateway, key, refused, 'refused'), 400, 'Total price must be greater than 10 and the quantity must be non-zero');
    const again = await v1.create(gateway, key, refused, 'refused');
    expectDetail(again, 400, 'Total price must be greater than 10 and the quantity must be non-zero');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('makes a cashout and a v2 payout with one key and one input one payout', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const cashout = await v1.cashout(gateway, key, 'wave', { full_name: 'Moussa Ndiaye', amount: 10_000, phone_number: '+221770000001' }, 'pay-once');
    expect(cashout.status, JSON.stringify(cashout.body)).toBe(200);
    const payout = await gateway.rest('POST', '/api/v2/payouts', {
      key,
      body: { selected_payment_method: 'wave', amount: 10_000, recipient: { first_name: 'Moussa', last_name: 'Ndiaye', phone: '+221770000001' } },
      headers: { 'idempotency-key': 'pay-once' },
    });
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    expect(payout.headers.get('idempotent-replayed')).toBe('true');
    expect(payout.body.payout_status).toBe('completed');
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 10_100n);
    // The other route is another method: another request.
    expectDetail(
      await v1.cashout(gateway, key, 'orange-money', { full_name: 'Moussa Ndiaye', amount: 10_000, phone_number: '+221770000001' }, 'pay-once'),
      422,
      'This Idempotency-Key was already used with a different request',
    );
  });

  it('replays a v1 delete of a pending transaction retried with its key: cancelled once, Idempotent-Replayed: true', async () => {
    const { key } = await gateway.merchant();
    const { order_id: orderId } = await createdV1(gateway, key);
    const first = await v1.delete(gateway, key, orderId, 'cancel-once');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ order_id: orderId, message: 'Transaction cancelled successfully' });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const cancelled = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });
    expect(cancelled.status).toBe('cancelled');

    const again = await v1.delete(gateway, key, orderId, 'cancel-once');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // Cancelled once: the retry wrote nothing.
    const after = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });
    expect(after.cancelledAt).toEqual(cancelled.cancelledAt);
    expect(after.updatedAt).toEqual(cancelled.updatedAt);
    // Without the key the same delete is a new request, refused by cancel's rule.
    expectDetail(await v1.delete(gateway, key, orderId), 400, 'Transaction is already deleted');
    // The key is the cancel's: a refund of the same transaction with it is another request.
    const refund = await gateway.rest('GET', `/api/v2/refund/${orderId}`, { key, headers: { 'idempotency-key': 'cancel-once' } });
    expect(refund).toMatchObject({ status: 422, body: { error: 'This Idempotency-Key was already used with a different request' } });
  });

  it('makes a v1 delete of a paid transaction and a v2 refund with one key one refund', async () => {
    const { organization, key } = await gateway.merchant();
    const created = await createdV1(gateway, key, v1TransactionBody({ fees_customer_side: true }));
    await pay(gateway, created.order_id);
    const before = await mainBalance(gateway, organization.id);
    const deleted = await v1.delete(gateway, key, created.order_id, 'refund-once');
    expect(deleted.body).toEqual({ order_id: created.order_id, message: 'Transaction refunded successfully' });
    const again = await v1.delete(gateway, key, created.order_id, 'refund-once');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const v2 = await gateway.rest('GET', `/api/v2/refund/${created.order_id}`, { key, headers: { 'idempotency-key': 'refund-once' } });
    expect(v2.status).toBe(200);
    expect(v2.headers.get('idempotent-replayed')).toBe('true');
    expect(await mainBalance(gateway, organization.id)).toBe(before - 3000n);
    expect(await gateway.ctx.db.refund.count({ where: { transactionId: created.order_id } })).toBe(1);
  });
});
