/**
 * The Redis limiter spends slots leased ahead while far from the limit (leasedRateLimiter): on
 * real Redis, one instance still lets through exactly the limit, in bursts and one by one, every
 * hit in Redis's log. Two instances sharing Redis, hit by one burst over HTTP, letting through
 * exactly the limit between them is proven with two gateway processes:
 * test/faults/rate-limit-two-instances.test.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisCoordination } from '../../../src/infra/redis/coordination.js';
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

describe('the Redis rate limiter, spending leased slots far from the limit', () => {
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
    // Every hit let through was counted in Redis before, and slots not spent are given back: the log holds exactly the limit.
    expect(await redis.zcard(`${PREFIX}rl:${key}`)).toBe(limit);
  });

  it('reports what is left as the hits go, exactly for one caller at a time', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) remaining.push((await coordination.rateLimiter.hit('steady')).remaining);
    expect(remaining).toEqual(Array.from({ length: 10 }, (_, i) => limit - 1 - i));
  });
});
