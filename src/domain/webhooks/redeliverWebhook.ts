/**
 * Sends a delivery again (an operator or the merchant asks, e.g. after fixing their receiver):
 * a new delivery of the same event (same body, same X-Event-Id, so receivers de-duplicate it)
 * with a full round of attempts, signed with the endpoint's current secret. The original and its
 * attempts stay in the log; the new one names the event's first delivery in `redeliveryOf`.
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { webhookScope } from './access.js';
import { insertRedelivery, readDeliveryWithWebhook, type DeliveryRecord } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export async function redeliverWebhook(ctx: GatewayContext, caller: Caller, deliveryId: string): Promise<DeliveryRecord> {
  const organizationId = webhookScope(caller, 'redeliverWebhook');
  const original = isUuid(deliveryId) ? await readDeliveryWithWebhook(ctx.db, deliveryId) : null;
  if (!original || (organizationId && original.webhook.organizationId !== organizationId)) throw new DomainError('webhook_delivery_not_found');
  if (!original.webhook.isActive) throw new DomainError('webhook_not_found');
  return ctx.db.$transaction(async (tx) => {
    const redelivery = await insertRedelivery(tx, original, ctx.clock.now());
    const details = { webhookId: original.webhookId, deliveryId: redelivery.id, event: original.event };
    await recordAuditEvent(tx, { organizationId: original.webhook.organizationId, actor: caller, action: 'webhook.redelivered', target: original.id, details });
    return redelivery;
  });
}
