/**
 * Webhook delivery rules as the gateway context carries them (their interface, WebhookSettings,
 * is in context.ts with the other settings).
 */
import type { GatewayContext, WebhookSettings } from '../context.js';

/** WEBHOOK_SWEEP_MS unset: the outbox sweep's pace (schedule.ts). */
export const DEFAULT_WEBHOOK_SWEEP_MS = 10_000;

export const DEFAULT_WEBHOOK_RULES = { timeoutMs: 5_000, retryDelayMs: 300_000, maxRetries: 3, allowPrivateUrls: false } as const;

export function webhookSettingsOf(ctx: Pick<GatewayContext, 'settings'>): WebhookSettings {
  const settings = ctx.settings.webhooks;
  // A composition mistake, not a user's: every real start sets them.
  if (!settings) throw new Error('webhook settings are missing from the gateway context (ctx.settings.webhooks)');
  return settings;
}
