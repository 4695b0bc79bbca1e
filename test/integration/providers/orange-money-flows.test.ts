/**
 * The gateway's money flows with Orange Money behind the one provider flow, against the Orange
 * Money simulator over real HTTP, on PostgreSQL: a checkout paid in the Orange Money app and
 * confirmed by its signed callback (at the gateway's /providers/orange_money/callback), a refund
 * (a cash in to the wallet that paid), payouts below and above the review threshold, a lost
 * notification and a provider timeout, each settled by asking, never by sending again. At the end
 * the ledger and the simulator's own books agree, operation by operation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePayout } from '../../../src/domain/payouts/approvePayout.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { settleStalePaymentAttempts } from '../../../src/domain/payments/attempts.js';
import { payTransaction } from '../../../src/domain/payments/payTransaction.js';
import { settlePendingRefunds } from '../../../src/domain/refunds/refunds.js';
import { reconcileProvider } from '../../../src/domain/reconciliation/reconcileProvider.js';
import { startGateway, transactionBody, type TestGateway } from '../../support/gateway.js';
import { expectBalancedLedger, moneyMismatches } from '../../support/ledger.js';
import { fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { orangeMoneyProviderOf, registerOrangeMoneyCallback } from '../../support/providers/orangeMoney.js';
import { startOrangeMoneySimulator, type OrangeMoneySimulator } from '../../support/providers/orangeMoneySimulator.js';
import { eventually } from '../../support/webhookReceiver.js';

const CALLBACK_API_KEY = `om-callback-${randomUUID()}`;

let simulator: OrangeMoneySimulator;
let gateway: TestGateway;

beforeAll(async () => {
  simulator = await startOrangeMoneySimulator({ notificationRetryDelaysMs: [100, 300] });
  // A short call deadline, so that a hung cash in is a timeout well inside the provider flow's own deadline.
  const orangeMoney = orangeMoneyProviderOf(simulator, CALLBACK_API_KEY, 1_500);
  gateway = await startGateway({ providers: { orange_money: orangeMoney } });
  expect(await registerOrangeMoneyCallback(simulator, `${gateway.url}/providers/orange_money/callback`, CALLBACK_API_KEY)).toBe(201);
});

afterAll(async () => {
  await gateway?.close();
  await simulator?.close();
});

const statusOf = async (orderId: string) => (await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } })).status;

/** A transaction the customer is sent to Orange Money for; returns it and its QR code's reference. */
async function checkout(key: string, price: number, phone = '+221770000001') {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({ products: [{ name: 'Thiéboudienne', price, quantity: 1 }], fees_customer_side: false }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId: string = created.body.order_id;
  const result = await payTransaction(gateway.ctx, gateway.operator, orderId, { method: 'orange_money', phone });
  expect(result).toMatchObject({ outcome: 'pending' });
  expect((result as { redirectUrl?: string }).redirectUrl).toMatch(/^https:\/\/sugu\.orange-sonatel\.com\/mp\//);
  const attempt = await gateway.ctx.db.paymentAttempt.findFirstOrThrow({ where: { transactionId: orderId }, orderBy: { createdAt: 'desc' } });
  return { orderId, orangeReference: `pay-${attempt.id}`, attempt };
}

describe('Orange Money behind the provider flow', () => {
  let merchantKey: string;
  let paidOrder: string;
  const payer = '776665544';

  beforeAll(async () => {
    merchantKey = (await gateway.merchant({ scope: 'checkout' })).key;
  });

  it('checkout: the QR code is paid in the app and the signed callback marks the transaction paid', async () => {
    const { orderId, orangeReference, attempt } = await checkout(merchantKey, 3_000);
    expect(attempt).toMatchObject({ state: 'collecting', amount: 3_000n });
    expect(await statusOf(orderId)).toBe('pending');
    const paid = await simulator.pay(orangeReference, payer);
    await eventually(async () => (await statusOf(orderId)) === 'paid', 10_000, 'the callback settling the payment');
    const settled = await gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } });
    expect(settled).toMatchObject({ state: 'succeeded', providerReference: paid.transactionId });
    // The payment can be settled before the simulator has read the callback's answer: wait for it.
    await simulator.notificationsSettled();
    const delivered = simulator.sentNotifications().filter((item) => item.body.includes(paid.transactionId));
    expect(delivered.map((item) => item.answeredStatus)).toEqual([200]);
    paidOrder = orderId;
  });

  it('a duplicated and replayed callback changes nothing', async () => {
    const [paid] = simulator.transactions().filter((item) => item.type === 'MERCHANT_PAYMENT' && item.customer.id === payer);
    const entriesBefore = await gateway.ctx.db.ledgerEntry.count({ where: { transactionId: paidOrder } });
    await simulator.redeliver(paid!.transactionId);
    await simulator.redeliver(paid!.transactionId);
    expect(await gateway.ctx.db.ledgerEntry.count({ where: { transactionId: paidOrder } })).toBe(entriesBefore);
    expect(await statusOf(paidOrder)).toBe('paid');
  });

  it('a forged callback is refused with 401 and settles nothing', async () => {
    const { orderId, orangeReference } = await checkout(merchantKey, 1_200);
    const forged = JSON.stringify({
      transactionId: 'MP-FORGED',
      reference: orangeReference,
      type: 'MERCHANT_PAYMENT',
      status: 'SUCCESS',
      amount: { value: 1_200, unit: 'XOF' },
    });
    const answer = await fetch(`${gateway.url}/providers/orange_money/callback`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-sonatel-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
        authorization: `Basic ${CALLBACK_API_KEY}`,
      },
      body: forged,
    });
    expect(answer.status).toBe(401);
    expect(await statusOf(orderId)).toBe('pending');
    // The customer never pays: the attempt is left for the reconciler, which finds nothing to settle yet.
  });

  it('a lost notification: the reconciler asks Orange Money and records the payment', async () => {
    const { orderId, orangeReference } = await checkout(merchantKey, 4_500);
    simulator.notifications.lose = 1;
    await simulator.pay(orangeReference, '770000777');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await statusOf(orderId)).toBe('pending');
    await settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 });
    expect(await statusOf(orderId)).toBe('paid');
  });

  it('an abandoned QR code: open while payable, closed unconfirmed once expired, and the customer may pay again', async () => {
    const { orderId, attempt } = await checkout(merchantKey, 1_100);
    await settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 });
    expect((await gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } })).state).toBe('collecting');
    // Eleven minutes later (validity 600 s + 60 s grace): Orange still has no payment for it.
    await gateway.ctx.db.paymentAttempt.update({
      where: { id: attempt.id },
      data: { createdAt: new Date(Date.now() - 11 * 60_000), nextProviderCheckAt: null },
    });
    await settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 });
    const closed = await gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } });
    expect(closed.state).toBe('unconfirmed');
    expect(closed.reason).toBe('the Orange Money QR code expired unpaid');
    const again = await payTransaction(gateway.ctx, gateway.operator, orderId, { method: 'orange_money', phone: '+221770000001' });
    expect(again).toMatchObject({ outcome: 'pending' });
  });

  it('refund: a cash in of the amount to the wallet that paid, sent once', async () => {
    const refunded = await gateway.rest('GET', `/api/v2/refund/${paidOrder}`, { key: merchantKey });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    expect(await statusOf(paidOrder)).toBe('refunded');
    const refund = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: paidOrder } });
    expect(refund).toMatchObject({ status: 'succeeded', amount: 3_000n });
    const cashIns = simulator.transactions().filter((item) => item.reference === `refund-${refund.id}`);
    expect(cashIns).toEqual([
      expect.objectContaining({ type: 'CASHIN', status: 'SUCCESS', amount: { value: 3_000, unit: 'XOF' }, customer: { idType: 'MSISDN', id: payer } }),
    ]);
    expect(simulator.cashinCalls(`refund-${refund.id}`)).toBe(1);
  });

  it('a refund whose answer is lost stays open and is settled by asking, not by sending again', async () => {
    const { orderId, orangeReference } = await checkout(merchantKey, 2_200);
    await simulator.pay(orangeReference, '770001234');
    await eventually(async () => (await statusOf(orderId)) === 'paid');
    simulator.fault('cashin', { kind: 'dropAnswer' });
    // Its callback lost too (else it settles the refund first): only a question can tell.
    simulator.notifications.lose = 1;
    const answer = await gateway.rest('GET', `/api/v2/refund/${orderId}`, { key: merchantKey });
    expect(answer.status).not.toBe(200);
    const refund = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(refund.status).toBe('pending');
    await settlePendingRefunds(gateway.ctx, { olderThanMs: 0 });
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { id: refund.id } })).toMatchObject({ status: 'succeeded' });
    expect(await statusOf(orderId)).toBe('refunded');
    expect(simulator.cashinCalls(`refund-${refund.id}`)).toBe(1);
  });
});

describe('Orange Money payouts', () => {
  it('refused by Orange (code 2000, no such account): failed with its reason, amount and fees back in main, sent once', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 1_000_000 });
    simulator.unknownWallet('771119999');
    const refused = await postPayout(
      gateway,
      key,
      payoutBody({ selected_payment_method: 'orange_money', amount: 12_000, recipient: { first_name: 'Ndeye', last_name: 'Diop', phone: '+221771119999' } }),
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(500);
    expect(refused.body.error).toMatch(/^Failed to withdraw.*Reason: orange money: there is no Orange Money account for this mobile number\.$/);
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    expect(payout.status).toBe('failed');
    expect(payout.failureReason).toBe('orange money: there is no Orange Money account for this mobile number');
    // REST reads carry it as the extension field failure_reason (only on a failed payout with a reason).
    const read = await gateway.rest('GET', `/api/v2/payouts/${payout.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.failure_reason).toBe('orange money: there is no Orange Money account for this mobile number');
    const listed = await gateway.rest('GET', '/api/v2/payouts', { key });
    expect(listed.body.payouts[0].failure_reason).toBe(read.body.failure_reason);
    const main = await gateway.ctx.db.account.findFirstOrThrow({ where: { organizationId: organization.id, name: 'main' } });
    expect(main.balance).toBe(1_000_000n);
    expect(simulator.cashinCalls(`payout-${payout.id}`)).toBe(1);
  });

  it('below the review threshold: sent at once as a cash in, completed', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 1_000_000 });
    const created = await postPayout(
      gateway,
      key,
      payoutBody({ selected_payment_method: 'orange_money', amount: 25_000, recipient: { first_name: 'Fatou', last_name: 'Sow', phone: '+221771112233' } }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    expect(payout.status).toBe('completed');
    expect(simulator.transactions().filter((item) => item.reference === `payout-${payout.id}`)).toEqual([
      expect.objectContaining({
        type: 'CASHIN',
        status: 'SUCCESS',
        amount: { value: 25_000, unit: 'XOF' },
        customer: { idType: 'MSISDN', id: '771112233' },
        transactionId: payout.providerReference,
      }),
    ]);
  });

  it('above the review threshold: nothing is sent until an operator approves, then once', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 3_000_000 });
    const created = await postPayout(
      gateway,
      key,
      payoutBody({
        selected_payment_method: 'orange_money',
        amount: 2_500_000,
        recipient: { first_name: 'Ibrahima', last_name: 'Fall', phone: '+221772223344' },
      }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    expect(payout).toMatchObject({ status: 'pending', sentAt: null });
    expect(simulator.cashinCalls(`payout-${payout.id}`)).toBe(0);
    const approved = await approvePayout(gateway.ctx, gateway.operator, payout.id);
    expect(approved.status).toBe('completed');
    expect(simulator.cashinCalls(`payout-${payout.id}`)).toBe(1);
  });

  it('a provider timeout leaves the payout open; the reconciler finds it done at Orange Money and never sends it again', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 500_000 });
    simulator.fault('cashin', { kind: 'hang' });
    simulator.notifications.lose = 1;
    const created = await postPayout(
      gateway,
      key,
      payoutBody({ selected_payment_method: 'orange_money', amount: 40_000, recipient: { first_name: 'Awa', last_name: 'Ba', phone: '+221773334455' } }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    expect(payout.status).toBe('pending');
    expect(payout.sentAt).not.toBeNull();
    await settlePendingPayouts(gateway.ctx, { olderThanMs: 0 });
    expect(await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.id } })).toMatchObject({ status: 'completed' });
    expect(simulator.cashinCalls(`payout-${payout.id}`)).toBe(1);
  });

  it("a timed-out payout is settled by Orange Money's callback when it comes, still sent once", async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 500_000 });
    simulator.fault('cashin', { kind: 'hang' });
    await postPayout(
      gateway,
      key,
      payoutBody({ selected_payment_method: 'orange_money', amount: 15_000, recipient: { first_name: 'Awa', last_name: 'Ba', phone: '+221773334456' } }),
    );
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    await eventually(
      async () => (await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.id } })).status === 'completed',
      10_000,
      'the cash-in callback',
    );
    expect(simulator.cashinCalls(`payout-${payout.id}`)).toBe(1);
  });

  it('a wallet that cannot receive: the payout fails and the merchant is paid back', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    simulator.blockWallet('774445566');
    const created = await postPayout(
      gateway,
      key,
      payoutBody({ selected_payment_method: 'orange_money', amount: 10_000, recipient: { first_name: 'Ndeye', last_name: 'Diouf', phone: '+221774445566' } }),
    );
    expect(created.status).toBe(500);
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    expect(payout.status).toBe('failed');
    const main = await gateway.ctx.db.account.findUniqueOrThrow({ where: { organizationId_name: { organizationId: organization.id, name: 'main' } } });
    expect(main.balance).toBe(100_000n);
  });
});

describe('the ledger and Orange Money agree', () => {
  it("every payment, refund and payout the gateway recorded is in the simulator's books with the same amount, and nothing else is", async () => {
    await simulator.notificationsSettled();
    await expectBalancedLedger(gateway.ctx.db);
    expect(await moneyMismatches(gateway.ctx.db)).toEqual({ transactions: [], payouts: [] });
    const books = simulator.transactions().filter((item) => item.status === 'SUCCESS');
    const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);
    const orange = (prefix: string) =>
      new Map(books.filter((item) => item.reference.startsWith(prefix)).map((item) => [item.reference.slice(prefix.length), BigInt(item.amount.value)]));

    const attempts = await gateway.ctx.db.paymentAttempt.findMany({ where: { method: 'orange_money', state: 'succeeded' } });
    expect(orange('pay-')).toEqual(new Map(attempts.map((attempt) => [attempt.id, attempt.amount])));
    const refunds = await gateway.ctx.db.refund.findMany({ where: { method: 'orange_money', status: 'succeeded' } });
    expect(orange('refund-')).toEqual(new Map(refunds.map((refund) => [refund.id, refund.amount])));
    const payouts = await gateway.ctx.db.payout.findMany({ where: { selectedPaymentMethod: 'orange_money', status: 'completed' } });
    expect(orange('payout-')).toEqual(new Map(payouts.map((payout) => [payout.id, payout.amount])));
    expect(sum([...orange('payout-').values()])).toBe(25_000n + 2_500_000n + 40_000n + 15_000n);
  });

  it("reconcileProvider compares the ledger with Orange Money's history: nothing differs, and a payment made elsewhere is counted apart", async () => {
    const period = { method: 'orange_money', from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) };
    const clean = await reconcileProvider(gateway.ctx, gateway.operator, period);
    expect(clean.discrepancies).toEqual([]);
    expect(clean.matched).toBeGreaterThanOrEqual(9);
    // A payment on the same merchant code that the gateway never asked for (a till, another app).
    const token = await fetch(`${simulator.url}/oauth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: simulator.clientId, client_secret: simulator.clientSecret }),
    });
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    await fetch(`${simulator.url}/api/eWallet/v4/qrcode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code: simulator.merchantCode, name: 'till', amount: { unit: 'XOF', value: 700 }, validity: 60, reference: 'till-7' }),
    });
    await simulator.pay('till-7');
    const report = await reconcileProvider(gateway.ctx, gateway.operator, period);
    // Not the gateway's payment: no difference of the gateway's books, money moved outside it.
    expect(report.discrepancies).toEqual([]);
    expect(report.outsideGateway).toEqual({ count: clean.outsideGateway.count + 1, amount: clean.outsideGateway.amount + 700n });
  });
});
