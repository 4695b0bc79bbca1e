/**
 * The authentication cache answers from memory only while its invalidation bus says this instance
 * is receiving; a revocation's publish is bounded in time, reported when it fails, and sent again
 * in the background until it goes through.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MerchantCaller } from '../../src/domain/access/auth.js';
import { CallerCache, invalidationOfKey, PUBLISH_TIMEOUT_MS } from '../../src/domain/access/callerCache.js';
import type { InvalidationBus } from '../../src/domain/ports.js';

const caller = { kind: 'merchant', apiKeyId: 'key-1', scope: 'read', organization: { id: 'org-1' } } as unknown as MerchantCaller;

function fakeBus(overrides: Partial<InvalidationBus> = {}) {
  const state = { receiving: true, published: [] as string[] };
  const bus: InvalidationBus = {
    publish: async (message) => void state.published.push(message),
    subscribe: () => undefined,
    receiving: () => state.receiving,
    ...overrides,
  };
  return { bus, state };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('CallerCache', () => {
  it('answers from memory only while the bus is receiving, and caches nothing while it is not', () => {
    const { bus, state } = fakeBus();
    const cache = new CallerCache(bus);
    cache.set('digest', caller, cache.stamp());
    expect(cache.get('digest')).toBe(caller);

    state.receiving = false;
    expect(cache.get('digest')).toBeUndefined();
    cache.set('other', caller, cache.stamp());
    state.receiving = true;
    expect(cache.get('other')).toBeUndefined();
  });

  it('is always trusted on a bus that does not report (one instance, in-process)', () => {
    const cache = new CallerCache({ publish: async () => undefined, subscribe: () => undefined });
    cache.set('digest', caller, cache.stamp());
    expect(cache.get('digest')).toBe(caller);
  });

  it('rejects an invalidation whose publish hangs after PUBLISH_TIMEOUT_MS, then publishes it again once the bus answers', async () => {
    vi.useFakeTimers();
    let busUp = false;
    const published: string[] = [];
    const { bus } = fakeBus({
      publish: (message) => (busUp ? Promise.resolve(void published.push(message)) : new Promise<void>(() => undefined)),
    });
    const cache = new CallerCache(bus);
    cache.set('digest', caller, cache.stamp());

    const outcome = cache.invalidate(invalidationOfKey('key-1')).then(
      () => 'confirmed',
      () => 'not confirmed',
    );
    expect(cache.get('digest')).toBeUndefined(); // dropped here at once
    await vi.advanceTimersByTimeAsync(PUBLISH_TIMEOUT_MS);
    expect(await outcome).toBe('not confirmed');

    busUp = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(published).toEqual([invalidationOfKey('key-1')]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(published).toHaveLength(1); // once through, not again
  });
});
