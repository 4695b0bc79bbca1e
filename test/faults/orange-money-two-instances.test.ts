/**
 * Orange Money end to end: two gateway processes (dist/main.js) of one deployment on one
 * PostgreSQL, configured only by ORANGE_MONEY_* variables pointing at the Orange Money simulator.
 * A payment started on one instance is confirmed by the callback Orange sends to the instance that
 * made the QR code; a payment whose callback is lost, a refund, payouts below and above the review
 * threshold (approved on the other instance) and a payout whose answer never comes are settled by
 * the instances' reconcilers asking Orange, never by sending again. The ledger and the simulator's
 * books agree at the end, and the sandbox still serves Wave.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOrangeMoneyCallback } from '../support/providers/orangeMoney.js';
import { startOrangeMoneySimulator, type OrangeMoneySimulator } from '../support/providers/orangeMoneySimulator.js';
import { eventually } from '../support/webhookReceiver.js';
import { call, FAULT_ADMIN_TOKEN, operatorGraphql, useCluster, type Instance } from '../support/faults/cluster.js';
import { runCli } from '../support/cli.js';
import type { TestGateway } from '../support/gateway.js';
import { waitUntilReconciled } from '../support/faults/invariants.js';
import { expectBalancedLedger, moneyMismatches } from '../support/ledger.js';
import { createTransaction, faultMerchant, paidOn, type FaultMerchant } from '../support/faults/money.js';

const CALLBACK_API_KEY = `om-${randomUUID()}`;
/** The instances' reconcilers ask after RECONCILE_AFTER_MS (1.5 s) every 300 ms (FAULT_ENV); room for backoff. */
const SETTLED_WITHIN_MS = 20_000;

const cluster = useCluster();
let simulator: OrangeMoneySimulator;
let a: Instance;
let b: Instance;
let merchant: FaultMerchant;

const PAY = `mutation($orderId: ID!, $phone: String) {
  sandboxPay(orderId: $orderId, method: orange_money, phone: $phone) { outcome reason transaction { orderId status } }
}`;
const APPROVE = `mutation($orderId: ID!) { approvePayout(orderId: $orderId) { status } }`;

beforeAll(async () => {
  simulator = await startOrangeMoneySimulator({ notificationRetryDelaysMs: [200, 500, 1_000] });
  const env = {
    ORANGE_MONEY_CLIENT_ID: simulator.clientId,
    ORANGE_MONEY_CLIENT_SECRET: simulator.clientSecret,
    ORANGE_MONEY_API_URL: simulator.url,
    ORANGE_MONEY_MERCHANT_CODE: simulator.merchantCode,
    ORANGE_MONEY_MERCHANT_NAME: 'Boutique Awa',
    ORANGE_MONEY_PARTNER_MSISDN: simulator.partnerMsisdn,
    ORANGE_MONEY_PARTNER_PIN: simulator.partnerPin,
    ORANGE_MONEY_WEBHOOK_SECRET: simulator.webhookSecret,
    ORANGE_MONEY_CALLBACK_API_KEY: CALLBACK_API_KEY,
    ORANGE_MONEY_TIMEOUT_MS: '1000',
  };
  [a, b] = await Promise.all([cluster.start('a', { env }), cluster.start('b', { env })]);
  // The operator's one-time step: Orange sends cash-in callbacks to the registered URL (instance a).
  expect(await registerOrangeMoneyCallback(simulator, `${a.url}/providers/orange_money/callback`, CALLBACK_API_KEY)).toBe(201);
  merchant = await faultMerchant(cluster.gateway);
}, 90_000);

afterAll(async () => {
  await simulator?.close();
});

const db = () => cluster.gateway.ctx.db;
const statusOf = async (orderId: string) => (await db().transaction.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } })).status;

/** A transaction created on `instance` and sent to Orange Money there; returns it and its QR code's reference. */
async function startPayment(instance: Instance, price: number) {
  const created = await createTransaction(instance, merchant.checkoutKey, price);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId: string = created.body.order_id;
  const started = await operatorGraphql(instance, PAY, { orderId, phone: '+221770000001' });
  expect(started.body?.data?.sandboxPay?.outcome, JSON.stringify(started.body)).toBe('pending');
  const attempt = await db().paymentAttempt.findFirstOrThrow({ where: { transactionId: orderId }, orderBy: { createdAt: 'desc' } });
  return { orderId, orangeReference: `pay-${attempt.id}` };
}

const payoutOn = (instance: Instance, amount: number, phone: string) =>
  call(instance, 'POST', '/api/v2/payouts', {
    key: merchant.payoutKey,
    body: { selected_payment_method: 'orange_money', amount, recipient: { first_name: 'Fatou', last_name: 'Sow', phone }, reason: 'supplier' },
  });

describe('Orange Money on two instances, configured by the environment', () => {
  const paid: string[] = [];

  it('a payment started on b is confirmed by the signed callback Orange sends to b', async () => {
    const { orderId, orangeReference } = await startPayment(b, 3_000);
    await simulator.pay(orangeReference, '776665544');
    await eventually(async () => (await statusOf(orderId)) === 'paid', 20_000, 'the callback settling the payment');
    await simulator.notificationsSettled();
    const toB = simulator.sentNotifications().filter((sent) => sent.url.startsWith(b.url));
    expect(
      toB.map((sent) => sent.answeredStatus),
      JSON.stringify(toB),
    ).toContain(200);
    paid.push(orderId);
  });

  it('a payment whose callback is lost is recorded by a reconciler asking Orange', async () => {
    const { orderId, orangeReference } = await startPayment(a, 2_000);
    simulator.notifications.lose = 1;
    await simulator.pay(orangeReference, '770001122');
    await eventually(async () => (await statusOf(orderId)) === 'paid', SETTLED_WITHIN_MS, 'a reconciler settling the payment');
  });

  it('a refund on a is a cash in to the wallet that paid', async () => {
    const refunded = await call(a, 'GET', `/api/v2/refund/${paid[0]}`, { key: merchant.checkoutKey });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    const refund = await db().refund.findUniqueOrThrow({ where: { transactionId: paid[0]! } });
    expect(simulator.transactions().filter((item) => item.reference === `refund-${refund.id}`)).toEqual([
      expect.objectContaining({ status: 'SUCCESS', customer: { idType: 'MSISDN', id: '776665544' }, amount: { value: 3_000, unit: 'XOF' } }),
    ]);
  });

  it('payouts: below the threshold at once; above it only once approved on the other instance', async () => {
    const small = await payoutOn(a, 30_000, '+221771112233');
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    const large = await payoutOn(b, 2_100_000, '+221772223344');
    expect(large.status, JSON.stringify(large.body)).toBe(200);
    const pending = await db().payout.findFirstOrThrow({ where: { organizationId: merchant.organizationId, amount: 2_100_000n } });
    expect(simulator.cashinCalls(`payout-${pending.id}`)).toBe(0);
    const approved = await operatorGraphql(a, APPROVE, { orderId: pending.id });
    expect(approved.body?.data?.approvePayout?.status, JSON.stringify(approved.body)).toBe('completed');
    expect(simulator.cashinCalls(`payout-${pending.id}`)).toBe(1);
  });

  it('a payout whose answer never comes stays open and a reconciler completes it, sent once', async () => {
    simulator.fault('cashin', { kind: 'hang' });
    simulator.notifications.lose = 1;
    const answer = await payoutOn(b, 45_000, '+221773334455');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const payout = await db().payout.findFirstOrThrow({ where: { organizationId: merchant.organizationId, amount: 45_000n } });
    await eventually(
      async () => (await db().payout.findUniqueOrThrow({ where: { id: payout.id } })).status === 'completed',
      SETTLED_WITHIN_MS,
      'a reconciler completing the payout',
    );
    expect(simulator.cashinCalls(`payout-${payout.id}`)).toBe(1);
  });

  it('the sandbox still serves Wave next to Orange Money', async () => {
    expect(await statusOf(await paidOn(a, merchant.checkoutKey, 1_000))).toBe('paid');
  });

  it("the ledger and the simulator's books agree", async () => {
    await simulator.notificationsSettled();
    // The fault suite's invariants, but against Orange's books (the sandbox's hold only Wave's).
    expect(await waitUntilReconciled(db(), SETTLED_WITHIN_MS)).toEqual([]);
    await expectBalancedLedger(db());
    expect(await moneyMismatches(db())).toEqual({ transactions: [], payouts: [] });
    const books = (prefix: string) =>
      new Map(
        simulator
          .transactions()
          .filter((item) => item.status === 'SUCCESS' && item.reference.startsWith(prefix))
          .map((item) => [item.reference.slice(prefix.length), BigInt(item.amount.value)]),
      );
    const attempts = await db().paymentAttempt.findMany({ where: { method: 'orange_money', state: 'succeeded' } });
    expect(books('pay-')).toEqual(new Map(attempts.map((attempt) => [attempt.id, attempt.amount])));
    const refunds = await db().refund.findMany({ where: { method: 'orange_money', status: 'succeeded' } });
    expect(books('refund-')).toEqual(new Map(refunds.map((refund) => [refund.id, refund.amount])));
    const payouts = await db().payout.findMany({ where: { selectedPaymentMethod: 'orange_money', status: 'completed' } });
    expect(books('payout-')).toEqual(new Map(payouts.map((payout) => [payout.id, payout.amount])));
    expect(payouts).toHaveLength(3);
  });

  it("`gateway reconcile --method orange_money` finds the ledger and Orange's history alike", async () => {
    const report = await runCli({ url: b.url, adminToken: FAULT_ADMIN_TOKEN } as TestGateway, [
      'reconcile',
      '--method',
      'orange_money',
      '--from',
      new Date(Date.now() - 3_600_000).toISOString(),
      '--to',
      new Date(Date.now() + 60_000).toISOString(),
    ]);
    expect(report.code, report.stdout).toBe(0);
    // Two payments, one refund (filed under its payment), three payouts.
    expect(report.json).toMatchObject({ matched: 6, discrepancies: [] });
  });
});
