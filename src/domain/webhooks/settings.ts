/**
 * Delivery rules (DESIGN.md's WEBHOOK_* variables) and the server key that encrypts webhook
 * secrets. The composition root (main.ts, or a test gateway) puts them in ctx.settings.webhooks.
 */
import type { GatewayContext } from '../context.js';

export interface WebhookSettings {
  /** A delivery succeeds when the receiver answers 2xx within this (WEBHOOK_TIMEOUT_MS, spec: 5 s). */
  timeoutMs: number;
  /** Delay between attempts (WEBHOOK_RETRY_DELAY_MS, spec: 5 minutes). */
  retryDelayMs: number;
  /** Attempts after the first one before the delivery is dropped (WEBHOOK_MAX_RETRIES, spec: 3). */
  maxRetries: number;
  /** Accept loopback / private / link-local targets (WEBHOOK_ALLOW_PRIVATE_URLS: development, tests). */
  allowPrivateUrls: boolean;
  /** The 32-byte AES-256-GCM key webhook secrets are stored under (see secrets.ts). */
  secretKey: Buffer;
}

export const DEFAULT_WEBHOOK_RULES = { timeoutMs: 5_000, retryDelayMs: 300_000, maxRetries: 3, allowPrivateUrls: false } as const;

export function webhookSettingsOf(ctx: Pick<GatewayContext, 'settings'>): WebhookSettings {
  const settings = ctx.settings.webhooks;
  // A composition mistake, not a user's: every real start sets them.
  if (!settings) throw new Error('webhook settings are missing from the gateway context (ctx.settings.webhooks)');
  return settings;
}
