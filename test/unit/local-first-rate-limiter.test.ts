/**
 * localFirstRateLimiter's rules, over a counting limiter whose answers the test releases: a hit far
 * from the limit goes on without waiting (its count still reaches the inner limiter), a hit near the
 * limit or without a recent answer waits, and a failure makes the next hit ask.
 */
import { describe, expect, it } from 'vitest';
import type { RateLimitDecision, RateLimiter } from '../../src/domain/ports.js';
import { localFirstRateLimiter } from '../../src/infra/redis/localFirstRateLimiter.js';

/** A sliding-log stand-in that counts every hit in arrival order and answers when told. */
function heldCounter(limit: number) {
  let count = 0;
  const waiting: (() => void)[] = [];
  let failNext = false;
  const inner: RateLimiter = {
    hit: () =>
      new Promise<RateLimitDecision>((resolve, reject) => {
        const failing = failNext;
        failNext = false;
        const allowed = !failing && count < limit;
        if (allowed) count += 1;
        const remaining = limit - count;
        waiting.push(() => (failing ? reject(new Error('redis down')) : resolve({ allowed, limit, remaining, retryAfterMs: allowed ? 0 : 1_000, resetMs: 60_000 })));
      }),
  };
  return {
    inner,
    counted: () => count,
    sent: () => waiting.length,
    answerFirst: async () => {
      waiting.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
    answerAll: async () => {
      for (const answer of waiting.splice(0)) answer();
      await new Promise((resolve) => setImmediate(resolve));
    },
    failNext: () => (failNext = true),
  };
}

/** Whether `promise` settled within a turn of the event loop (without the inner limiter answering). */
async function settledAtOnce<T>(promise: Promise<T>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true), () => (settled = true));
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
    expect(counter.sent()).toBe(1); // its hit is on its way to the inner limiter
    await counter.answerAll();
    expect(counter.counted()).toBe(2);
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
