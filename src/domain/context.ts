/**
 * What every operation receives: its dependencies (ports) and settings. Adapters build it once;
 * operations never construct clients themselves.
 *
 * Below every capability: it names none of them. A capability that keeps facts in memory adds its
 * cache to GatewayContext itself (TypeScript's module augmentation, next to the cache's class):
 * `callers` (access/callerCache.ts) and `switches` (organizations/switches.ts).
 */
import type { Clock, Coordination, Db, Logger, PaymentProvider } from './ports.js';

export type { Clock, Db, DbTransaction } from './ports.js';

export const systemClock: Clock = { now: () => new Date() };

/** Where a read that may lag goes: the replica when there is one, else the primary. */
export const laggingReads = (ctx: Pick<GatewayContext, 'db' | 'replica'>): Db => ctx.replica ?? ctx.db;

export interface GatewaySettings {
  /** Base address of the checkout origin, put into checkout_url and default redirect pages. */
  checkoutPublicUrl: string;
  /**
   * Base address of the API origin (PUBLIC_URL): dashboard invitation links, the Origin a
   * dashboard request must come from, and whether session cookies are Secure (https).
   */
  publicUrl?: string;
  /**
   * How long the "one payout per organisation" lease lives past its last renewal (default 5 s;
   * its holder renews it four times per life while its request runs). Tests shorten it.
   */
  payoutLockTtlMs?: number;
  /** How long a request waits for the wallet provider (default PROVIDER_TIMEOUT_MS, 30 s); tests shorten it. */
  providerTimeoutMs?: number;
  /**
   * How old an open provider call must be before the reconciler first asks about it, and the first
   * pause before asking again (default RECONCILE_AFTER_MS, 60 s; providerFlow.ts). Tests shorten it.
   */
  reconcileAfterMs?: number;
  /** How often the reconcilers run (default 30 s; background.ts). */
  reconcileIntervalMs?: number;
  /** Webhook delivery rules and the key webhook secrets are stored under (defaults: webhooks/settings.ts). */
  webhooks?: WebhookSettings;
  /**
   * false: the API's per-IP limit is left to a proxy in front (RATE_LIMIT_ENABLED=false); sign-in
   * throttling is never off. Default on.
   */
  apiRateLimit?: boolean;
  /**
   * argon2id's cost for dashboard passwords (default users/passwords.ts's OWASP minimum; no variable sets it).
   * The in-process test gateways lower it, as Rails' has_secure_password drops bcrypt to its minimum
   * cost in tests: ~150 sign-ins a run, 20 ms of CPU each at OWASP's cost.
   */
  passwordHashCost?: PasswordHashCost;
}

/** argon2id's memory (KiB) and passes (users/passwords.ts). */
export interface PasswordHashCost {
  memoryCost: number;
  timeCost: number;
}

/**
 * Delivery rules (docs/configuration.md's WEBHOOK_* variables) and the server key that encrypts webhook
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
  /** The 32-byte AES-256-GCM key webhook secrets are stored under (see webhooks/secrets.ts). */
  secretKey: Buffer;
  /**
   * How long past its longest wait and run an instance's claim on a delivery lasts before another
   * instance may send it (WEBHOOK_CLAIM_MARGIN_MS, default 60 s): only an instance that died, or
   * froze that long, loses its claims. Tests shorten it.
   */
  claimMarginMs?: number;
  /**
   * How often the outbox sweep looks for retries overdue by more than this, and schedules them
   * again (WEBHOOK_SWEEP_MS, default 10 s): the longest an event waits after a dead instance's claim
   * runs out or Redis lost its schedule. Tests shorten it.
   */
  sweepEveryMs?: number;
}

export interface GatewayContext {
  /** The primary: every write, and every read that decides money or must see the latest state. */
  db: Db;
  /**
   * Reads that may lag the primary by a little (analytics, exports, list pages): a streaming read
   * replica when DATABASE_REPLICA_URL names one, else absent (then `laggingReads` is the primary).
   */
  replica?: Db;
  clock: Clock;
  coordination: Coordination;
  settings: GatewaySettings;
  log: Logger;
  /** The wallet providers (the sandbox here; real ones behind the same interface). */
  provider: PaymentProvider;
}
