/**
 * The Redis limiter spends slots leased ahead while far from the limit (leasedRateLimiter): on
 * real Redis, one instance still lets through exactly the limit, in bursts and one by one, every
 * hit in Redis's log; two instances sharing Redis, hit by one burst over HTTP, let through exactly
 * the limit between them.
 */
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../../src/domain/context.js';
import { buildApp } from '../../../src/http/app.js';
import { createRedisCoordination } from '../../../src/infra/redis/coordination.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { useGateway } from '../../support/gateway.js';

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

const gateway = useGateway();
let merchantKey: string;
beforeAll(async () => {
  ({ key: merchantKey } = await gateway.merchant());
});

/** An instance of the deployment: the file's database behind its own HTTP server, its own limiter, the shared Redis. */
async function instance(prefix: string) {
  const coordination = createRedisCoordination({ url: TEST_REDIS_URL, keyPrefix: prefix, rateLimit: { max: 100, windowMs: 60_000 } });
  const ctx: GatewayContext = { ...gateway.ctx, coordination };
  const app = await buildApp({ ctx, adminToken: null, logger: false, ready: async () => ({ database: true, coordinator: true }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: async () => {
      await app.close();
      await coordination.health.close();
    },
  };
}

describe('two instances sharing Redis', () => {
  it('150 requests at once, split between them, get exactly 100 answers that are not 429', async () => {
    const prefix = `${PREFIX}two:`;
    const instances = [await instance(prefix), await instance(prefix)];
    try {
      const statuses = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          fetch(`${instances[i % 2]!.url}/api/v2/transactions?limit=1`, { headers: { authorization: `Bearer ${merchantKey}` } }).then(
            (response) => response.status,
          ),
        ),
      );
      expect(statuses.filter((status) => status !== 429)).toHaveLength(100);
      expect(new Set(statuses)).toEqual(new Set([200, 429]));
      // A second burst in the same window: every request refused, on both.
      const again = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${instances[i % 2]!.url}/api/v2/transactions?limit=1`, { headers: { authorization: `Bearer ${merchantKey}` } }).then(
            (response) => response.status,
          ),
        ),
      );
      expect(again).toEqual(Array(20).fill(429));
    } finally {
      await Promise.all(instances.map((one) => one.close()));
    }
  });
});
