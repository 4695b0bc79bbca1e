/**
 * The in-memory kill switches: one read fills them, an invalidation (here or from the bus) drops
 * them, a read that started before an invalidation is not kept, and they expire on their own.
 */
import { describe, expect, it } from 'vitest';
import { INVALIDATE_ALL, type InvalidationBus } from '../../src/domain/ports.js';
import { SWITCH_CACHE_TTL_MS, SWITCHES_CHANGED, SwitchCache } from '../../src/domain/organizations/switches.js';

function setup() {
  let now = 1_000_000;
  const listeners: ((message: string) => void)[] = [];
  const published: string[] = [];
  const bus: InvalidationBus = {
    publish: async (message) => void published.push(message),
    subscribe: (listener) => void listeners.push(listener),
  };
  const rows = new Map<string, boolean>();
  let reads = 0;
  let beforeAnswer: () => void = () => undefined;
  const db = {
    switch: {
      findMany: async () => {
        reads += 1;
        const answer = [...rows].map(([name, on]) => ({ name, on, updatedAt: new Date() }));
        beforeAnswer();
        return answer;
      },
    },
  } as never;
  const cache = new SwitchCache(bus, () => now);
  return {
    cache,
    db,
    rows,
    published,
    reads: () => reads,
    deliver: (message: string) => {
      listeners.forEach((listener) => {
        listener(message);
      });
    },
    advance: (ms: number) => {
      now += ms;
    },
    duringNextRead: (step: () => void) => {
      beforeAnswer = () => {
        beforeAnswer = () => undefined;
        step();
      };
    },
  };
}

describe('SwitchCache', () => {
  it('reads every switch once, missing rows being on, and serves them from memory', async () => {
    const t = setup();
    t.rows.set('wave', false);
    const states = await t.cache.read(t.db);
    expect(Object.fromEntries(states)).toEqual({ transactions: true, payouts: true, wave: false, orange_money: true });
    await t.cache.read(t.db);
    expect(t.reads()).toBe(1);
  });

  it('reads again after an invalidation here, which is also published to the other instances', async () => {
    const t = setup();
    await t.cache.read(t.db);
    t.rows.set('wave', false);
    await t.cache.invalidate();
    expect(t.published).toEqual([SWITCHES_CHANGED]);
    expect((await t.cache.read(t.db)).get('wave')).toBe(false);
    expect(t.reads()).toBe(2);
  });

  it('reads again after a message from another instance, or after a reconnect (INVALIDATE_ALL)', async () => {
    const t = setup();
    await t.cache.read(t.db);
    t.deliver(SWITCHES_CHANGED);
    await t.cache.read(t.db);
    t.deliver(INVALIDATE_ALL);
    await t.cache.read(t.db);
    t.deliver('apiKey:someone'); // not about switches
    await t.cache.read(t.db);
    expect(t.reads()).toBe(3);
  });

  it('does not keep a read that an invalidation overtook', async () => {
    const t = setup();
    t.duringNextRead(() => t.deliver(SWITCHES_CHANGED)); // the switch changes while the old state is on its way
    await t.cache.read(t.db);
    await t.cache.read(t.db);
    expect(t.reads()).toBe(2);
  });

  it('expires after SWITCH_CACHE_TTL_MS, bounding staleness when a message is lost', async () => {
    const t = setup();
    await t.cache.read(t.db);
    t.advance(SWITCH_CACHE_TTL_MS - 1);
    await t.cache.read(t.db);
    expect(t.reads()).toBe(1);
    t.advance(1);
    await t.cache.read(t.db);
    expect(t.reads()).toBe(2);
  });
});
