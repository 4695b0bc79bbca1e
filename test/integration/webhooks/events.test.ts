/**
 * Event subscriptions (docs/webhooks.md#events): an endpoint subscribed to payout_status and
 * refund_status receives them, signed over the bytes sent, with X-Event-Type, bodies equal to the
 * REST reads plus `event`; an endpoint registered as before (payment_status only) receives nothing
 * new and the very same bytes as before for payments.
 */
import { describe, expect, it } from 'vitest';
import { createWebhook, rejectPayout } from '../../../src/domain/operations.js';
import { testEventBody } from '../../../src/domain/webhooks/bodies.js';

const paymentStatusBodyV2Keys = () => testEventBody('v2', new Date());
import { useGateway } from '../../support/gateway.js';
import { eventually } from '../../support/webhookReceiver.js';
import { fundedMerchant, PHONES, payoutBody, postPayout } from '../../support/payouts.js';
import { paidTransaction, refund } from '../../support/refunds.js';
import { useDispatching } from '../../support/webhooks.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 100, maxRetries: 2, timeoutMs: 1_000 } });
const delivering = useDispatching(gateway);

async function subscribe(organizationId: string, path: string, events?: string[]) {
  const issued = await createWebhook(gateway.ctx, gateway.operator, { organizationId, url: `${delivering.receiver.url}${path}`, events });
  delivering.receiver.configure(path, { secret: issued.secret });
  return issued;
}

const bodiesOn = (path: string) => delivering.receiver.on(path).map((request) => JSON.parse(request.raw.toString('utf8')));

describe('webhook event subscriptions', () => {
  it('registers the default payment_status, the chosen events, and refuses unknown or empty choices (GraphQL)', async () => {
    const { organization } = await fundedMerchant(gateway);
    const plain = await subscribe(organization.id, '/plain');
    expect(plain.webhook.events).toEqual(['payment_status']);
    const created = await gateway.graphql(
      `mutation($org: ID!, $url: String!) { createWebhook(organizationId: $org, url: $url, events: [refund_status, payout_status]) { webhook { events } } }`,
      { org: organization.id, url: `${delivering.receiver.url}/gql` },
      gateway.adminToken,
    );
    expect(created.body.data.createWebhook.webhook.events).toEqual(['payout_status', 'refund_status']);
    const empty = await gateway.graphql(
      `mutation($org: ID!, $url: String!) { createWebhook(organizationId: $org, url: $url, events: []) { webhook { id } } }`,
      { org: organization.id, url: `${delivering.receiver.url}/empty` },
      gateway.adminToken,
    );
    expect(empty.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    await expect(
      createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: `${delivering.receiver.url}/x`, events: ['payout'] }),
    ).rejects.toThrow(/unknown webhook event/);
  });

  it('sends payout_status and refund_status to a subscribed endpoint only; a payment_status endpoint gets the same payment bytes and nothing new', async () => {
    const { organization, key: payoutKey } = await fundedMerchant(gateway, { balance: 5_000_000, verified: true });
    const writeKey = await gateway.createKey(organization.id, 'readAndWrite');
    await subscribe(organization.id, '/legacy');
    await subscribe(organization.id, '/all', ['payment_status', 'payout_status', 'refund_status']);

    const sent = await postPayout(gateway, payoutKey, payoutBody({ amount: 10_000 }));
    expect(sent.status).toBe(200);
    const failed = await postPayout(gateway, payoutKey, payoutBody({ amount: 12_000, recipient: { phone: PHONES.fails } }));
    expect(failed.status).toBe(500);
    const review = await postPayout(gateway, payoutKey, payoutBody({ amount: 2_500_000 }));
    expect(review.body.payout_status).toBe('pending');
    await rejectPayout(gateway.ctx, gateway.operator, review.body.order_id, 'not this month');

    const orderId = await paidTransaction(gateway, writeKey, { price: 5_000 });
    const refunded = await refund(gateway, writeKey, orderId);
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);

    // payment_status (1) + payout_status (completed, failed, cancelled) + refund_status (1)
    const all = await eventually(() => (delivering.receiver.on('/all').length >= 5 ? delivering.receiver.on('/all') : null), 10_000, 'five events');
    for (const request of all) {
      expect(request.signatureValid).toBe(true);
      expect(request.headers['x-event-type']).toBe(JSON.parse(request.raw.toString('utf8')).event ?? 'payment_status');
    }
    const byType = (type: string) =>
      all.filter((request) => request.headers['x-event-type'] === type).map((request) => JSON.parse(request.raw.toString('utf8')));
    const payouts = byType('payout_status');
    expect(payouts.map((body) => body.payout_status).sort()).toEqual(['cancelled', 'completed', 'failed']);
    const completed = payouts.find((body) => body.payout_status === 'completed');
    const read = await gateway.rest('GET', `/api/v2/payouts/${completed.order_id}`, { key: payoutKey });
    expect(completed).toEqual({ ...read.body, event: 'payout_status' });
    expect(Object.keys(completed)).toEqual([...Object.keys(read.body), 'event']);

    const [refundBody] = byType('refund_status');
    const transaction = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key: writeKey });
    expect(refundBody).toEqual({ ...transaction.body, event: 'refund_status' });
    expect(refundBody.transaction_status).toBe('refunded');
    expect(byType('payment_status')).toHaveLength(1);

    // The legacy endpoint: the payment only, byte for byte as the builder of before makes it.
    await eventually(() => delivering.receiver.on('/legacy').length >= 1, 10_000, 'the legacy delivery');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const legacy = delivering.receiver.on('/legacy');
    expect(legacy).toHaveLength(1);
    expect(legacy[0]!.headers['x-event-type']).toBe('payment_status');
    const paidBody = bodiesOn('/all').find((body) => body.event === undefined);
    expect(legacy[0]!.raw.toString('utf8')).toBe(JSON.stringify(paidBody));
    // ...and exactly the spec's payment_status fields (the builder of before, unchanged).
    expect(Object.keys(paidBody)).toEqual(Object.keys(JSON.parse(paymentStatusBodyV2Keys())));
  });
});
