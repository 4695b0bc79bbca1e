/**
 * Two real gateway processes (one PostgreSQL database, one Redis) configured with WAVE_API_KEY and
 * WAVE_API_URL pointing at the Wave simulator, as two instances of one deployment: the customer
 * starts on one, Wave's webhook lands on the other, a lost webhook and a payout whose answer is
 * lost are settled by whichever instance's reconciler asks first (Wave is asked, never sent the
 * payout again), and `gateway reconcile --method wave` then finds the ledger and Wave's books alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { TEST_REDIS_URL } from '../support/env.js';
import { TEST_WEBHOOK_SERVER_KEY, transactionBody, useGateway, type TestGateway } from '../support/gateway.js';
import { fundedMerchant, payoutBody } from '../support/payouts.js';
import { ownRedisKeyPrefix, startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { throughTlsProxy } from '../support/providers/wave.js';
import { startWaveSimulator, type WaveSimulator } from '../support/providers/waveSimulator.js';
import { eventually } from '../support/webhookReceiver.js';

const REDIS_KEY_PREFIX = ownRedisKeyPrefix('wave-two-instances');
const ADMIN_TOKEN = 'gw_op_wave_two_instances_0123456789ab';
const gateway = useGateway();
const instances: GatewayProcess[] = [];
let wave: WaveSimulator;

beforeAll(async () => {
  wave = await startWaveSimulator();
  const env = {
    DATABASE_URL: gateway.databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
    WAVE_API_KEY: wave.apiKey,
    WAVE_API_URL: wave.url,
    WAVE_WEBHOOK_SECRET: wave.webhookSecret,
    // Wave returns customers to https only: the checkout's public address, as behind a TLS proxy.
    CHECKOUT_PUBLIC_URL: 'https://127.0.0.1:{CHECKOUT_PORT}',
    PROVIDER_TIMEOUT_MS: '1500',
    RECONCILE_AFTER_MS: '2000',
    RECONCILE_INTERVAL_MS: '200',
  };
  instances.push(...(await Promise.all([startGatewayProcess(env), startGatewayProcess(env)])));
  // Wave calls the second instance; the customer uses the first.
  wave.webhookUrl = `${instances[1]!.url}/providers/wave/webhook`;
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(instances.map((instance) => instance.stop()));
  await wave?.close();
});

const asGateway = (instance: GatewayProcess) => ({ url: instance.url, adminToken: ADMIN_TOKEN }) as TestGateway;
const tokenOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function rest(instance: GatewayProcess, method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** A customer on the first instance's checkout chooses Wave; the session Wave opened for it. */
async function checkoutOnFirst(key: string) {
  const created = await rest(instances[0]!, 'POST', '/api/v2/transactions', key, transactionBody({ method_of_payment: ['wave'] }));
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const url = throughTlsProxy(created.body.checkout_url);
  const page = await (await fetch(url)).text();
  const posted = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: tokenOf(page), method: 'wave', phone: '+221771234567' }).toString(),
  });
  const html = await posted.text();
  const sessionId = /\/c\/(cos-[0-9a-f]+)/.exec(html)?.[1];
  expect(sessionId, html).toBeDefined();
  return { orderId: created.body.order_id as string, session: wave.sessions.get(sessionId!)! };
}

const statusOn = async (instance: GatewayProcess, key: string, orderId: string) =>
  (await rest(instance, 'GET', `/api/v2/transactions/${orderId}`, key)).body.transaction_status;

describe('Wave with two gateway instances', () => {
  it('collects, pays out and reconciles across instances: webhooks, lost webhooks and lost answers settled once', async () => {
    const { key, organization } = await fundedMerchant(gateway, { balance: 500_000, scope: 'readAndWrite' });
    const payoutKey = await gateway.createKey(organization.id, 'payout');

    // 1. The webhook reaches the other instance.
    const first = await checkoutOnFirst(key);
    await wave.completeSession(first.session.id);
    expect(wave.webhooksSent.at(-1)?.status).toBe(200);
    expect(await statusOn(instances[0]!, key, first.orderId)).toBe('paid');

    // 2. The webhook is lost: a reconciler (either instance) asks Wave.
    const second = await checkoutOnFirst(key);
    wave.loseNextWebhook = true;
    await wave.completeSession(second.session.id);
    await eventually(async () => (await statusOn(instances[1]!, key, second.orderId)) === 'paid', 20_000, 'the lost webhook settled by a status question');

    // 3. A payout whose answer is lost: pending, then completed by a reconciler; sent to Wave once.
    wave.loseNextAnswer(/^POST \/v1\/payout$/);
    const payout = await rest(instances[0]!, 'POST', '/api/v2/payouts', payoutKey, payoutBody({ amount: 12_000 }));
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    expect(payout.body.payout_status).toBe('pending');
    await eventually(
      async () => (await rest(instances[1]!, 'GET', `/api/v2/payouts/${payout.body.order_id}`, payoutKey)).body.payout_status === 'completed',
      20_000,
      'the payout reconciled',
    );
    expect(wave.calls.filter((call) => call.method === 'POST' && call.path === '/v1/payout' && call.idempotencyKey === payout.body.order_id)).toHaveLength(1);

    // Each payment posted once, and the books agree (the CLI against either instance).
    for (const orderId of [first.orderId, second.orderId]) {
      const postings = new Set(
        (await gateway.ctx.db.ledgerEntry.findMany({ where: { transactionId: orderId, kind: 'payment' } })).map((entry) => entry.postingId),
      );
      expect(postings.size).toBe(1);
    }
    const report = await runCli(asGateway(instances[1]!), [
      'reconcile',
      '--method',
      'wave',
      '--from',
      new Date(Date.now() - 3_600_000).toISOString(),
      '--to',
      new Date(Date.now() + 60_000).toISOString(),
    ]);
    expect(report.code, report.stdout).toBe(0);
    expect(report.json).toMatchObject({ matched: 3, discrepancies: [] });
    const sandboxOnly = await runCli(asGateway(instances[0]!), ['reconcile', '--method', 'orange_money']);
    expect(sandboxOnly).toMatchObject({ code: 1, json: { error: expect.stringMatching(/sandbox/) } });
  }, 120_000);
});
