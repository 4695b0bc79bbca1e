/**
 * The gateway's books against Orange Money's records (GET /api/eWallet/v1/transactions), against
 * the Orange Money simulator: a payment is found whether Orange carries our reference in the
 * record's `reference` or only in its `metadata` (by callback and by the status question), and
 * `gateway reconcile --method orange_money` finds nothing on books that agree and each kind of
 * disagreement as itself. Money Orange moved that was not the gateway's (a payment at the merchant's
 * till, another application's QR code on the same merchant code: a record under none of our
 * references) is counted apart, never the gateway's missing ledger entry, as Wave's merchant
 * payments are; a record under one of our references that the ledger lacks is one.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleStalePaymentAttempts } from '../../../src/domain/payments/attempts.js';
import { payTransaction } from '../../../src/domain/payments/payTransaction.js';
import { runCli } from '../../support/cli.js';
import { startGateway, transactionBody, type TestGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { expectPayout, fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { orangeMoneyAccessToken, orangeMoneyProviderOf, registerOrangeMoneyCallback } from '../../support/providers/orangeMoney.js';
import { startOrangeMoneySimulator, type OrangeMoneySimulator } from '../../support/providers/orangeMoneySimulator.js';
import { eventually } from '../../support/webhookReceiver.js';

const CALLBACK_API_KEY = `om-callback-${randomUUID()}`;
let simulator: OrangeMoneySimulator;
let gateway: TestGateway;

beforeAll(async () => {
  simulator = await startOrangeMoneySimulator({ notificationRetryDelaysMs: [100] });
  const orangeMoney = orangeMoneyProviderOf(simulator, CALLBACK_API_KEY, 1_500);
  gateway = await startGateway({ providers: { orange_money: orangeMoney } });
  expect(await registerOrangeMoneyCallback(simulator, `${gateway.url}/providers/orange_money/callback`, CALLBACK_API_KEY)).toBe(201);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await simulator?.close();
});

const statusOf = async (orderId: string) => (await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } })).status;

/** A transaction whose customer is sent to Orange Money; its QR code's reference at Orange. */
async function checkout(key: string, price: number) {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({ products: [{ name: 'Thiéboudienne', price, quantity: 1 }], fees_customer_side: false }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId: string = created.body.order_id;
  expect(await payTransaction(gateway.ctx, gateway.operator, orderId, { method: 'orange_money', phone: '+221770000001' })).toMatchObject({
    outcome: 'pending',
  });
  const attempt = await gateway.ctx.db.paymentAttempt.findFirstOrThrow({ where: { transactionId: orderId }, orderBy: { createdAt: 'desc' } });
  return { orderId, orangeReference: `pay-${attempt.id}`, attempt };
}

async function reconcile(since: Date) {
  const result = await runCli(gateway, [
    'reconcile',
    '--method',
    'orange_money',
    '--from',
    since.toISOString(),
    '--to',
    new Date(Date.now() + 60_000).toISOString(),
  ]);
  expect(result.code, result.stdout).toBe(0);
  return result.json as { matched: number; discrepancies: Array<Record<string, unknown>>; outsideGateway: { count: number; amount: number } };
}

/** A QR code made on the gateway's merchant code by someone else (a till, another application), paid. */
async function paidElsewhere(reference: string, value: number) {
  const accessToken = await orangeMoneyAccessToken(simulator);
  const made = await fetch(`${simulator.url}/api/eWallet/v4/qrcode`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: simulator.merchantCode, name: 'till', amount: { unit: 'XOF', value }, validity: 60, reference }),
  });
  expect(made.status, await made.clone().text()).toBeLessThan(300);
  return simulator.pay(reference, '780000017');
}

describe('Orange Money payments carrying our reference in metadata', () => {
  it('the QR code repeats our reference in metadata, and a record carrying it only there is settled by its callback', async () => {
    const { key } = await gateway.merchant({ scope: 'checkout' });
    simulator.books.paymentReferenceIn = 'metadata';
    try {
      const { orderId, orangeReference } = await checkout(key, 2_500);
      expect(simulator.qrCodes().find((qr) => qr.reference === orangeReference)?.metadata).toEqual({ reference: orangeReference });
      const paid = await simulator.pay(orangeReference);
      expect(paid.reference).toBe('');
      expect(paid.metadata).toEqual({ reference: orangeReference });
      await eventually(async () => (await statusOf(orderId)) === 'paid', 10_000, 'the callback settling the payment');
    } finally {
      simulator.books.paymentReferenceIn = 'reference';
    }
  });

  it('and, its callback lost, by the status question (a search by reference finds nothing there)', async () => {
    const { key } = await gateway.merchant({ scope: 'checkout' });
    simulator.books.paymentReferenceIn = 'metadata';
    simulator.notifications.lose = 1;
    try {
      const { orderId, orangeReference, attempt } = await checkout(key, 3_100);
      const paid = await simulator.pay(orangeReference);
      await simulator.notificationsSettled();
      expect(await statusOf(orderId)).toBe('pending');
      await settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 });
      expect(await statusOf(orderId)).toBe('paid');
      const settled = await gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } });
      expect(settled).toMatchObject({ state: 'succeeded', providerReference: paid.transactionId });
    } finally {
      simulator.books.paymentReferenceIn = 'reference';
      simulator.notifications.lose = 0;
    }
    await expectBalancedLedger(gateway.ctx.db);
  });
});

describe('gateway reconcile --method orange_money', () => {
  it('finds nothing on agreeing books (a payment filed under metadata included), then each disagreement as itself', async () => {
    // Orange reads a period to the second (the connector widens it to whole seconds): the period
    // starts on a whole second, so the earlier tests' payments of the same second stay out of it.
    const start = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000);
    await new Promise((resolve) => setTimeout(resolve, start.getTime() - Date.now() + 5));
    const { key } = await gateway.merchant({ scope: 'checkout' });
    const pay = async (price: number) => {
      const { orderId, orangeReference } = await checkout(key, price);
      const paid = await simulator.pay(orangeReference);
      await eventually(async () => (await statusOf(orderId)) === 'paid', 10_000, 'the callback settling the payment');
      return paid;
    };
    const changed = await pay(1_000);
    const missing = await pay(1_100);
    simulator.books.paymentReferenceIn = 'metadata';
    let inMetadata: Awaited<ReturnType<typeof pay>>;
    try {
      inMetadata = await pay(1_200);
    } finally {
      simulator.books.paymentReferenceIn = 'reference';
    }
    const funded = await fundedMerchant(gateway, { balance: 100_000 });
    const payout = expectPayout(await postPayout(gateway, funded.key, payoutBody({ amount: 5_000, selected_payment_method: 'orange_money' })), 'completed');
    // Paid at the merchant's till, and through another application's QR code: not the gateway's.
    await paidElsewhere(`till-${randomUUID().slice(0, 8)}`, 700);
    await paidElsewhere(`shop-app-${randomUUID().slice(0, 8)}`, 300);
    const agreeing = await reconcile(start);
    expect(agreeing.discrepancies).toEqual([]);
    expect(agreeing.matched).toBe(4);
    expect(agreeing.outsideGateway).toEqual({ count: 2, amount: 1_000 });

    simulator.alterRecord(changed.transactionId, { amount: 1_500 });
    simulator.removeRecord(missing.transactionId);
    const cashIn = simulator.transactions().find((item) => item.reference === `payout-${payout.order_id}`)!;
    simulator.alterRecord(cashIn.transactionId, { status: 'FAILED' });
    // A payment Orange holds under one of our references that the gateway never recorded.
    const unrecorded = await paidElsewhere(`pay-${randomUUID()}`, 900);
    const report = await reconcile(start);
    expect(report.discrepancies).toHaveLength(4);
    expect(report.outsideGateway).toEqual({ count: 2, amount: 1_000 });
    expect(report.discrepancies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ issue: 'missing_in_ledger', kind: 'payment', providerReference: unrecorded.transactionId, providerAmount: 900 }),
        expect.objectContaining({ issue: 'amount_mismatch', kind: 'payment', ledgerAmount: 1_000, providerAmount: 1_500 }),
        expect.objectContaining({ issue: 'missing_at_provider', kind: 'payment', ledgerAmount: 1_100 }),
        expect.objectContaining({ issue: 'status_mismatch', kind: 'payout', reference: payout.order_id, ledgerStatus: 'succeeded', providerStatus: 'failed' }),
      ]),
    );
    // The payment filed under metadata still matches.
    expect(report.discrepancies.some((item) => item.providerReference === inMetadata.transactionId)).toBe(false);
    expect(report.matched).toBe(agreeing.matched - 3);
  });
});
