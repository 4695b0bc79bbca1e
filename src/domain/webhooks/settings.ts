/**
 * Delivery rules (DESIGN.md's WEBHOOK_* variables) and the server key that encrypts webhook
 * secrets. The composition root (main.ts, or a test gateway) puts them in ctx.settings.webhooks.
 */
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
  /**
   * How long past its longest wait and run an instance's claim on a delivery lasts before another
   * instance may send it (WEBHOOK_CLAIM_MARGIN_MS, default 60 s): only an instance that died, or
   * froze that long, loses its claims. Tests shorten it.
   */
  claimMarginMs?: number;
}

export const DEFAULT_WEBHOOK_RULES = { timeoutMs: 5_000, retryDelayMs: 300_000, maxRetries: 3, allowPrivateUrls: false } as const;

/** Takes any holder of settings (a GatewayContext): typed structurally, as the context's own module imports this one. */
export function webhookSettingsOf(ctx: { settings: { webhooks?: WebhookSettings } }): WebhookSettings {
  const settings = ctx.settings.webhooks;
  // A composition mistake, not a user's: every real start sets them.
  if (!settings) throw new Error('webhook settings are missing from the gateway context (ctx.settings.webhooks)');
  return settings;
}
