/**
 * Live updates across instances: two real gateway processes sharing PostgreSQL and Redis. A
 * merchant subscribed on B hears, within a second, each payment made through A (the payment's
 * answer on A to the event on B, measured); a payout sent through A reaches an operator watching B.
 */
import { print } from 'graphql';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../support/env.js';
import { TEST_WEBHOOK_SERVER_KEY, transactionBody, useGateway } from '../support/gateway.js';
import { SandboxPayDocument, type SandboxPayMutationVariables } from '../support/graphql/generated.js';
import { fundedMerchant, payoutBody } from '../support/payouts.js';
import { ownRedisKeyPrefix, startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { PAYOUT_STATUS_CHANGED, TRANSACTION_STATUS_CHANGED, subscribe } from '../support/sse.js';

const ADMIN_TOKEN = 'gw_op_subscriptions_two_instances_0123456789';
const REDIS_KEY_PREFIX = ownRedisKeyPrefix('subscriptions-two-instances');
/** docs/graphql.md#live-updates: delivered within a second of the change across every instance sharing Redis. */
const WITHIN_MS = 1_000;
const PAYMENTS = 5;

const gateway = useGateway();
let a: GatewayProcess;
let b: GatewayProcess;

beforeAll(async () => {
  // GraphQL loaded before listening, as production's default does (the other process tests load it when first asked).
  const env = {
    DATABASE_URL: gateway.databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
    GRAPHQL_PRELOAD: 'true',
  };
  [a, b] = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
}, 90_000);
afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
});

async function post(instance: GatewayProcess, path: string, token: string, body: unknown): Promise<any> {
  const response = await fetch(`${instance.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

const SANDBOX_PAY = print(SandboxPayDocument);
const payWithWave = (orderId: string): SandboxPayMutationVariables => ({ orderId, method: 'wave', phone: '+221770000001' });

describe('two gateway processes sharing PostgreSQL and Redis', () => {
  it(`tell a subscriber of B of each payment made on A within ${WITHIN_MS} ms`, async () => {
    const { organization, key } = await gateway.merchant();
    const live = await subscribe(b.url, TRANSACTION_STATUS_CHANGED, {}, key);
    expect(live.status).toBe(200);
    const delays: number[] = [];
    try {
      for (let i = 0; i < PAYMENTS; i += 1) {
        const { order_id: orderId } = await post(a, '/api/v2/transactions', key, transactionBody());
        const paid = await post(a, '/graphql', ADMIN_TOKEN, { query: SANDBOX_PAY, variables: payWithWave(orderId) });
        const answeredAt = Date.now();
        expect(paid.data.sandboxPay.outcome).toBe('paid');
        const event = await live.next(WITHIN_MS);
        expect(event.payload.data.transactionStatusChanged).toMatchObject({ orderId, organizationId: organization.id, status: 'paid' });
        delays.push(event.receivedAt - answeredAt);
      }
    } finally {
      live.close();
    }
    console.info(`payment on A -> event on B: ${delays.join(', ')} ms`);
    expect(Math.max(...delays)).toBeLessThan(WITHIN_MS);
  });

  it('tell an operator watching B of a payout completed through A', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const live = await subscribe(b.url, PAYOUT_STATUS_CHANGED, { organizationId: organization.id }, ADMIN_TOKEN);
    try {
      const payout = await post(a, '/api/v2/payouts', key, payoutBody());
      const answeredAt = Date.now();
      const event = await live.next(WITHIN_MS);
      expect(event.payload.data.payoutStatusChanged).toMatchObject({ organizationId: organization.id, status: 'completed' });
      expect(event.payload.data.payoutStatusChanged.orderId).toBe(payout._id ?? payout.order_id ?? payout.id);
      expect(event.receivedAt - answeredAt).toBeLessThan(WITHIN_MS);
    } finally {
      live.close();
    }
  });

  it('keep their keys and channels under REDIS_KEY_PREFIX', async () => {
    const redis = new Redis(TEST_REDIS_URL);
    try {
      // The rate-limit windows of the requests above, counted for both instances under the prefix.
      expect(await redis.keys(`${REDIS_KEY_PREFIX}rl:*`)).toContain(`${REDIS_KEY_PREFIX}rl:rl:POST /graphql:127.0.0.1`);
      const channels = await redis.pubsub('CHANNELS', `${REDIS_KEY_PREFIX}*`);
      expect(channels).toContain(`${REDIS_KEY_PREFIX}invalidations`);
    } finally {
      redis.disconnect();
    }
  });
});
