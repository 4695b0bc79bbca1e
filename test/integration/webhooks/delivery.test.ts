/**
 * payment_status webhooks end to end against a real receiver on 127.0.0.1: the outbox row written
 * with the payment, the exact v1 / v2 bodies signed over the bytes sent, retries on failure with
 * every attempt logged, redirects and timeouts as failures, the drop after the last retry, and
 * redelivery.
 */
import { describe, expect, it } from 'vitest';
import { deleteWebhook, listWebhookDeliveries, redeliverWebhook, releaseEscrow, rotateWebhookSecret } from '../../../src/domain/operations.js';
import { enqueuePaymentStatus } from '../../../src/domain/webhooks/store.js';
import { purgeOldDeliveries } from '../../../src/domain/webhooks/schedule.js';
import { useGateway } from '../../support/gateway.js';
import { eventually } from '../../support/webhookReceiver.js';
import { pendingTransaction } from '../../support/accounts.js';
import { addWebhook, deliveredDeliveries, deliveriesOf, merchantWithWebhook, paidTransaction, useDispatching } from '../../support/webhooks.js';
import { paymentStatusBodyV1, paymentStatusBodyV2 } from '../../../src/domain/webhooks/bodies.js';
import { findVisibleTransaction } from '../../../src/domain/transactions/transactions.js';

const RETRY_DELAY_MS = 150;
/**
 * How long a delivery waits for an answer. 400 ms was too short for the local receiver's 404 on a
 * loaded day (a fresh-clone CI run of 9 minutes recorded no answer); the slow receiver below
 * takes 3 s, well beyond it.
 */
const TIMEOUT_MS = 1_000;
const gateway = useGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: RETRY_DELAY_MS, maxRetries: 3, timeoutMs: TIMEOUT_MS } });
const delivering = useDispatching(gateway);

const V2_FIELDS = [
  'order_id',
  'method_of_payment',
  'selected_payment_method',
  'amount',
  'fees',
  'currency',
  'customer',
  'transaction_status',
  'products',
  'is_escrow',
  'is_merchant',
  'fees_customer_side',
  'success_url',
  'error_url',
  'created_at',
  'updated_at',
  'paid_at',
];

describe('payment_status webhooks', () => {
  it('sends one signed delivery per endpoint when a payment goes through the checkout: the v2 and v1 bodies, compact JSON', async () => {
    const { organization, key } = await merchantWithWebhook(gateway, delivering.receiver, '/pay/v2', 'v2');
    await addWebhook(gateway, delivering.receiver, organization.id, '/pay/v1', 'v1');
    const paid = await paidTransaction(gateway, key, { price: 12_500 });

    const [v2] = await eventually(() => (delivering.receiver.on('/pay/v2').length ? delivering.receiver.on('/pay/v2') : null), 10_000, 'the v2 delivery');
    const [v1] = await eventually(() => (delivering.receiver.on('/pay/v1').length ? delivering.receiver.on('/pay/v1') : null), 10_000, 'the v1 delivery');
    for (const request of [v1!, v2!]) {
      expect(request.signatureValid).toBe(true);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['x-signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(request.headers['x-event-type']).toBe('payment_status');
      // Compact: re-serialising the parsed body gives the same bytes.
      expect(JSON.stringify(JSON.parse(request.raw.toString('utf8')))).toBe(request.raw.toString('utf8'));
    }
    // One event, one id, on both endpoints.
    expect(v1!.headers['x-event-id']).toBe(v2!.headers['x-event-id']);

    const body = JSON.parse(v2!.raw.toString('utf8'));
    expect(Object.keys(body)).toEqual(V2_FIELDS);
    const fromApi = (await gateway.rest('GET', `/api/v2/transactions/${paid.id}`, { key })).body;
    for (const field of V2_FIELDS) expect(body[field], field).toEqual(fromApi[field]);
    expect(body).toMatchObject({ order_id: paid.id, transaction_status: 'paid', amount: 12_500, selected_payment_method: 'wave', currency: 'XOF' });
    expect(Object.keys(body.customer)).toEqual(['first_name', 'last_name', 'phone', 'created_at']);

    expect(JSON.parse(v1!.raw.toString('utf8'))).toEqual({
      order_id: paid.id,
      amount: 12_500,
      currency: 'XOF',
      created_at: fromApi.created_at,
      transaction_status: 'paid',
      payment_method: 'WAVE',
    });
    expect(Object.keys(JSON.parse(v1!.raw.toString('utf8')))).toEqual(['order_id', 'amount', 'currency', 'created_at', 'transaction_status', 'payment_method']);

    const deliveries = await deliveredDeliveries(gateway, paid.id);
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries) expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([200]);
    // The exact bytes stored are the bytes sent.
    expect(deliveries.map((delivery) => delivery.body).sort()).toEqual([v1!.raw.toString('utf8'), v2!.raw.toString('utf8')].sort());
    // The bodies were built before the settlement statement ran (it writes the outbox rows too):
    // byte for byte what the settled row gives.
    const settled = await findVisibleTransaction(gateway.ctx.db, null, paid.id);
    expect(v2!.raw.toString('utf8')).toBe(paymentStatusBodyV2(settled));
    expect(v1!.raw.toString('utf8')).toBe(paymentStatusBodyV1(settled));
  });

  it('sends paid_and_blocked for an escrow payment, then paid once on release; v1 bodies say paid both times (the v1 vocabulary)', async () => {
    const { organization, key } = await merchantWithWebhook(gateway, delivering.receiver, '/escrow', 'v2');
    await addWebhook(gateway, delivering.receiver, organization.id, '/escrow-v1', 'v1');
    const held = await paidTransaction(gateway, key, { isEscrow: true });
    expect(held.status).toBe('paid_and_blocked');
    await eventually(() => delivering.receiver.on('/escrow').length === 1 && delivering.receiver.on('/escrow-v1').length === 1);
    await releaseEscrow(gateway.ctx, gateway.operator, held.id);
    await eventually(() => delivering.receiver.on('/escrow').length === 2 && delivering.receiver.on('/escrow-v1').length === 2);
    const statusesOn = (path: string) => delivering.receiver.on(path).map((request) => JSON.parse(request.raw.toString('utf8')).transaction_status);
    expect(statusesOn('/escrow')).toEqual(['paid_and_blocked', 'paid']);
    // The v1 clients' enum is pending, paid, done, part_paid (the Python SDK refuses anything else).
    expect(statusesOn('/escrow-v1')).toEqual(['paid', 'paid']);
    expect([...delivering.receiver.on('/escrow'), ...delivering.receiver.on('/escrow-v1')].every((request) => request.signatureValid)).toBe(true);
    expect(await deliveriesOf(gateway, held.id)).toHaveLength(4);
  });

  it('writes the outbox row in the status change’s own database transaction: a rolled-back change leaves no delivery', async () => {
    const { organization, key } = await merchantWithWebhook(gateway, delivering.receiver, '/rollback');
    const orderId = await pendingTransaction(gateway, key);
    await expect(
      gateway.ctx.db.$transaction(async (tx) => {
        await tx.transaction.update({ where: { id: orderId }, data: { status: 'paid', paidAt: new Date(), selectedPaymentMethod: 'wave' } });
        expect(await enqueuePaymentStatus(tx, await findVisibleTransaction(tx, null, orderId), new Date())).toBe(1);
        throw new Error('the payment fails after its outbox row');
      }),
    ).rejects.toThrow('the payment fails after its outbox row');
    expect(await deliveriesOf(gateway, orderId)).toHaveLength(0);
    // An organisation without webhooks writes nothing.
    const other = await gateway.merchant({ scope: 'readAndWrite' });
    const unwatched = await paidTransaction(gateway, other.key);
    expect(await deliveriesOf(gateway, unwatched.id)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(delivering.receiver.on('/rollback')).toHaveLength(0);
    void organization;
  });

  it('retries a failing delivering.receiver WEBHOOK_MAX_RETRIES times, WEBHOOK_RETRY_DELAY_MS apart, logging each attempt, then drops it', async () => {
    const { key } = await merchantWithWebhook(gateway, delivering.receiver, '/fails');
    delivering.receiver.configure('/fails', { behaviour: { statuses: [500, 503, 404, 500], body: 'x'.repeat(5_000) } });
    const paid = await paidTransaction(gateway, key);
    const [delivery] = await eventually(
      async () => {
        const rows = await deliveriesOf(gateway, paid.id);
        return rows[0]?.status === 'dropped' ? rows : null;
      },
      10_000,
      'the drop',
    );
    expect(delivery!.attempts.map((attempt) => [attempt.number, attempt.statusCode])).toEqual([
      [1, 500],
      [2, 503],
      [3, 404],
      [4, 500],
    ]);
    // Truncated answer kept.
    expect(delivery!.attempts[0]!.response).toBe('x'.repeat(1024));
    const arrivals = delivering.receiver.on('/fails').map((request) => request.at);
    expect(arrivals).toHaveLength(4);
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 5);
    expect(delivering.receiver.on('/fails').map((request) => request.headers['x-delivery-attempt'])).toEqual(['1', '2', '3', '4']);
    // Nothing after the drop.
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 3));
    expect(delivering.receiver.on('/fails')).toHaveLength(4);
  });

  it('delivers on a later attempt when the delivering.receiver recovers', async () => {
    const { key } = await merchantWithWebhook(gateway, delivering.receiver, '/recovers');
    delivering.receiver.configure('/recovers', { behaviour: { statuses: [502, 200] } });
    const paid = await paidTransaction(gateway, key);
    const [delivery] = await deliveredDeliveries(gateway, paid.id);
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([502, 200]);
    expect(delivery!.deliveredAt).toBeInstanceOf(Date);
  });

  it('does not follow redirects: a 3xx is a failed attempt and the Location is never requested', async () => {
    const { key } = await merchantWithWebhook(gateway, delivering.receiver, '/redirects');
    delivering.receiver.configure('/redirects', { behaviour: { redirectTo: `${delivering.receiver.url}/redirect-target` } });
    const paid = await paidTransaction(gateway, key);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(gateway, paid.id);
      return rows[0]?.status === 'dropped' ? rows : null;
    });
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([302, 302, 302, 302]);
    expect(delivering.receiver.on('/redirect-target')).toHaveLength(0);
  });

  it('counts an answer slower than WEBHOOK_TIMEOUT_MS as a failure, logged with its error and duration', async () => {
    const { key } = await merchantWithWebhook(gateway, delivering.receiver, '/slow');
    delivering.receiver.configure('/slow', { behaviour: { delayMs: 3_000, statuses: [200] } });
    const paid = await paidTransaction(gateway, key);
    const delivery = await eventually(async () => {
      const [row] = await deliveriesOf(gateway, paid.id);
      return row && row.attempts.length >= 1 ? row : null;
    });
    const [first] = delivery.attempts;
    expect(first).toMatchObject({ number: 1, statusCode: null, error: `no answer within ${TIMEOUT_MS} ms` });
    expect(first!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(first!.durationMs).toBeLessThan(2_500); // the deadline, not the delivering.receiver, ended it
    delivering.receiver.configure('/slow', { behaviour: { statuses: [200] } });
    await eventually(async () => (await deliveriesOf(gateway, paid.id))[0]?.status === 'delivered');
  });

  it('redelivers on request: the same bytes and event id, signed with the current secret, logged as a new delivery', async () => {
    const { organization, key, webhook } = await merchantWithWebhook(gateway, delivering.receiver, '/redeliver');
    const paid = await paidTransaction(gateway, key);
    await eventually(() => delivering.receiver.on('/redeliver').length === 1);
    const [original] = await deliveredDeliveries(gateway, paid.id);

    const rotated = await rotateWebhookSecret(gateway.ctx, gateway.operator, webhook.webhook.id);
    delivering.receiver.configure('/redeliver', { secret: rotated.secret });
    // The merchant itself, with a management key.
    const merchant = await gateway.ctx.db.organization.findUniqueOrThrow({ where: { id: organization.id } });
    const caller = { kind: 'merchant' as const, apiKeyId: 'test', scope: 'management' as const, organization: merchant };
    const again = await redeliverWebhook(gateway.ctx, caller, original!.id);
    expect(again).toMatchObject({ redeliveryOf: original!.id, eventId: original!.eventId, status: 'pending' });
    delivering.dispatcher.wake();
    await eventually(() => delivering.receiver.on('/redeliver').length === 2);
    const [first, second] = delivering.receiver.on('/redeliver');
    expect(second!.raw.equals(first!.raw)).toBe(true);
    expect(second!.headers['x-event-id']).toBe(first!.headers['x-event-id']);
    expect(second!.headers['x-event-timestamp']).toBe(first!.headers['x-event-timestamp']);
    expect(second!.headers['x-delivery-id']).toBe(again.id);
    expect(second!.signatureValid).toBe(true);
    expect(second!.headers['x-signature']).not.toBe(first!.headers['x-signature']);

    // The log, as the merchant reads it.
    const log = await eventually(async () => {
      const rows = (await listWebhookDeliveries(gateway.ctx, caller, { orderId: paid.id })).items;
      return rows.every((row) => row.status === 'delivered') ? rows : null;
    });
    expect(log.map((row) => row.id)).toEqual([again.id, original!.id]);
    expect(log[1]!.attempts.map((attempt) => attempt.statusCode)).toEqual([200]);
    // Another organisation's management key sees none of it and cannot redeliver it.
    const stranger = await gateway.merchant({ scope: 'management' });
    const strangerCaller = { kind: 'merchant' as const, apiKeyId: 'test', scope: 'management' as const, organization: stranger.organization };
    expect((await listWebhookDeliveries(gateway.ctx, strangerCaller, { orderId: paid.id })).items).toEqual([]);
    await expect(redeliverWebhook(gateway.ctx, strangerCaller, original!.id)).rejects.toMatchObject({ code: 'webhook_delivery_not_found' });
    // A redelivery of the redelivery still names the first delivery.
    const third = await redeliverWebhook(gateway.ctx, gateway.operator, again.id);
    expect(third.redeliveryOf).toBe(original!.id);
    delivering.dispatcher.wake();
    await eventually(() => delivering.receiver.on('/redeliver').length === 3);
    expect(delivering.receiver.on('/redeliver')[2]!.headers['x-event-timestamp']).toBe(first!.headers['x-event-timestamp']);
    // A checkout key may not manage webhooks.
    await expect(redeliverWebhook(gateway.ctx, { ...caller, scope: 'checkout' }, original!.id)).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('sends nothing more to a deleted webhook: its pending deliveries are dropped', async () => {
    const { key, webhook } = await merchantWithWebhook(gateway, delivering.receiver, '/deleted');
    delivering.receiver.configure('/deleted', { behaviour: { statuses: [500] } });
    const paid = await paidTransaction(gateway, key);
    await eventually(() => delivering.receiver.on('/deleted').length === 1);
    await deleteWebhook(gateway.ctx, gateway.operator, webhook.webhook.id);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(gateway, paid.id);
      return rows[0]?.status === 'dropped' ? rows : null;
    });
    expect(delivery!.attempts.at(-1)).toMatchObject({ statusCode: null, error: 'the webhook was deleted' });
    expect(delivering.receiver.on('/deleted')).toHaveLength(1);
  });

  it('purges finished deliveries past the retention with their attempts, never pending ones (runs last)', async () => {
    const { key } = await merchantWithWebhook(gateway, delivering.receiver, '/kept-pending');
    delivering.receiver.configure('/kept-pending', { behaviour: { statuses: [500] } });
    const paid = await paidTransaction(gateway, key);
    await eventually(async () => (await deliveriesOf(gateway, paid.id))[0]?.attempts.length === 1);
    const finished = await gateway.ctx.db.webhookDelivery.count({ where: { status: { not: 'pending' } } });
    expect(finished).toBeGreaterThan(0);
    expect(await purgeOldDeliveries(gateway.ctx)).toBe(0); // nothing is 30 days old
    expect(await purgeOldDeliveries(gateway.ctx, 0)).toBe(finished);
    expect(await gateway.ctx.db.webhookDelivery.count({ where: { status: { not: 'pending' } } })).toBe(0);
    expect(await gateway.ctx.db.webhookDelivery.count({ where: { transactionId: paid.id } })).toBe(1);
    expect(await gateway.ctx.db.webhookAttempt.count({ where: { delivery: { transactionId: { not: paid.id } } } })).toBe(0);
  });
});
