/**
 * Orange Money collection through the hosted checkout, against the Orange Money simulator: the
 * customer chooses Orange Money on the page, is sent to the QR code's Max It deep link, pays in
 * the app, and Orange's signed callback makes the transaction paid; Orange sends the customer back
 * to the gateway's return page, which sends them on to the merchant. A refusal in the app closes
 * the attempt; a payment that still comes on that QR code afterwards is not lost: recorded while
 * the order is payable, returned to the payer's wallet (a cash in) once it was paid another way.
 * After each, GraphQL reconcileProvider finds the ledger and Orange's history in agreement.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleProviderCall } from '../../../src/domain/operations.js';
import { settleOpenLateReturns } from '../../../src/domain/payments/latePayments.js';
import { startGateway, transactionBody, type TestGateway } from '../../support/gateway.js';
import { ReconcileProviderDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import { orangeMoneyProviderOf, registerOrangeMoneyCallback } from '../../support/providers/orangeMoney.js';
import { startOrangeMoneySimulator, type OrangeMoneySimulator } from '../../support/providers/orangeMoneySimulator.js';
import { eventually } from '../../support/webhookReceiver.js';

const CALLBACK_API_KEY = `om-${randomUUID()}`;
let simulator: OrangeMoneySimulator;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  simulator = await startOrangeMoneySimulator({ notificationRetryDelaysMs: [100, 300] });
  gateway = await startGateway({
    providers: {
      orange_money: orangeMoneyProviderOf(simulator, CALLBACK_API_KEY, 5_000),
    },
  });
  expect(await registerOrangeMoneyCallback(simulator, `${gateway.url}/providers/orange_money/callback`, CALLBACK_API_KEY)).toBe(201);
  key = (await gateway.merchant({ name: 'Boutique Awa' })).key;
});

afterAll(async () => {
  await gateway?.close();
  await simulator?.close();
});

const csrfOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function newTransaction(price = 2_000) {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({ method_of_payment: ['orange_money'], products: [{ name: 'Mafé', price, quantity: 1 }], fees_customer_side: false }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { orderId: created.body.order_id as string, checkoutUrl: created.body.checkout_url as string };
}

/** The customer chooses Orange Money on the page: the page links to the QR code's deep link. */
async function chooseOrangeMoney(checkoutUrl: string) {
  const page = await (await fetch(checkoutUrl)).text();
  const response = await fetch(checkoutUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: csrfOf(page), method: 'orange_money', phone: '+221770000001' }).toString(),
  });
  const html = await response.text();
  expect(response.status, html).toBe(200);
  const link = /<a class="button" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&') ?? '';
  expect(link).toMatch(/^https:\/\/sugu\.orange-sonatel\.com\/mp\//);
  const qr = simulator.qrCodes().find((code) => link.endsWith(code.qrId))!;
  expect(qr).toBeDefined();
  return qr;
}

const statusOf = async (orderId: string) => (await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } })).status;

async function expectOrangeAgrees(): Promise<void> {
  await simulator.notificationsSettled();
  const now = Date.now();
  const answer = await graphqlTyped(
    gateway,
    ReconcileProviderDocument,
    { method: 'orange_money', from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 60_000).toISOString() },
    gateway.adminToken,
  );
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  expect(answer.body.data!.reconcileProvider.discrepancies).toEqual([]);
}

describe('an Orange Money checkout', () => {
  it('sends the customer to the QR code for the amount, is paid by the signed callback, and returns them to the merchant', async () => {
    const { orderId, checkoutUrl } = await newTransaction(2_000);
    const qr = await chooseOrangeMoney(checkoutUrl);
    expect(qr).toMatchObject({ amount: 2_000, singleUse: true });
    expect(qr.callbackSuccessUrl).toMatch(new RegExp(`/checkout/${orderId}/return\\?attempt=[0-9a-f-]{36}$`));
    expect(qr.callbackCancelUrl).toBe(`${qr.callbackSuccessUrl}&outcome=error`);
    expect(qr.reference).toBe(`pay-${new URL(qr.callbackSuccessUrl!).searchParams.get('attempt')}`);
    expect(await statusOf(orderId)).toBe('pending');

    await simulator.pay(qr.qrId, '776665544');
    await eventually(async () => (await statusOf(orderId)) === 'paid', 10_000, 'the callback');
    const back = await fetch(qr.callbackSuccessUrl!, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('https://shop.example.sn/merci');
    await expectOrangeAgrees();
  });

  it('a refusal in the app closes the attempt; paying on the same code afterwards is recorded (the order was still payable)', async () => {
    const { orderId, checkoutUrl } = await newTransaction(1_500);
    const qr = await chooseOrangeMoney(checkoutUrl);
    await simulator.decline(qr.qrId);
    const attemptId = qr.reference!.slice('pay-'.length);
    await eventually(
      async () => (await gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: attemptId } })).state === 'failed',
      10_000,
      'the refusal',
    );
    const back = await fetch(qr.callbackCancelUrl!, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('https://shop.example.sn/erreur');
    expect(await statusOf(orderId)).toBe('pending');

    await simulator.pay(qr.qrId, '770009900');
    await eventually(async () => (await statusOf(orderId)) === 'paid', 10_000, 'the late payment recorded');
    await expectOrangeAgrees();
  });

  it('a payment on a closed code after the order was paid another way is returned to the payer by a cash in', async () => {
    const { orderId, checkoutUrl } = await newTransaction(1_800);
    const first = await chooseOrangeMoney(checkoutUrl);
    await simulator.decline(first.qrId);
    const firstAttempt = first.reference!.slice('pay-'.length);
    await eventually(async () => (await gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: firstAttempt } })).state === 'failed');
    const second = await chooseOrangeMoney(checkoutUrl);
    await simulator.pay(second.qrId, '771230000');
    await eventually(async () => (await statusOf(orderId)) === 'paid');

    await simulator.pay(first.qrId, '779998877');
    const returned = await eventually(
      () => simulator.transactions().find((item) => item.type === 'CASHIN' && item.reference === `refund-${firstAttempt}:return`),
      10_000,
      'the late payment returned',
    );
    expect(returned).toMatchObject({ status: 'SUCCESS', customer: { id: '779998877' }, amount: { value: 1_800 } });
    expect(await statusOf(orderId)).toBe('paid');
    await eventually(
      async () => (await gateway.ctx.db.latePayment.findFirst({ where: { attemptId: firstAttempt } }))?.outcome === 'returned',
      10_000,
      'the return settled',
    );
    await expectOrangeAgrees();
  });

  it('a return whose cash in never reached Orange is only asked about, never sent again: a cash in is not de-duplicated', async () => {
    const { orderId, checkoutUrl } = await newTransaction(1_300);
    const first = await chooseOrangeMoney(checkoutUrl);
    await simulator.decline(first.qrId);
    const firstAttempt = first.reference!.slice('pay-'.length);
    await eventually(async () => (await gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: firstAttempt } })).state === 'failed');
    const second = await chooseOrangeMoney(checkoutUrl);
    await simulator.pay(second.qrId, '771230001');
    await eventually(async () => (await statusOf(orderId)) === 'paid');

    const cashIns = simulator.calls.cashin;
    simulator.fault('cashin', { kind: 'dropRequest' });
    await simulator.pay(first.qrId, '779998878');
    const late = () => gateway.ctx.db.latePayment.findFirst({ where: { attemptId: firstAttempt } });
    await eventually(
      async () => (await late())?.outcome === 'returning' && simulator.calls.cashin === cashIns + 1,
      10_000,
      'the return sent, its cash in lost',
    );
    await settleOpenLateReturns(gateway.ctx, { olderThanMs: 0 });
    expect((await late())?.outcome).toBe('returning');
    expect(simulator.calls.cashin).toBe(cashIns + 1);
    expect(simulator.transactions().filter((item) => item.reference === `refund-${firstAttempt}:return`)).toEqual([]);
    // Left to an operator, who checks with Orange and decides (here: it never happened).
    await settleProviderCall(gateway.ctx, gateway.operator, { kind: 'late_payment_return', id: firstAttempt, outcome: 'failed' }, 'Orange has no such cash in');
    expect((await late())?.outcome).toBe('return_failed');
  });
});
