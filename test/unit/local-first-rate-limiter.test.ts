/**
 * localFirstRateLimiter's rules, over a counting limiter whose answers the test releases: a hit far
 * from the limit goes on without waiting (its count still reaches the inner limiter), a hit near the
 * limit or without a recent answer waits, and a failure makes the next hit ask.
 */
import { describe, expect, it } from 'vitest';
import type { RateLimitDecision } from '../../src/domain/ports.js';
import { BATCH_MS, localFirstRateLimiter, type RecordingRateLimiter } from '../../src/infra/redis/localFirstRateLimiter.js';

/**
 * A sliding-log stand-in that counts every hit in arrival order and answers when told: `hit`
 * decides one hit, `record` counts a batch of hits let through already (as the Redis scripts do).
 */
function heldCounter(limit: number) {
  let count = 0;
  const waiting: (() => void)[] = [];
  let failNext = false;
  const held = (decide: () => boolean) =>
    new Promise<RateLimitDecision>((resolve, reject) => {
      const failing = failNext;
      failNext = false;
      const allowed = !failing && decide();
      const remaining = limit - count;
      waiting.push(() =>
        failing ? reject(new Error('redis down')) : resolve({ allowed, limit, remaining, retryAfterMs: allowed ? 0 : 1_000, resetMs: 60_000 }),
      );
    });
  const inner: RecordingRateLimiter = {
    hit: () =>
      held(() => {
        if (count >= limit) return false;
        count += 1;
        return true;
      }),
    record: (_key, hits) =>
      held(() => {
        count += hits;
        return true;
      }),
  };
  /** Lets the limiter send its batches (every BATCH_MS). */
  const batchesSent = () => new Promise((resolve) => setTimeout(resolve, BATCH_MS * 3));
  return {
    inner,
    counted: () => count,
    sent: () => waiting.length,
    batchesSent,
    answerFirst: async () => {
      waiting.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
    /** Sends the batches, then answers every call. */
    answerAll: async () => {
      await batchesSent();
      for (const answer of waiting.splice(0)) answer();
      await new Promise((resolve) => setImmediate(resolve));
    },
    failNext: () => (failNext = true),
  };
}

/** Whether `promise` settled within a turn of the event loop (without the inner limiter answering). */
async function settledAtOnce<T>(promise: Promise<T>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('localFirstRateLimiter', () => {
  it('waits for the first answer, then goes on at once while far from the limit, every hit still counted', async () => {
    const counter = heldCounter(100);
    const limiter = localFirstRateLimiter(counter.inner);
    const first = limiter.hit('k');
    expect(await settledAtOnce(first)).toBe(false);
    await counter.answerAll();
    expect(await first).toMatchObject({ allowed: true, remaining: 99 });

    const second = limiter.hit('k');
    expect(await settledAtOnce(second)).toBe(true);
    expect(await second).toMatchObject({ allowed: true, remaining: 98 });
    expect(counter.sent()).toBe(0); // in the key's batch
    await counter.batchesSent();
    expect(counter.sent()).toBe(1); // its hit is on its way to the inner limiter
    await counter.answerAll();
    expect(counter.counted()).toBe(2);
  });

  it('sends the hits that did not wait in one call per key and batch', async () => {
    const counter = heldCounter(100);
    const limiter = localFirstRateLimiter(counter.inner);
    const first = limiter.hit('k');
    await counter.answerAll();
    await first;
    const goneOn = await Promise.all(Array.from({ length: 10 }, () => limiter.hit('k')));
    expect(goneOn.map((decision) => decision.remaining)).toEqual([98, 97, 96, 95, 94, 93, 92, 91, 90, 89]);
    await counter.batchesSent();
    expect(counter.sent()).toBe(1);
    await counter.answerAll();
    expect(counter.counted()).toBe(11);
    // The answer taught it what is left: the next one goes on, knowing 89.
    expect(await limiter.hit('k')).toMatchObject({ allowed: true, remaining: 88 });
  });

  it('sends the batch before a hit that waits, so the inner limiter counts them first', async () => {
    const counter = heldCounter(20);
    const limiter = localFirstRateLimiter(counter.inner);
    const first = limiter.hit('k');
    await counter.answerAll();
    await first;
    // 19 left, margin 2: 17 go on (batched), then one must wait; the batch goes out before it.
    const goneOn = Array.from({ length: 17 }, () => limiter.hit('k'));
    expect((await Promise.all(goneOn.map(settledAtOnce))).every(Boolean)).toBe(true);
    const waits = limiter.hit('k');
    expect(await settledAtOnce(waits)).toBe(false);
    expect(counter.sent()).toBe(2); // the batch, then the waiting hit
    expect(counter.counted()).toBe(19);
    await counter.answerAll();
    expect(await waits).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('waits again near the limit, so the inner limiter decides every refusal: never more than the limit', async () => {
    const counter = heldCounter(20);
    const limiter = localFirstRateLimiter(counter.inner);
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 30; i++) {
      const hit = limiter.hit('k');
      if (!(await settledAtOnce(hit))) await counter.answerAll();
      decisions.push(await hit);
      if (i % 3 === 0) await counter.answerAll(); // answers arrive late and in bursts
    }
    await counter.answerAll();
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
    expect(counter.counted()).toBe(20);
    expect(decisions.at(-1)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('counts hits still on their way: many at once from far away stop going on once the margin is reached', async () => {
    const counter = heldCounter(20);
    const limiter = localFirstRateLimiter(counter.inner);
    const first = limiter.hit('k');
    await counter.answerAll();
    await first;
    // 19 left, margin 2: a hit goes on at once while 19 minus the hits on their way stays above 2,
    // so 17 do; the others wait for the inner limiter.
    const burst = Array.from({ length: 25 }, () => limiter.hit('k'));
    const atOnce = await Promise.all(burst.map(settledAtOnce));
    expect(atOnce.filter(Boolean)).toHaveLength(17);
    await counter.answerAll();
    const decisions = await Promise.all(burst);
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(19);
    expect(counter.counted()).toBe(20);
  });

  it('counts the hits that wait as on their way too: one answer among many waiting does not open the gate', async () => {
    const counter = heldCounter(20);
    const limiter = localFirstRateLimiter(counter.inner);
    // 15 requests with nothing known: all wait, all on their way.
    const waiting = Array.from({ length: 15 }, () => limiter.hit('k'));
    expect((await Promise.all(waiting.map(settledAtOnce))).some(Boolean)).toBe(false);
    // The first answer says 19 left, but 14 more are on their way: 19 - 14 - margin 2 lets 3 go on.
    await counter.answerFirst();
    const next = Array.from({ length: 10 }, () => limiter.hit('k'));
    expect((await Promise.all(next.map(settledAtOnce))).filter(Boolean)).toHaveLength(3);
    await counter.answerAll();
    const decisions = [...(await Promise.all(waiting)), ...(await Promise.all(next))];
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
    expect(counter.counted()).toBe(20);
  });

  it('after the inner limiter could not be asked, the next hit asks it (and its failure reaches the caller)', async () => {
    const counter = heldCounter(100);
    const limiter = localFirstRateLimiter(counter.inner);
    const first = limiter.hit('k');
    await counter.answerAll();
    await first;
    counter.failNext();
    expect(await settledAtOnce(limiter.hit('k'))).toBe(true); // went on; its count fails
    await counter.answerAll();
    counter.failNext();
    const asked = limiter.hit('k');
    expect(await settledAtOnce(asked)).toBe(false);
    await counter.answerAll();
    await expect(asked).rejects.toThrow('redis down');
  });

  it('keeps keys apart', async () => {
    const counter = heldCounter(100);
    const limiter = localFirstRateLimiter(counter.inner);
    const a = limiter.hit('a');
    await counter.answerAll();
    await a;
    expect(await settledAtOnce(limiter.hit('b'))).toBe(false);
  });
});
