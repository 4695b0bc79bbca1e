/**
 * Deletes a webhook: nothing more is sent to it (its pending deliveries are dropped when their
 * turn comes), while its row and delivery log stay readable.
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { WEBHOOK_FIELDS, webhookScope, type WebhookRecord } from './access.js';
import { findWebhook } from './endpoints.js';

export async function deleteWebhook(ctx: GatewayContext, caller: Caller, webhookId: string): Promise<WebhookRecord> {
  const organizationId = webhookScope(caller, 'deleteWebhook');
  const existing = await findWebhook(ctx.db, organizationId, webhookId);
  return ctx.db.webhook.update({ where: { id: existing.id }, data: { isActive: false }, select: WEBHOOK_FIELDS });
}
