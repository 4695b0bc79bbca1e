/**
 * Sends a signed `test` event to one endpoint, so a merchant can check its receiver (URL, TLS,
 * signature check) without a payment: an ordinary outbox row, sent, signed, retried and logged by
 * the dispatcher like any other delivery. Its body is marked as a test (bodies.ts: testEventBody).
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { webhookScope } from './access.js';
import { TEST_EVENT, testEventBody } from './bodies.js';
import { findWebhook } from './endpoints.js';
import { insertEventDelivery, type DeliveryRecord } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export async function sendTestWebhook(ctx: GatewayContext, caller: Caller, webhookId: string): Promise<DeliveryRecord> {
  const organizationId = webhookScope(caller, 'sendTestWebhook');
  const webhook = await findWebhook(ctx.db, organizationId, webhookId);
  const now = ctx.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const delivery = await insertEventDelivery(tx, { webhookId: webhook.id, event: TEST_EVENT, body: testEventBody(webhook.version, now) }, now);
    await recordAuditEvent(tx, {
      organizationId: webhook.organizationId,
      actor: caller,
      action: 'webhook.test_sent',
      target: webhook.id,
      details: { url: webhook.url, deliveryId: delivery.id },
    });
    return delivery;
  });
}
