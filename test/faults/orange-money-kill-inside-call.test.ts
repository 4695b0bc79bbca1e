/**
 * kill -9 of a gateway process INSIDE an Orange Money call, at its worst moment: Orange has done it
 * (the cash in is in its books, the QR code exists) and the process dies before hearing the answer.
 * The other instance of the deployment recovers each one by asking Orange about our reference,
 * never by sending again: the payout and the refund complete exactly once, and the payment whose
 * callback can only reach the dead instance is recorded by a reconciler.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrangeMoneySimulator, type OrangeMoneySimulator } from '../support/providers/orangeMoneySimulator.js';
import { eventually } from '../support/webhookReceiver.js';
import { call, operatorGraphql, useCluster, type Instance } from '../support/faults/cluster.js';
import { expectAnswersAgain } from '../support/faults/invariants.js';
import { createTransaction, faultMerchant, type FaultMerchant } from '../support/faults/money.js';
import { expectBalancedLedger, moneyMismatches } from '../support/ledger.js';

const SETTLED_WITHIN_MS = 20_000;
/** A fresh process's first provider call (token, then the call) on a loaded 2-core machine. */
const CALL_REACHES_WITHIN_MS = 20_000;
const CALLBACK_API_KEY = `om-${randomUUID()}`;
const PAY = `mutation($orderId: ID!, $phone: String) {
  sandboxPay(orderId: $orderId, method: orange_money, phone: $phone) { outcome }
}`;

const cluster = useCluster();
let simulator: OrangeMoneySimulator;
let env: Record<string, string>;
let survivor: Instance;
let merchant: FaultMerchant;

beforeAll(async () => {
  simulator = await startOrangeMoneySimulator({ notificationRetryDelaysMs: [200, 400] });
  env = {
    ORANGE_MONEY_CLIENT_ID: simulator.clientId,
    ORANGE_MONEY_CLIENT_SECRET: simulator.clientSecret,
    ORANGE_MONEY_API_URL: simulator.url,
    ORANGE_MONEY_MERCHANT_CODE: simulator.merchantCode,
    ORANGE_MONEY_PARTNER_MSISDN: simulator.partnerMsisdn,
    ORANGE_MONEY_PARTNER_PIN: simulator.partnerPin,
    ORANGE_MONEY_WEBHOOK_SECRET: simulator.webhookSecret,
    ORANGE_MONEY_CALLBACK_API_KEY: CALLBACK_API_KEY,
  };
  survivor = await cluster.start('survivor', { env });
  merchant = await faultMerchant(cluster.gateway);
}, 90_000);

afterAll(async () => {
  await simulator?.close();
});

const db = () => cluster.gateway.ctx.db;

/** A victim instance, the request sent to it, and its death once Orange has received the call. */
async function killDuringCall(name: string, route: 'cashin' | 'qrcode', send: (victim: Instance) => Promise<unknown>): Promise<void> {
  const victim = await cluster.start(name, { env });
  simulator.fault(route, { kind: 'hang' });
  const before = simulator.calls[route];
  const request = send(victim);
  // The request must not be answered before its call reaches Orange (it hangs there): an answer
  // first fails the test with that answer, instead of a bare timeout that hides why.
  const answeredFirst = request.then((answer) => {
    if (simulator.calls[route] <= before) throw new Error(`answered before the ${route} call reached Orange: ${JSON.stringify(answer)}`);
  });
  await Promise.race([eventually(() => simulator.calls[route] > before, CALL_REACHES_WITHIN_MS, `the ${route} call reaching Orange`), answeredFirst]);
  await cluster.kill(victim);
  await answeredFirst;
}

describe('kill -9 inside an Orange Money call', () => {
  it('a payout: Orange paid it, the process died; the other instance completes it by asking, sent once', async () => {
    await killDuringCall('payout-victim', 'cashin', (victim) =>
      call(victim, 'POST', '/api/v2/payouts', {
        key: merchant.payoutKey,
        body: {
          selected_payment_method: 'orange_money',
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
    expect(simulator.cashinCalls(`payout-${payout.id}`)).toBe(1);
  });

  it('a payment: the QR code was made, the process died; the customer pays and the survivor records it', async () => {
    const created = await createTransaction(survivor, merchant.checkoutKey, 2_500);
    const orderId: string = created.body.order_id;
    await killDuringCall('collect-victim', 'qrcode', (victim) => operatorGraphql(victim, PAY, { orderId, phone: '+221770000001' }, 30_000));
    const qr = simulator.qrCodes().at(-1)!;
    // The callback goes to the dead instance (its X-Callback-Url): only a question can settle it.
    await simulator.pay(qr.qrId, '771234000');
    await eventually(
      async () => (await db().transaction.findUniqueOrThrow({ where: { id: orderId } })).status === 'paid',
      SETTLED_WITHIN_MS,
      'the survivor recording the payment',
    );
  });

  it('a refund: Orange returned the money, the process died; the survivor settles it by asking, sent once', async () => {
    const [paid] = await db().transaction.findMany({ where: { organizationId: merchant.organizationId, status: 'paid' } });
    await killDuringCall('refund-victim', 'cashin', (victim) =>
      call(victim, 'GET', `/api/v2/refund/${paid!.id}`, { key: merchant.checkoutKey, timeoutMs: 30_000 }),
    );
    const refund = await db().refund.findUniqueOrThrow({ where: { transactionId: paid!.id } });
    await eventually(
      async () => (await db().refund.findUniqueOrThrow({ where: { id: refund.id } })).status === 'succeeded',
      SETTLED_WITHIN_MS,
      'the survivor settling the refund',
    );
    expect(simulator.cashinCalls(`refund-${refund.id}`)).toBe(1);
    expect((await db().transaction.findUniqueOrThrow({ where: { id: paid!.id } })).status).toBe('refunded');
  });

  it('the money adds up and the survivor answers', async () => {
    await expectBalancedLedger(db());
    expect(await moneyMismatches(db())).toEqual({ transactions: [], payouts: [] });
    await expectAnswersAgain(survivor, merchant.checkoutKey);
  });
});
