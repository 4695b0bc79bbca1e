/**
 * leasedRateLimiter's rules, over a stand-in for the Redis script (the same arithmetic: count what
 * is free first come first served, lease slots only while more than half the budget stays free)
 * whose answers the test releases: every hit let through was counted before, requests without a
 * slot wait together, a busy key spends leased slots without waiting, slots not spent are given
 * back, and a failure reaches the waiting callers.
 */
import { describe, expect, it } from 'vitest';
import type { RateLimitDecision } from '../../src/domain/ports.js';
import { LEASE_MS, leasedRateLimiter, type LeasingRateLimiter, type TakeAnswer } from '../../src/infra/redis/leasedRateLimiter.js';

function heldScript(limit: number) {
  const members = new Set<string>();
  const waiting: (() => void)[] = [];
  let failNext = false;
  let takes = 0;
  let base = 0;
  const inner: LeasingRateLimiter = {
    hit: () => Promise.reject(new Error('not used')),
    take: (_key, need, extra) =>
      new Promise<TakeAnswer>((resolve, reject) => {
        takes += 1;
        const failing = failNext;
        failNext = false;
        const name = `m${base++}`;
        let granted = 0;
        let extras = 0;
        if (!failing) {
          granted = Math.max(0, Math.min(need, limit - members.size));
          for (let i = 1; i <= granted; i++) members.add(`${name}:${i}`);
          extras = Math.max(0, Math.min(extra, limit - members.size - Math.floor(limit / 2) - 1));
          for (let i = 1; i <= extras; i++) members.add(`${name}:x${i}`);
        }
        const answer = { granted, extras, base: name, limit, remaining: limit - members.size, retryAfterMs: granted < need ? 1_000 : 0, resetMs: 60_000 };
        waiting.push(() => (failing ? reject(new Error('redis down')) : resolve(answer)));
      }),
    release: async (_key, released) => {
      for (const member of released) members.delete(member);
    },
  };
  return {
    inner,
    counted: () => members.size,
    takes: () => takes,
    answerAll: async () => {
      while (waiting.length > 0) {
        for (const answer of waiting.splice(0)) answer();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    failNext: () => (failNext = true),
  };
}

async function settledAtOnce<T>(promise: Promise<T>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

const allowedCount = (decisions: RateLimitDecision[]) => decisions.filter((decision) => decision.allowed).length;

describe('leasedRateLimiter', () => {
  it('a burst on two instances sharing one budget lets exactly the limit through, every one counted first', async () => {
    const script = heldScript(100);
    let clock = 0;
    const one = leasedRateLimiter(script.inner, () => clock);
    const two = leasedRateLimiter(script.inner, () => clock);
    const decisions: Promise<RateLimitDecision>[] = [];
    for (let round = 0; round < 15; round++) {
      for (let i = 0; i < 5; i++) decisions.push(one.hit('k'), two.hit('k'));
      clock += 1;
      await script.answerAll();
    }
    const settled = await Promise.all(decisions);
    expect(allowedCount(settled)).toBe(100);
    expect(script.counted()).toBe(100);
    expect(settled.slice(-10).every((decision) => !decision.allowed)).toBe(true);
  });

  it('requests without a slot wait together: one take for all of them', async () => {
    const script = heldScript(100);
    const limiter = leasedRateLimiter(script.inner, () => 0);
    const waiting = Array.from({ length: 20 }, () => limiter.hit('k'));
    expect(await settledAtOnce(waiting[0]!)).toBe(false);
    expect(script.takes()).toBe(1);
    await script.answerAll();
    // The first take carried one; the 19 that came meanwhile went in the next one.
    expect(script.takes()).toBe(2);
    expect(allowedCount(await Promise.all(waiting))).toBe(20);
  });

  it('a busy key leases slots and spends them without waiting; a quiet key leases none', async () => {
    const script = heldScript(1_000);
    const clock = 0;
    const limiter = leasedRateLimiter(script.inner, () => clock);
    for (let i = 0; i < 20; i++) {
      const hit = limiter.hit('busy');
      await script.answerAll();
      await hit;
    }
    await script.answerAll();
    expect(script.counted()).toBeGreaterThan(20); // slots ahead
    // Spent from the lease: answered without the script answering anything.
    for (let i = 0; i < 3; i++) expect(await settledAtOnce(limiter.hit('busy'))).toBe(true);
    await script.answerAll();
    const counted = script.counted();
    const quiet = limiter.hit('quiet');
    expect(await settledAtOnce(quiet)).toBe(false);
    await script.answerAll();
    await quiet;
    expect(script.counted() - counted).toBe(1);
  });

  it('gives back the slots it did not spend in time', async () => {
    const script = heldScript(1_000);
    let clock = 0;
    const limiter = leasedRateLimiter(script.inner, () => clock);
    for (let i = 0; i < 5; i++) {
      const hit = limiter.hit('k');
      await script.answerAll();
      await hit;
    }
    expect(script.counted()).toBeGreaterThan(5);
    clock += LEASE_MS + 1;
    const later = limiter.hit('k');
    await script.answerAll();
    await later;
    // The 5 hits, the one now, and the slots this one may have leased: the old ones are given back.
    const leasedNow = script.counted() - 6;
    expect(leasedNow).toBeGreaterThanOrEqual(0);
    expect(leasedNow).toBeLessThanOrEqual(10);
  });

  it('never leases the last half of the budget: near the limit Redis decides every hit', async () => {
    const script = heldScript(20);
    const limiter = leasedRateLimiter(script.inner, () => 0);
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 30; i++) {
      const hit = limiter.hit('k');
      await script.answerAll();
      decisions.push(await hit);
    }
    expect(allowedCount(decisions)).toBe(20);
    expect(decisions.slice(20).every((decision) => !decision.allowed && decision.retryAfterMs > 0)).toBe(true);
    expect(decisions.slice(0, 20).map((decision) => decision.remaining)).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
  });

  it('a take that fails rejects the requests waiting on it; the next request asks again', async () => {
    const script = heldScript(100);
    const limiter = leasedRateLimiter(script.inner, () => 0);
    script.failNext();
    const failed = limiter.hit('k');
    const refused = expect(failed).rejects.toThrow('redis down');
    await script.answerAll();
    await refused;
    const next = limiter.hit('k');
    await script.answerAll();
    expect(await next).toMatchObject({ allowed: true });
  });
});
