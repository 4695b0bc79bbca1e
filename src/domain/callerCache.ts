/**
 * Authentication without a database round trip on every request: API keys resolved to their
 * caller (key + organisation) are kept briefly in memory.
 *
 * Correctness: revoking a key or changing an organisation publishes an invalidation on the
 * coordination bus, which drops the entries in this process at once and in every other instance
 * through Redis pub/sub. A lookup that started before an invalidation is not cached (the
 * generation check), so a revocation racing a cache fill cannot be undone by it. If the bus is
 * down, an entry lives at most TTL_MS: the bound on how stale another instance can be.
 */
import type { MerchantCaller } from './auth.js';
import { INVALIDATE_ALL, type InvalidationBus } from './ports.js';

/** How long another instance may serve a revoked key if its invalidation is lost (Redis down). */
export const CALLER_CACHE_TTL_MS = 30_000;
/** Keys in memory at once: far above one deployment's merchants' keys, bounded against key scans. */
export const CALLER_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  caller: MerchantCaller;
  expiresAt: number;
}

export const invalidationOfKey = (apiKeyId: string): string => `apiKey:${apiKeyId}`;
export const invalidationOfOrganization = (organizationId: string): string => `organization:${organizationId}`;

export class CallerCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;

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

  get(keyDigest: string): MerchantCaller | undefined {
    const entry = this.entries.get(keyDigest);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(keyDigest);
      return undefined;
    }
    return entry.caller;
  }

  set(keyDigest: string, caller: MerchantCaller, stamp: number): void {
    if (stamp !== this.generation) return;
    if (this.entries.size >= CALLER_CACHE_MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyDigest, { caller, expiresAt: this.now() + CALLER_CACHE_TTL_MS });
  }

  /** Drops what a change made stale, here and (through the bus) in every other instance. */
  async invalidate(message: string): Promise<void> {
    this.drop(message);
    await this.bus.publish(message);
  }

  private drop(message: string): void {
    this.generation += 1;
    if (message === INVALIDATE_ALL) return this.entries.clear();
    for (const [digest, { caller }] of this.entries) {
      if (message === invalidationOfKey(caller.apiKeyId) || message === invalidationOfOrganization(caller.organization.id)) this.entries.delete(digest);
    }
  }
}
