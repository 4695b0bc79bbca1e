/**
 * The Redis limiter goes on without waiting for Redis while far from the limit
 * (localFirstRateLimiter): on real Redis, one instance still lets through exactly the limit, in
 * bursts and one by one, and every hit is in Redis's log.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisCoordination } from '../../../src/infra/redis/coordination.js';
import { BATCH_MS } from '../../../src/infra/redis/localFirstRateLimiter.js';
import { TEST_REDIS_URL } from '../../support/env.js';

const PREFIX = `test:lf:${process.pid}:${Date.now()}:`;
const limit = 50;
const coordination = createRedisCoordination({ url: TEST_REDIS_URL, keyPrefix: PREFIX, rateLimit: { max: limit, windowMs: 60_000 } });
const redis = new Redis(TEST_REDIS_URL);

afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await coordination.health.close();
});

describe('the Redis rate limiter, deciding locally far from the limit', () => {
  it('lets exactly the limit through, in concurrent bursts then one by one, all counted in Redis', async () => {
    const key = 'burst';
    const allowed: boolean[] = [];
    for (let burst = 0; burst < 3; burst++) {
      const decisions = await Promise.all(Array.from({ length: 15 }, () => coordination.rateLimiter.hit(key)));
      allowed.push(...decisions.map((decision) => decision.allowed));
    }
    for (let i = 0; i < 20; i++) allowed.push((await coordination.rateLimiter.hit(key)).allowed);
    expect(allowed.filter(Boolean)).toHaveLength(limit);
    expect(allowed.slice(-10).every((ok) => !ok)).toBe(true);
    // Every allowed hit reaches Redis (the ones that did not wait in their batch, BATCH_MS later), none more.
    let counted = 0;
    for (const started = Date.now(); Date.now() - started < 2_000 && counted < limit; ) {
      await new Promise((resolve) => setTimeout(resolve, BATCH_MS));
      counted = await redis.zcard(`${PREFIX}rl:${key}`);
    }
    await new Promise((resolve) => setTimeout(resolve, BATCH_MS * 3));
    expect(await redis.zcard(`${PREFIX}rl:${key}`)).toBe(limit);
  });

  it('reports what is left as the hits go, exactly for one caller at a time', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) remaining.push((await coordination.rateLimiter.hit('steady')).remaining);
    expect(remaining).toEqual(Array.from({ length: 10 }, (_, i) => limit - 1 - i));
  });
});
