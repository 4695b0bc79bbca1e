import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { systemClock, type GatewayContext } from '../../../src/domain/context.js';
import { createRedisCoordination } from '../../../src/infra/redis/coordination.js';
import { startGateway } from '../../support/gateway.js';

describe('GET /readyz', () => {
  it('is ready when the database and Redis answer', async () => {
    const gateway = await startGateway({ redis: true });
    try {
      const response = await gateway.rest('GET', '/readyz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ready', checks: { database: true, coordinator: true } });
    } finally {
      await gateway.close();
    }
  });

  it('answers 503 naming what is down when Redis is unreachable', async () => {
    const gateway = await startGateway();
    const deadRedis = createRedisCoordination({ url: 'redis://127.0.0.1:1', rateLimit: { max: 1, windowMs: 1000 }, onError: () => undefined });
    const ctx: GatewayContext = { ...gateway.ctx, coordination: deadRedis, clock: systemClock };
    const app = await buildApp({
      ctx,
      adminToken: null,
      logger: false,
      ready: async () => ({ database: await gateway.db.ping(), coordinator: await deadRedis.health.ping() }),
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'not_ready', checks: { database: true, coordinator: false } });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await deadRedis.health.close();
      await gateway.close();
    }
  });
});
