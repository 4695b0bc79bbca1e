/**
 * Deletes a webhook: nothing more is sent to it (its pending deliveries are dropped when their
 * turn comes), while its row and delivery log stay readable.
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { webhookScope } from './access.js';
import { findWebhook } from './endpoints.js';
import { deactivateWebhook, type WebhookRecord } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export async function deleteWebhook(ctx: GatewayContext, caller: Caller, webhookId: string): Promise<WebhookRecord> {
  const organizationId = webhookScope(caller, 'deleteWebhook');
  const existing = await findWebhook(ctx.db, organizationId, webhookId);
  return ctx.db.$transaction(async (tx) => {
    const deleted = await deactivateWebhook(tx, existing.id);
    await recordAuditEvent(tx, {
      organizationId: existing.organizationId,
      actor: caller,
      action: 'webhook.deleted',
      target: existing.id,
      details: { url: existing.url },
    });
    return deleted;
  });
}
