/**
 * Replaces a webhook's secret; the new one is returned here and never again. Deliveries signed
 * from now on (retries of older events included) use the new secret.
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { findWebhook } from './endpoints.js';
import type { IssuedWebhook } from './createWebhook.js';
import { webhookScope } from './access.js';
import { encryptWebhookSecret, generateWebhookSecret } from './secrets.js';
import { webhookSettingsOf } from './settings.js';
import { replaceWebhookSecret } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export async function rotateWebhookSecret(ctx: GatewayContext, caller: Caller, webhookId: string): Promise<IssuedWebhook> {
  const organizationId = webhookScope(caller, 'rotateWebhookSecret');
  const existing = await findWebhook(ctx.db, organizationId, webhookId);
  const secret = generateWebhookSecret();
  const webhook = await ctx.db.$transaction(async (tx) => {
    const rotated = await replaceWebhookSecret(tx, existing.id, encryptWebhookSecret(webhookSettingsOf(ctx).secretKey, existing.id, secret));
    await recordAuditEvent(tx, {
      organizationId: existing.organizationId,
      actor: caller,
      action: 'webhook.secret_rotated',
      target: existing.id,
      details: { url: existing.url },
    });
    return rotated;
  });
  return { webhook, secret };
}
