/**
 * Authentication without a database round trip on every request: API keys resolved to their
 * caller (key + organisation), and issued operator tokens resolved to theirs (token id + role),
 * are kept briefly in memory, by the digest of the secret presented.
 *
 * Correctness (the promise of a revocation: "it answers only once every instance will refuse the
 * key or token, or says that it could not confirm"):
 * - Revoking a key or an operator token, or changing an organisation, drops the entries here at
 *   once and publishes an invalidation on the coordination bus (Redis pub/sub), which drops them
 *   in every instance.
 * - An instance answers from this cache only while its bus says it is RECEIVING (Redis: its
 *   subscription answered a PING sent less than SUBSCRIPTION_TRUST_MS = 2 s ago; see
 *   infra/redis/coordination.ts). Otherwise every lookup reads the database. So an instance that
 *   cannot hear a revocation (Redis frozen or gone, a silent partition) stops trusting its entries
 *   within 2 s, and drops them all when it hears again (INVALIDATE_ALL).
 * - `invalidate` publishes within PUBLISH_TIMEOUT_MS and resolves true once Redis has sent the
 *   message to every live subscriber; then every instance refuses the key at once, or (one whose
 *   subscription died silently a moment ago) within the trust window. When the publish fails or
 *   times out it rejects (the revocation itself is committed): the caller answers "propagation not
 *   confirmed" (GraphQL `propagationConfirmed: false`). Instances cut off from Redis are already
 *   bypassing their caches; for an instance that still hears Redis while THIS one could not
 *   publish, the message is published again every second in the background until it goes through
 *   or CALLER_CACHE_TTL_MS has passed (entries expire by then anyway).
 * - A lookup that started before an invalidation is not cached (the generation check), so a
 *   revocation racing a cache fill cannot be undone by it.
 * The bootstrap GATEWAY_ADMIN_TOKEN is never an entry: it is compared with the setting, no read.
 */
import type { Caller, MerchantCaller, OperatorCaller } from './caller.js';
import type { GatewayContext } from '../context.js';
import { INVALIDATE_ALL, type InvalidationBus } from '../ports.js';

declare module '../context.js' {
  interface GatewayContext {
    /** Authenticated API keys and issued operator tokens kept briefly (this file); absent = every request reads the database. */
    callers?: CallerCache;
  }
}

/**
 * Longest life of an entry: the last bound on staleness, should an invalidation be lost although
 * this instance's subscription was live (it is not relied on for revocations: see above).
 */
const CALLER_CACHE_TTL_MS = 30_000;
/** How long a revocation waits for Redis to take its invalidation before answering "not confirmed". */
export const PUBLISH_TIMEOUT_MS = 1_000;
/** Pause between background re-publications of an invalidation that could not be published. */
const REPUBLISH_INTERVAL_MS = 1_000;
/** Keys and tokens in memory at once: far above one deployment's keys and operator tokens, bounded against key scans. */
const CALLER_CACHE_MAX_ENTRIES = 10_000;

/** What an entry holds: an API key's caller, or an issued operator token's (never the bootstrap token: tokenId null). */
export type CachedCaller = MerchantCaller | (OperatorCaller & { tokenId: string });

interface Entry {
  caller: CachedCaller;
  expiresAt: number;
}

export const invalidationOfKey = (apiKeyId: string): string => `apiKey:${apiKeyId}`;
export const invalidationOfOrganization = (organizationId: string): string => `organization:${organizationId}`;
/** An issued operator token was revoked: its cached caller is dropped, and what it holds open (a live stream) ends on it. */
export const invalidationOfOperatorToken = (tokenId: string): string => `operatorToken:${tokenId}`;
/**
 * A dashboard user's access changed (signed out, removed, given another role): nothing caches a
 * session (it is read each request), but what the user holds open (a live stream) ends on it.
 */
export const invalidationOfMerchantUser = (userId: string): string => `merchantUser:${userId}`;

export class CallerCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  /** Invalidations not yet published -> until when to keep trying. */
  private readonly unpublished = new Map<string, number>();
  private republisher: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: InvalidationBus,
    private readonly now: () => number = Date.now,
  ) {
    bus.subscribe((message) => this.drop(message));
  }

  /** A stamp to take before reading the database; `set` ignores a read older than an invalidation. */
  stamp(): number {
    return this.generation;
  }

  /** False while invalidations from other instances might not reach this one: read the database. */
  private trusted(): boolean {
    return this.bus.receiving?.() ?? true;
  }

  get(keyDigest: string): CachedCaller | undefined {
    if (!this.trusted()) return undefined;
    const entry = this.entries.get(keyDigest);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(keyDigest);
      return undefined;
    }
    return entry.caller;
  }

  set(keyDigest: string, caller: CachedCaller, stamp: number): void {
    if (stamp !== this.generation || !this.trusted()) return;
    if (this.entries.size >= CALLER_CACHE_MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyDigest, { caller, expiresAt: this.now() + CALLER_CACHE_TTL_MS });
  }

  /**
   * Drops what a change made stale, here and (through the bus) in every other instance. Resolves
   * once the bus took the message; rejects when it could not within PUBLISH_TIMEOUT_MS (then the
   * message is published again in the background, see above).
   */
  async invalidate(message: string): Promise<void> {
    this.drop(message);
    try {
      await this.publishWithin(message, PUBLISH_TIMEOUT_MS);
    } catch (error) {
      this.republishLater(message);
      throw error;
    }
  }

  private async publishWithin(message: string, timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the invalidation was not published within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.bus.publish(message), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private republishLater(message: string): void {
    this.unpublished.set(message, this.now() + CALLER_CACHE_TTL_MS);
    if (this.republisher) return;
    this.republisher = setInterval(() => void this.republish(), REPUBLISH_INTERVAL_MS);
    this.republisher.unref();
  }

  private republishing = false;
  private async republish(): Promise<void> {
    if (this.republishing) return;
    this.republishing = true;
    try {
      for (const [message, until] of [...this.unpublished]) {
        if (until <= this.now()) {
          this.unpublished.delete(message);
          continue;
        }
        const published = await this.publishWithin(message, PUBLISH_TIMEOUT_MS).then(
          () => true,
          () => false,
        );
        if (published) this.unpublished.delete(message);
        else break; // the bus is still down: try the rest next time
      }
    } finally {
      this.republishing = false;
      if (this.unpublished.size === 0 && this.republisher) {
        clearInterval(this.republisher);
        this.republisher = undefined;
      }
    }
  }

  private drop(message: string): void {
    this.generation += 1;
    if (message === INVALIDATE_ALL) {
      this.entries.clear();
      return;
    }
    for (const [digest, { caller }] of this.entries) {
      if (invalidationsOf(caller).includes(message)) this.entries.delete(digest);
    }
  }
}

/**
 * The invalidation messages that make a caller stale: a cached one is dropped on them, and what a
 * caller holds open (a live stream) ends on them. The bootstrap token is never revoked: none.
 */
export function invalidationsOf(caller: Caller): string[] {
  switch (caller.kind) {
    case 'merchant':
      return [invalidationOfKey(caller.apiKeyId), invalidationOfOrganization(caller.organization.id)];
    case 'merchantUser':
      return [invalidationOfOrganization(caller.organization.id), invalidationOfMerchantUser(caller.userId)];
    case 'operator':
      return caller.tokenId ? [invalidationOfOperatorToken(caller.tokenId)] : [];
  }
}

/**
 * After a change to keys, operator tokens or organisations commits: cached callers built from the old state are
 * dropped here and, through the coordination bus, in every instance. Answers whether every
 * instance was told. A bus failure is logged, not thrown: the change is committed; the message is
 * sent again in the background, and an instance cut off from Redis stops trusting its cache within
 * 2 s (callerCache.ts), so it reads the change from the database.
 */
export async function invalidateCallers(ctx: GatewayContext, message: string, about: Record<string, unknown> = {}): Promise<boolean> {
  if (!ctx.callers) return true; // no cache: every request reads the database
  try {
    await ctx.callers.invalidate(message);
    return true;
  } catch (error) {
    ctx.log.warn(
      { err: error, ...about },
      'a change to keys or organisations is committed, but the other instances could not be told in time: those cut off from Redis read it from the database within 2 s; the message is sent again in the background',
    );
    return false;
  }
}
