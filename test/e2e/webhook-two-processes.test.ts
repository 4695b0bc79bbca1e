/**
 * Two real gateway processes (one PostgreSQL database, one Redis) dispatch the same webhook
 * backlog at once, as two instances of one deployment do: every attempt (first attempts from the
 * outbox, retries through Redis) reaches the receiver exactly once, and the attempts each
 * process counts in its /metrics add up to what the receiver got. Complements the in-process
 * test (integration/webhooks/instances-and-redis), which forces both instances to take part.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../support/env.js';
import { TEST_WEBHOOK_SERVER_KEY, useGateway } from '../support/gateway.js';
import { ownRedisKeyPrefix, startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { merchantWithWebhook, paidTransaction } from '../support/webhooks.js';

/** Keys of their own on the shared Redis: no other test's schedule, none left by a stopped run. */
const REDIS_KEY_PREFIX = ownRedisKeyPrefix('webhook-two-processes');
const PAYMENTS = 20;
const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });
const processes: GatewayProcess[] = [];
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await Promise.allSettled(processes.map((process) => process.stop()));
  await receiver?.close();
});

const startInstance = async () => {
  const started = await startGatewayProcess({
    DATABASE_URL: gateway.databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX,
    GATEWAY_ADMIN_TOKEN: 'gw_op_webhook_two_processes_0123456789',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
    WEBHOOK_RETRY_DELAY_MS: '200',
    WEBHOOK_MAX_RETRIES: '3',
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  processes.push(started);
  return started;
};

/** Attempts this process made, from its /metrics (every outcome). */
async function attemptsCountedBy(instance: GatewayProcess): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('webhook_delivery_attempts_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('two gateway processes sharing the database and Redis', () => {
  it('send every attempt of a shared backlog exactly once, retries included', async () => {
    const { key } = await merchantWithWebhook(gateway, receiver, '/two-processes');
    // Each delivery fails twice (retried through Redis), then succeeds on its third attempt.
    receiver.configure('/two-processes', { behaviour: { delayMs: 20, statusFor: (headers) => (Number(headers['x-delivery-attempt']) < 3 ? 500 : 200) } });
    const [first, second] = await Promise.all([startInstance(), startInstance()]);

    const ids: string[] = [];
    for (let i = 0; i < PAYMENTS; i++) ids.push((await paidTransaction(gateway, key)).id);
    await eventually(
      async () => {
        const rows = await gateway.ctx.db.webhookDelivery.findMany({ where: { transactionId: { in: ids } } });
        return rows.length === PAYMENTS && rows.every((row) => row.status === 'delivered');
      },
      30_000,
      'every delivery delivered',
    );

    const sent = receiver.on('/two-processes').map((request) => `${request.headers['x-delivery-id']}#${request.headers['x-delivery-attempt']}`);
    expect(sent).toHaveLength(PAYMENTS * 3);
    expect(new Set(sent).size).toBe(sent.length);
    expect(receiver.on('/two-processes').every((request) => request.signatureValid)).toBe(true);
    const attempts = await gateway.ctx.db.webhookAttempt.count({ where: { delivery: { transactionId: { in: ids } } } });
    expect(attempts).toBe(PAYMENTS * 3);

    const [byFirst, bySecond] = await Promise.all([attemptsCountedBy(first!), attemptsCountedBy(second!)]);
    console.info(`attempts: first process ${byFirst}, second process ${bySecond}`);
    expect(byFirst + bySecond).toBe(PAYMENTS * 3);
  }, 90_000);
});
