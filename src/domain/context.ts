/**
 * What every operation receives: its dependencies (ports) and settings. Adapters build it once;
 * operations never construct clients themselves.
 */
import type { CallerCache } from './access/callerCache.js';
import type { Clock, Coordination, Db, Logger, PaymentProvider } from './ports.js';
import type { SwitchCache } from './organizations/switches.js';
import type { WebhookSettings } from './webhooks/settings.js';

export type { Clock, Db, DbTransaction, Logger } from './ports.js';

export const systemClock: Clock = { now: () => new Date() };

export interface GatewaySettings {
  /** Base address of the checkout origin, put into checkout_url and default redirect pages. */
  checkoutPublicUrl: string;
  /**
   * How long the "one payout per organisation" lock lives (default PAYOUT_LOCK_TTL_MS, past the
   * provider call's timeout). Tests shorten it to prove the money rules hold without the lock.
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
  /** Webhook delivery rules and the key webhook secrets are stored under (see webhooks/settings.ts). */
  webhooks?: WebhookSettings;
}

export interface GatewayContext {
  db: Db;
  clock: Clock;
  coordination: Coordination;
  settings: GatewaySettings;
  log: Logger;
  /** The wallet providers (the sandbox here; real ones behind the same interface). */
  provider: PaymentProvider;
  /** Authenticated API keys kept briefly (see callerCache.ts); absent = every request reads the database. */
  callers?: CallerCache;
  /** The kill switches kept briefly (see switches.ts); absent = every creation reads them. */
  switches?: SwitchCache;
}
