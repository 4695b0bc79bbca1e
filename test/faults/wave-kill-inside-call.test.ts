/**
 * kill -9 of a gateway process INSIDE a Wave call, at its worst moment: Wave has done it (the
 * payout is in its books, the session exists, the refund is booked) and the process dies before
 * hearing the answer. The other instance of the deployment recovers each one by asking Wave about
 * our reference, never by sending again: the payout and the refund complete exactly once, the
 * payment whose webhook can only reach the dead instance is recorded by a reconciler, and the
 * ledger and Wave's own books agree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWaveSimulator, type WaveSimulator } from '../support/providers/waveSimulator.js';
import { eventually } from '../support/webhookReceiver.js';
import { call, operatorGraphql, useCluster, type Instance } from '../support/faults/cluster.js';
import { expectAnswersAgain } from '../support/faults/invariants.js';
import { createTransaction, faultMerchant, type FaultMerchant } from '../support/faults/money.js';
import { expectBalancedLedger, moneyMismatches } from '../support/ledger.js';

const SETTLED_WITHIN_MS = 20_000;
const PAY = `mutation($orderId: ID!, $phone: String) {
  sandboxPay(orderId: $orderId, method: wave, phone: $phone) { outcome reason }
}`;
const RECONCILE = `query($from: DateTime, $to: DateTime) {
  reconcileProvider(method: wave, from: $from, to: $to) { matched discrepancies { issue kind reference } }
}`;

const cluster = useCluster();
let wave: WaveSimulator;
let env: Record<string, string>;
let survivor: Instance;
let merchant: FaultMerchant;

beforeAll(async () => {
  wave = await startWaveSimulator();
  env = {
    WAVE_API_KEY: wave.apiKey,
    WAVE_API_URL: wave.url,
    WAVE_WEBHOOK_SECRET: wave.webhookSecret,
    CHECKOUT_PUBLIC_URL: 'https://127.0.0.1:{CHECKOUT_PORT}',
  };
  survivor = await cluster.start('survivor', { env });
  wave.webhookUrl = `${survivor.url}/providers/wave/webhook`;
  merchant = await faultMerchant(cluster.gateway);
}, 90_000);

afterAll(async () => {
  await wave?.close();
});

/** A fresh process's first provider call on a loaded 2-core machine. */
const CALL_REACHES_WITHIN_MS = 20_000;

const db = () => cluster.gateway.ctx.db;

/** A victim instance, the request sent to it, and its death once Wave has done the call (its answer never comes). */
async function killDuringCall(name: string, route: RegExp, send: (victim: Instance) => Promise<unknown>): Promise<Instance> {
  const victim = await cluster.start(name, { env });
  wave.loseNextAnswer(route);
  const before = wave.calls.length;
  const reached = () => wave.calls.slice(before).some((recorded) => route.test(`${recorded.method} ${recorded.path.split('?')[0]}`));
  const request = send(victim);
  // An answer before the call reaches Wave (whose answer is lost) fails the test with that answer,
  // instead of a bare timeout that hides why.
  const answeredFirst = request.then((answer) => {
    if (!reached()) throw new Error(`answered before the call reached Wave: ${JSON.stringify(answer)}`);
  });
  await Promise.race([eventually(reached, CALL_REACHES_WITHIN_MS, `the call reaching Wave`), answeredFirst]);
  await cluster.kill(victim);
  await answeredFirst;
  return victim;
}

describe('kill -9 inside a Wave call', () => {
  it('a payout: Wave paid it, the process died; the other instance completes it by asking, sent once', async () => {
    await killDuringCall('payout-victim', /^POST \/v1\/payout$/, (victim) =>
      call(victim, 'POST', '/api/v2/payouts', {
        key: merchant.payoutKey,
        body: {
          selected_payment_method: 'wave',
          amount: 50_000,
          recipient: { first_name: 'Awa', last_name: 'Ba', phone: '+221773334455' },
          reason: 'supplier',
        },
        timeoutMs: 30_000,
      }),
    );
    const payout = await db().payout.findFirstOrThrow({ where: { organizationId: merchant.organizationId, amount: 50_000n } });
    await eventually(
      async () => (await db().payout.findUniqueOrThrow({ where: { id: payout.id } })).status === 'completed',
      SETTLED_WITHIN_MS,
      'the survivor completing the payout',
    );
    expect(wave.calls.filter((recorded) => recorded.path === '/v1/payout' && recorded.idempotencyKey === payout.id)).toHaveLength(1);
  });

  it('a payment: the session was made, the process died; the customer pays, the webhook finds no one, the survivor records it', async () => {
    const created = await createTransaction(survivor, merchant.checkoutKey, 2_500);
    const orderId: string = created.body.order_id;
    const victim = await killDuringCall('collect-victim', /^POST \/v1\/checkout\/sessions$/, (instance) =>
      operatorGraphql(instance, PAY, { orderId, phone: '+221770000001' }, 30_000),
    );
    const session = [...wave.sessions.values()].at(-1)!;
    wave.webhookUrl = `${victim.url}/providers/wave/webhook`;
    try {
      await wave.completeSession(session.id);
    } finally {
      wave.webhookUrl = `${survivor.url}/providers/wave/webhook`;
    }
    expect(wave.webhooksSent.at(-1)?.status).toBeNull();
    await eventually(
      async () => (await db().transaction.findUniqueOrThrow({ where: { id: orderId } })).status === 'paid',
      SETTLED_WITHIN_MS,
      'the survivor recording the payment',
    );
  });

  it('a refund: Wave returned the money, the process died; the survivor settles it by asking, sent once', async () => {
    const [paid] = await db().transaction.findMany({ where: { organizationId: merchant.organizationId, status: 'paid', selectedPaymentMethod: 'wave' } });
    await killDuringCall('refund-victim', /^POST \/v1\/checkout\/sessions\/[^/]+\/refund$/, (victim) =>
      call(victim, 'GET', `/api/v2/refund/${paid!.id}`, { key: merchant.checkoutKey, timeoutMs: 30_000 }),
    );
    const refund = await db().refund.findUniqueOrThrow({ where: { transactionId: paid!.id } });
    await eventually(
      async () => (await db().refund.findUniqueOrThrow({ where: { id: refund.id } })).status === 'succeeded',
      SETTLED_WITHIN_MS,
      'the survivor settling the refund',
    );
    expect(wave.calls.filter((recorded) => recorded.path.endsWith('/refund'))).toHaveLength(1);
    expect((await db().transaction.findUniqueOrThrow({ where: { id: paid!.id } })).status).toBe('refunded');
  });

  it('the money adds up, the ledger and Wave agree, and the survivor answers', async () => {
    await expectBalancedLedger(db());
    expect(await moneyMismatches(db())).toEqual({ transactions: [], payouts: [] });
    const report = await operatorGraphql(survivor, RECONCILE, {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(report.body.data.reconcileProvider.discrepancies).toEqual([]);
    await expectAnswersAgain(survivor, merchant.checkoutKey);
  });
});
