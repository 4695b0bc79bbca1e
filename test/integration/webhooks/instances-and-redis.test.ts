/**
 * Webhook retries scheduled in Redis: two gateway instances (one database, one Redis) dispatch at
 * once and never send an attempt twice; Redis losing the schedule mid-retry delays the retry only
 * until the sweep rebuilds it from the outbox.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../../src/domain/context.js';
import { rescheduleOverdueDeliveries } from '../../../src/domain/webhooks/schedule.js';
import { openDatabase } from '../../../src/infra/prisma/database.js';
import { createRedisCoordination } from '../../../src/infra/redis/coordination.js';
import { startWebhookDispatcher, type Dispatcher } from '../../../src/webhooks/dispatcher.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { useGateway } from '../../support/gateway.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver.js';
import { deliveriesOf, merchantWithWebhook, paidTransaction } from '../../support/webhooks.js';

const prefix = `test:gw:webhooks:${randomBytes(4).toString('hex')}:`;
const RETRY_DELAY_MS = 300;
const gateway = useGateway({
  redis: true,
  redisKeyPrefix: prefix,
  webhooks: { allowPrivateUrls: true, retryDelayMs: RETRY_DELAY_MS, maxRetries: 3, timeoutMs: 1_000 },
});
let receiver: WebhookReceiver;
let redis: Redis;
const closers: Array<() => Promise<unknown>> = [];

/** A second instance of the same deployment: same database and Redis keys, its own connections to both. */
async function secondInstance(): Promise<GatewayContext> {
  const coordination = createRedisCoordination({ url: TEST_REDIS_URL, keyPrefix: prefix, rateLimit: { max: 100_000, windowMs: 60_000 } });
  const db = await openDatabase({ url: gateway.databaseUrl, poolMax: 4 });
  closers.push(
    () => coordination.health.close(),
    () => db.close(),
  );
  return { ...gateway.ctx, db: countingClaims(db.prisma), coordination };
}

/** Attempts claimed through this client (to show both instances took part). */
let claimedBySecond = 0;
function countingClaims(prisma: GatewayContext['db']): GatewayContext['db'] {
  const queryRaw = prisma.$queryRaw.bind(prisma) as (...args: unknown[]) => Promise<unknown[]>;
  const counted = async (...args: unknown[]) => {
    const rows = await queryRaw(...args);
    const sql = (args[0] as readonly string[]).join('?');
    if (sql.includes('"attemptCount" = d."attemptCount" + 1')) claimedBySecond += rows.length;
    return rows;
  };
  return new Proxy(prisma, {
    get: (target, property) => {
      if (property === '$queryRaw') return counted;
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await redis?.quit();
  await receiver?.close();
});

const started = (ctx: GatewayContext, options: { maxConcurrency?: number } = {}): Dispatcher => {
  const dispatcher = startWebhookDispatcher(ctx, { pollMs: 10, ...options });
  closers.push(() => dispatcher.stop());
  return dispatcher;
};

describe('webhook dispatch across instances and Redis', () => {
  it('two instances sharing Redis send every attempt exactly once', async () => {
    const { key } = await merchantWithWebhook(gateway, receiver, '/two-instances');
    // Every delivery fails twice, then succeeds on its third attempt. Each answer takes 40 ms and
    // each instance sends one attempt at a time, holding at most 8 claimed (HOLD_FACTOR x 1): neither
    // can take a round of 12 alone while the other polls every 10 ms, so both take part however the
    // machine schedules them (CI once saw one instance claim all 36 without these limits).
    receiver.configure('/two-instances', { behaviour: { delayMs: 40, statusFor: (headers) => (Number(headers['x-delivery-attempt']) < 3 ? 500 : 200) } });
    const first = started(gateway.ctx, { maxConcurrency: 1 });
    const second = started(await secondInstance(), { maxConcurrency: 1 });
    const payments = await Promise.all(Array.from({ length: 12 }, () => paidTransaction(gateway, key)));

    const ids = payments.map((payment) => payment.id);
    await eventually(
      async () => {
        const rows = await gateway.ctx.db.webhookDelivery.findMany({ where: { transactionId: { in: ids } } });
        return rows.length === ids.length && rows.every((row) => row.status === 'delivered');
      },
      15_000,
      'every delivery delivered',
    );

    const sent = receiver.on('/two-instances').map((request) => `${request.headers['x-delivery-id']}#${request.headers['x-delivery-attempt']}`);
    expect(sent).toHaveLength(ids.length * 3);
    // Both instances sent some.
    expect(claimedBySecond).toBeGreaterThan(0);
    expect(claimedBySecond).toBeLessThan(sent.length);
    expect(new Set(sent).size).toBe(sent.length);
    for (const id of ids) {
      const [delivery] = await deliveriesOf(gateway, id);
      expect(delivery!.attempts.map((attempt) => [attempt.number, attempt.statusCode])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
    }
    await Promise.all([first.stop(), second.stop()]);
  });

  it('rebuilds the retry schedule from the outbox when Redis loses it', async () => {
    const { key } = await merchantWithWebhook(gateway, receiver, '/redis-flushed');
    receiver.configure('/redis-flushed', { behaviour: { statuses: [500, 200] } });
    // A retry delay long enough that a loaded machine (CI once took over 300 ms between the record
    // and the delete below) cannot claim the retry before the schedule is lost.
    const webhooks = { ...gateway.ctx.settings.webhooks!, retryDelayMs: 1_500 };
    const dispatcher = started({ ...gateway.ctx, settings: { ...gateway.ctx.settings, webhooks } });
    const paid = await paidTransaction(gateway, key);
    // The first attempt failed and its retry sits in Redis...
    await eventually(async () => (await deliveriesOf(gateway, paid.id))[0]?.attempts.length === 1);
    // The attempt is committed before its retry is scheduled: a loaded run (four workers, a
    // fresh-clone CI) read the schedule in between and found it empty.
    await eventually(async () => (await redis.zcard(`${prefix}sched`)) === 1, 5_000, 'the retry in the Redis schedule');
    // ...when Redis loses it (this deployment's keys only: other tests share the server).
    expect(await redis.del(`${prefix}sched`)).toBe(1);
    const [row] = await gateway.ctx.db.webhookDelivery.findMany({ where: { transactionId: paid.id } });
    // Well past the retry's due time, nothing was sent: only the scheduler would have named it.
    await new Promise((resolve) => setTimeout(resolve, row!.nextAttemptAt!.getTime() - Date.now() + 500));
    expect(receiver.on('/redis-flushed')).toHaveLength(1);
    expect((await deliveriesOf(gateway, paid.id))[0]!.status).toBe('pending');

    // The periodic sweep (background.ts) finds it overdue in the outbox and schedules it again.
    expect(await rescheduleOverdueDeliveries(gateway.ctx, { graceMs: 0 })).toBe(1);
    await eventually(async () => (await deliveriesOf(gateway, paid.id))[0]?.status === 'delivered');
    expect(receiver.on('/redis-flushed').map((request) => request.headers['x-delivery-attempt'])).toEqual(['1', '2']);
    await dispatcher.stop();
  });

  it('keeps delivering, retries included, while Redis is unreachable (they come from the outbox)', async () => {
    const { key } = await merchantWithWebhook(gateway, receiver, '/no-redis');
    receiver.configure('/no-redis', { behaviour: { statuses: [500, 200] } });
    const coordination = createRedisCoordination({ url: 'redis://127.0.0.1:1', keyPrefix: prefix, rateLimit: { max: 100_000, windowMs: 60_000 } });
    closers.push(() => coordination.health.close());
    const dispatcher = started({ ...gateway.ctx, coordination });
    const paid = await paidTransaction(gateway, key);
    await eventually(async () => (await deliveriesOf(gateway, paid.id))[0]?.status === 'delivered', 10_000, 'the delivery');
    expect(receiver.on('/no-redis').map((request) => request.headers['x-delivery-attempt'])).toEqual(['1', '2']);
    await dispatcher.stop();
  });
});
