/**
 * The merchant's webhook tools over GraphQL, against a real receiver: a signed `test` event sent
 * through the outbox and the dispatcher, the delivery log as a connection (each attempt's time,
 * status code, duration and signature; the exact body sent) filtered by webhook, status and time,
 * resending one delivery or every failed one since a time, and the audit entries written with each
 * change. Another organisation's webhooks answer 404; a key without the management scope is refused.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectGraphqlError } from '../../support/assertions.js';
import {
  MerchantCreateWebhookDocument as CREATE,
  MerchantDeliveryLogDocument as LOG,
  MerchantRedeliverFailedWebhooksDocument as REDELIVER_FAILED,
  MerchantRedeliverWebhookDocument as REDELIVER,
  MerchantSendTestWebhookDocument as SEND_TEST,
  type WebhookDeliveryFilter,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped as graphqlData, graphqlTyped } from '../../support/graphql/typed.js';
import { useGateway } from '../../support/gateway.js';
import { eventually } from '../../support/webhookReceiver.js';
import { useDispatching } from '../../support/webhooks.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 30, maxRetries: 1, timeoutMs: 1_000 } });
const delivering = useDispatching(gateway);

const sign = (secret: string, body: string) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');

/** A merchant with a management key and one webhook on `path` (created with that key: its secret known to the receiver). */
async function merchantWithEndpoint(path: string, version: 'v1' | 'v2' = 'v2') {
  const { organization, key } = await gateway.merchant({ scope: 'management' });
  const { createWebhook } = await graphqlData(gateway, CREATE, { url: `${delivering.receiver.url}${path}`, version }, key);
  delivering.receiver.configure(path, { secret: createWebhook.secret });
  return { organization, key, webhookId: createWebhook.webhook.id as string, secret: createWebhook.secret as string };
}

async function logOf(key: string, filter: WebhookDeliveryFilter, first = 20) {
  const { webhookDeliveries } = await graphqlData(gateway, LOG, { filter, first }, key);
  return { ...webhookDeliveries, nodes: webhookDeliveries.edges.map((edge) => edge.node) };
}

/** The organisation's webhook audit entries, oldest first (the fixture's key issue is audited too, and left out). */
const auditOf = (organizationId: string) =>
  gateway.ctx.db.auditEvent.findMany({ where: { organizationId, action: { startsWith: 'webhook.' } }, orderBy: { at: 'asc' } });

describe('the merchant’s webhook delivery log', () => {
  it('sends a signed test event through the outbox; the log shows its attempt (status, duration, signature) and the exact body received', async () => {
    const { organization, key, webhookId, secret } = await merchantWithEndpoint('/test-event');
    const { sendTestWebhook } = await graphqlData(gateway, SEND_TEST, { id: webhookId }, key);
    expect(sendTestWebhook).toMatchObject({ webhookId, event: 'test', status: 'pending', attempts: [] });

    const [received] = await eventually(() => delivering.receiver.on('/test-event').length === 1 && delivering.receiver.on('/test-event'));
    expect(received!.signatureValid).toBe(true);
    expect(received!.headers['x-event-type']).toBe('test');
    expect(received!.headers['x-event-id']).toBe(sendTestWebhook.eventId);
    // The endpoint version's payment_status shape, unmistakably a test: no real order, nothing paid.
    const body = JSON.parse(received!.raw.toString('utf8'));
    expect(body).toMatchObject({ transaction_status: 'pending', amount: 0, fees: 0, currency: 'XOF', selected_payment_method: '', paid_at: null });
    expect(body.products).toEqual([{ name: 'Test event', price: 0, quantity: 1, description: 'Sent to check this endpoint: not a payment' }]);
    expect(await gateway.ctx.db.transaction.findUnique({ where: { id: body.order_id } })).toBeNull();

    const log = await eventually(async () => {
      const { nodes } = await logOf(key, { webhookId });
      return nodes[0]?.status === 'delivered' ? nodes : null;
    });
    expect(log).toHaveLength(1);
    const delivery = log[0]!;
    expect(delivery).toMatchObject({ id: sendTestWebhook.id, event: 'test', attemptCount: 1 });
    expect(delivery.body).toBe(received!.raw.toString('utf8'));
    expect(delivery.attempts).toHaveLength(1);
    const attempt = delivery.attempts[0]!;
    expect(attempt).toMatchObject({ number: 1, statusCode: 200, error: null, response: 'status 200' });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(attempt.durationMs).toBeLessThan(1_000);
    expect(new Date(attempt.createdAt).getTime()).toBeGreaterThanOrEqual(new Date(delivery.createdAt).getTime());
    // The signature shown is the header sent, and the HMAC of the body shown under the secret.
    expect(attempt.signature).toBe(received!.headers['x-signature']);
    expect(attempt.signature).toBe(sign(secret, delivery.body));

    const audit = await auditOf(organization.id);
    expect(audit.map((event) => event.action)).toEqual(['webhook.created', 'webhook.test_sent']);
    expect(audit[1]).toMatchObject({ actorKind: 'merchant', actorLabel: 'API key (management)', target: webhookId });
  });

  it('a v1 endpoint’s test event has the legacy body’s six fields', async () => {
    const { key, webhookId } = await merchantWithEndpoint('/test-event-v1', 'v1');
    await graphqlData(gateway, SEND_TEST, { id: webhookId }, key);
    const [received] = await eventually(() => delivering.receiver.on('/test-event-v1').length === 1 && delivering.receiver.on('/test-event-v1'));
    expect(received!.signatureValid).toBe(true);
    expect(Object.keys(JSON.parse(received!.raw.toString('utf8')))).toEqual([
      'order_id',
      'amount',
      'currency',
      'created_at',
      'transaction_status',
      'payment_method',
    ]);
  });

  it('filters the log by status and time and pages it by cursor; resends one failed delivery, then every failed one since a time', async () => {
    const { organization, key, webhookId } = await merchantWithEndpoint('/flaky');
    // Every attempt fails (1 + 1 retry): the deliveries are dropped.
    delivering.receiver.configure('/flaky', { behaviour: { statuses: [503] } });
    const before = new Date(Date.now() - 1_000).toISOString();
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push((await graphqlData(gateway, SEND_TEST, { id: webhookId }, key)).sendTestWebhook.id);
    const dropped = await eventually(async () => {
      // The page and its count are two reads: the last delivery may be dropped between them, so
      // wait until both see all three.
      const { nodes, totalCount } = await logOf(key, { webhookId, status: 'dropped' });
      return totalCount === 3 && nodes.length === 3 ? nodes : null;
    });
    expect(new Set(dropped.map((delivery) => delivery.id))).toEqual(new Set(sent));
    for (const delivery of dropped) {
      expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 503]);
      expect(delivery.attempts.every((attempt) => /^[0-9a-f]{64}$/.test(attempt.signature ?? ''))).toBe(true);
    }
    expect((await logOf(key, { webhookId, status: 'delivered' })).totalCount).toBe(0);
    expect((await logOf(key, { webhookId, since: new Date(Date.now() + 60_000).toISOString() })).totalCount).toBe(0);

    // Two pages of the three, by cursor, newest first.
    const first = await graphqlData(gateway, LOG, { filter: { webhookId }, first: 2 }, key);
    expect(first.webhookDeliveries.pageInfo.hasNextPage).toBe(true);
    const second = await graphqlData(gateway, LOG, { filter: { webhookId }, first: 2, after: first.webhookDeliveries.pageInfo.endCursor }, key);
    const paged = [...first.webhookDeliveries.edges, ...second.webhookDeliveries.edges].map((edge) => edge.node.id);
    expect(paged).toEqual(dropped.map((delivery) => delivery.id));
    expect(second.webhookDeliveries.pageInfo.hasNextPage).toBe(false);

    // The receiver recovers. One resent by hand...
    delivering.receiver.configure('/flaky', { behaviour: { statuses: [200] } });
    const { redeliverWebhook } = await graphqlData(gateway, REDELIVER, { id: dropped[0]!.id }, key);
    expect(redeliverWebhook).toMatchObject({ redeliveryOf: dropped[0]!.id, eventId: dropped[0]!.eventId, status: 'pending' });
    await eventually(async () => (await logOf(key, { webhookId, status: 'delivered' })).totalCount === 1);

    // ...then every failed one since `before`: the two left (the one resent already has a delivered delivery).
    const { redeliverFailedWebhooks } = await graphqlData(gateway, REDELIVER_FAILED, { since: before, webhookId }, key);
    expect(redeliverFailedWebhooks).toBe(2);
    const delivered = await eventually(async () => {
      const { nodes, totalCount } = await logOf(key, { webhookId, status: 'delivered' });
      return totalCount === 3 && nodes.length === 3 ? nodes : null;
    });
    expect(new Set(delivered.map((delivery) => delivery.redeliveryOf))).toEqual(new Set(sent));
    // Nothing failed is left to resend: a second call queues none.
    expect((await graphqlData(gateway, REDELIVER_FAILED, { since: before }, key)).redeliverFailedWebhooks).toBe(0);
    // The receiver got each event once more, signed, with its original event id.
    const received = delivering.receiver.on('/flaky').filter((request) => request.signatureValid);
    expect(new Set(received.map((request) => request.headers['x-event-id']))).toEqual(new Set(dropped.map((delivery) => delivery.eventId)));

    const audit = await auditOf(organization.id);
    expect(audit.map((event) => event.action)).toEqual([
      'webhook.created',
      'webhook.test_sent',
      'webhook.test_sent',
      'webhook.test_sent',
      'webhook.redelivered',
      'webhook.redelivered',
    ]);
    expect(audit[4]).toMatchObject({ target: dropped[0]!.id });
    expect(audit[5]).toMatchObject({ target: webhookId, details: { count: 2, since: new Date(before).toISOString(), webhookId } });
  });

  it('another organisation’s webhooks and deliveries answer 404; its log is not shown; a key without management is refused', async () => {
    const owner = await merchantWithEndpoint('/private');
    const { sendTestWebhook } = await graphqlData(gateway, SEND_TEST, { id: owner.webhookId }, owner.key);
    const other = await gateway.merchant({ scope: 'management' });
    expectGraphqlError(await graphqlTyped(gateway, SEND_TEST, { id: owner.webhookId }, other.key), 'webhook_not_found');
    expectGraphqlError(await graphqlTyped(gateway, REDELIVER, { id: sendTestWebhook.id }, other.key), 'webhook_delivery_not_found');
    expectGraphqlError(
      await graphqlTyped(gateway, REDELIVER_FAILED, { since: '2020-01-01T00:00:00Z', webhookId: owner.webhookId }, other.key),
      'webhook_not_found',
    );
    expect((await logOf(other.key, { webhookId: owner.webhookId })).totalCount).toBe(0);
    expect((await logOf(other.key, {})).totalCount).toBe(0);

    const checkout = await gateway.merchant({ scope: 'checkout' });
    expectGraphqlError(await graphqlTyped(gateway, SEND_TEST, { id: owner.webhookId }, checkout.key), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, LOG, { filter: {} }, checkout.key), 'permission_denied');
    // Nothing was written for the refused calls.
    expect((await auditOf(other.organization.id)).length).toBe(0);
    expect((await auditOf(checkout.organization.id)).length).toBe(0);
  });

  it('refuses a bad status filter with a clear 4xx', async () => {
    const { key } = await merchantWithEndpoint('/bad-filter');
    const answer = await graphqlTyped(gateway, LOG, { filter: { status: 'failed' as never } }, key);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body.errors?.length).toBeGreaterThan(0);
  });
});
