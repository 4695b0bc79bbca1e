/**
 * kill -9 of a gateway process BETWEEN recording a Wave call and sending it (the call never reaches
 * Wave: the merchant is debited, nothing is at Wave). Wave de-duplicates payouts by their
 * idempotency key (docs.wave.com/payout) and checkout refunds by their session, refunded at most
 * once (docs.wave.com/checkout), so the other instance's reconciler, finding nothing at Wave under
 * our reference, sends the call again with the SAME reference: the payout completes and the refund
 * succeeds, exactly once at Wave; the merchant's
 * keyed retry meanwhile answers the call's current state, never 409 for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWaveSimulator, type WaveSimulator } from '../support/providers/waveSimulator.js';
import { eventually } from '../support/webhookReceiver.js';
import { call, operatorGraphql, useCluster, type Instance } from '../support/faults/cluster.js';
import { createTransaction, faultMerchant, type FaultMerchant } from '../support/faults/money.js';
import { expectBalancedLedger, moneyMismatches } from '../support/ledger.js';

// The killed instance's claim (provider timeout 3 s + 5 s) may have to lapse first; generous for a loaded machine.
const RESUMED_WITHIN_MS = 40_000;
const PAY = `mutation($orderId: ID!, $phone: String) {
  sandboxPay(orderId: $orderId, method: wave, phone: $phone) { outcome reason }
}`;

const cluster = useCluster();
let wave: WaveSimulator;
let env: Record<string, string>;
let survivor: Instance;
let merchant: FaultMerchant;

beforeAll(async () => {
  wave = await startWaveSimulator();
  // A short provider deadline: the claim of a killed instance on an open call lapses soon after it.
  env = {
    WAVE_API_KEY: wave.apiKey,
    WAVE_API_URL: wave.url,
    WAVE_WEBHOOK_SECRET: wave.webhookSecret,
    CHECKOUT_PUBLIC_URL: 'https://127.0.0.1:{CHECKOUT_PORT}',
    PROVIDER_TIMEOUT_MS: '3000',
  };
  survivor = await cluster.start('survivor', { env });
  wave.webhookUrl = `${survivor.url}/providers/wave/webhook`;
  merchant = await faultMerchant(cluster.gateway);
}, 90_000);

afterAll(async () => {
  await wave?.close();
});

const db = () => cluster.gateway.ctx.db;

/** A victim whose call to Wave never arrives (lost on the way); killed once the intent is recorded. */
async function killBeforeTheCallArrives(name: string, route: RegExp, recorded: () => Promise<boolean>, send: (victim: Instance) => Promise<unknown>) {
  const victim = await cluster.start(name, { env });
  wave.loseNextCall(route);
  const request = send(victim);
  await eventually(recorded, 20_000, 'the intent recorded');
  await cluster.kill(victim);
  await request.catch(() => undefined);
}

describe('kill -9 between recording a Wave call and sending it', () => {
  it('a payout: resumed by the other instance with the same key, completed, sent to Wave once; the keyed retry reads it', async () => {
    const body = {
      selected_payment_method: 'wave',
      amount: 41_000,
      recipient: { first_name: 'Awa', last_name: 'Ba', phone: '+221773334466' },
      reason: 'supplier',
    };
    const headers = { 'idempotency-key': 'kill-before-send-payout' };
    await killBeforeTheCallArrives(
      'payout-victim',
      /^POST \/v1\/payout$/,
      async () => (await db().payout.count({ where: { organizationId: merchant.organizationId, amount: 41_000n } })) === 1,
      (victim) => call(victim, 'POST', '/api/v2/payouts', { key: merchant.payoutKey, body, headers, timeoutMs: 30_000 }),
    );
    const payout = await db().payout.findFirstOrThrow({ where: { organizationId: merchant.organizationId, amount: 41_000n } });
    const retried = await call(survivor, 'POST', '/api/v2/payouts', { key: merchant.payoutKey, body, headers });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.order_id).toBe(payout.id);
    await eventually(
      async () => (await db().payout.findUniqueOrThrow({ where: { id: payout.id } })).status === 'completed',
      RESUMED_WITHIN_MS,
      'the survivor resuming the payout',
    );
    expect([...wave.payouts.values()].filter((p) => p.client_reference === payout.id)).toHaveLength(1);
    expect(wave.calls.filter((c) => c.path === '/v1/payout' && c.idempotencyKey === payout.id).every((c) => c.status === 200)).toBe(true);
    const after = await call(survivor, 'POST', '/api/v2/payouts', { key: merchant.payoutKey, body, headers });
    expect(after.body.payout_status).toBe('completed');
  }, 120_000);

  it('a refund: resumed by the other instance with the same key, the customer refunded once', async () => {
    const created = await createTransaction(survivor, merchant.checkoutKey, 3_000);
    const orderId: string = created.body.order_id;
    await operatorGraphql(survivor, PAY, { orderId, phone: '+221770000001' }, 30_000);
    const session = [...wave.sessions.values()].at(-1)!;
    await wave.completeSession(session.id);
    await eventually(async () => (await db().transaction.findUniqueOrThrow({ where: { id: orderId } })).status === 'paid', 20_000, 'paid');
    const headers = { 'idempotency-key': 'kill-before-send-refund' };
    await killBeforeTheCallArrives(
      'refund-victim',
      /^POST \/v1\/checkout\/sessions\/[^/]+\/refund$/,
      async () => (await db().refund.count({ where: { transactionId: orderId } })) === 1,
      (victim) => call(victim, 'GET', `/api/v2/refund/${orderId}`, { key: merchant.checkoutKey, headers, timeoutMs: 30_000 }),
    );
    const retried = await call(survivor, 'GET', `/api/v2/refund/${orderId}`, { key: merchant.checkoutKey, headers });
    expect(retried.status).not.toBe(409);
    await eventually(
      async () => (await db().transaction.findUniqueOrThrow({ where: { id: orderId } })).status === 'refunded',
      RESUMED_WITHIN_MS,
      'the survivor resuming the refund',
    );
    expect(wave.sessions.get(session.id)?.refunded).toBe(true);
    expect(wave.history.filter((line) => line.client_reference === session.client_reference && BigInt(line.amount) < 0n)).toHaveLength(1);
  }, 120_000);

  it('the money adds up', async () => {
    await expectBalancedLedger(db());
    expect(await moneyMismatches(db())).toEqual({ transactions: [], payouts: [] });
  });
});
