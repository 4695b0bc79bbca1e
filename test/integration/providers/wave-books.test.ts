/**
 * The gateway's books against Wave's, as Wave's Balance & Reconciliation API keeps them
 * (https://docs.wave.com/balance-api): checkout payments are `api_checkout` lines net of Wave's fee
 * (gross = amount + fee), refunds `api_checkout_refund`, payouts `api_payout` /
 * `api_payout_reversal`, payments to the QR code `merchant_payment`, the history paged. Through
 * `gateway reconcile --method wave` (the CLI, over GraphQL): agreeing books show no difference,
 * and each kind of disagreement shows as itself and nothing else. Also: a refund whose answer was
 * lost is confirmed by its `api_checkout_refund` line, and a cancel of a transaction whose Wave
 * session is open expires the session first.
 */
import { describe, expect, it } from 'vitest';
import { adjustAccount } from '../../../src/domain/operations.js';
import { settleStalePaymentAttempts } from '../../../src/domain/payments/attempts.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { settlePendingRefunds } from '../../../src/domain/refunds/refunds.js';
import { runCli } from '../../support/cli.js';
import { MerchantCancelTransactionDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { expectPayout, fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { startWaveCheckout, useWaveGateway, waveTransaction } from '../../support/providers/wave.js';

const setup = useWaveGateway();

interface Report {
  matched: number;
  discrepancyCount: number;
  discrepancies: Array<Record<string, unknown>>;
  providerFees: number;
  outsideGateway: { count: number; amount: number };
}

/** `gateway reconcile --method wave --from <since> --to <in a minute>`, as an operator runs it. */
async function reconcile(since: Date): Promise<Report> {
  const result = await runCli(setup.gateway, [
    'reconcile',
    '--method',
    'wave',
    '--from',
    since.toISOString(),
    '--to',
    new Date(Date.now() + 60_000).toISOString(),
  ]);
  expect(result.code, result.stdout).toBe(0);
  return result.json;
}

/** A merchant paid once through Wave's checkout (merchant-side fees: Wave refunds what it collected). */
async function paidWithWave(merchant?: { key: string; organization: { id: string } }) {
  const paying = merchant ?? (await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' }));
  const { orderId, checkoutUrl } = await waveTransaction(setup.gateway, paying.key, { fees_customer_side: false });
  const { session } = await startWaveCheckout(setup, checkoutUrl);
  await setup.wave.completeSession(session.id);
  const read = async () => (await setup.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key: paying.key })).body;
  expect((await read()).transaction_status).toBe('paid');
  const line = setup.wave.linesOf(session.client_reference!).find((item) => item.transaction_type === 'api_checkout')!;
  return { ...paying, orderId, session, read, line };
}

/** Now: what each test reconciles starts here (the file's tests share one gateway and one Wave). */
const since = () => new Date();

describe('gateway reconcile --method wave', () => {
  it('finds nothing on books that agree: payment net of fee, refund, payout, reversed payout, over several pages; fees reported, QR payments counted apart', async () => {
    const start = since();
    const merchant = await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' });
    const paid = await paidWithWave(merchant);
    // Wave's line is the balance change, its fee apart (1 % here): gross = amount + fee.
    expect(BigInt(paid.line.amount) + BigInt(paid.line.fee)).toBe(BigInt(paid.session.amount));
    expect(BigInt(paid.line.fee)).toBeGreaterThan(0n);
    expect(paid.line.checkout_api_session_id).toBe(paid.session.id);
    await adjustAccount(setup.gateway.ctx, setup.gateway.operator, { organizationId: merchant.organization.id, amount: 1_000, reason: 'cover the refund' });
    expect((await setup.gateway.rest('GET', `/api/v2/refund/${paid.orderId}`, { key: merchant.key })).status).toBe(200);
    expect(setup.wave.linesOf(paid.session.id).map((line) => line.transaction_type)).toEqual(['api_checkout', 'api_checkout_refund']);

    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 10_000 })), 'completed');
    // A payout Wave takes, then reverses before it completes: failed here, api_payout + api_payout_reversal there.
    setup.wave.payoutsStayProcessing = true;
    let reversed: { order_id: string };
    try {
      reversed = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 4_000 })), 'pending');
    } finally {
      setup.wave.payoutsStayProcessing = false;
    }
    const atWave = [...setup.wave.payouts.values()].find((payout) => payout.client_reference === reversed.order_id)!;
    setup.wave.settlePayout(atWave.id, 'failed');
    await settlePendingPayouts(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await setup.gateway.rest('GET', `/api/v2/payouts/${reversed.order_id}`, { key })).body.payout_status).toBe('failed');
    // Paid to the merchant's QR code: Wave's, not the gateway's.
    setup.wave.bookMerchantPayment(5_000n);

    setup.wave.historyPageSize = 2;
    const pagesBefore = setup.wave.calls.filter((call) => call.path.startsWith('/v1/transactions?')).length;
    let report: Report;
    try {
      report = await reconcile(start);
    } finally {
      setup.wave.historyPageSize = 100;
    }
    expect(report.discrepancies).toEqual([]);
    expect(report.matched).toBe(3);
    const lines = setup.wave.history.filter((line) => Date.parse(line.timestamp) >= start.getTime() && line.transaction_type !== 'merchant_payment');
    expect(lines.map((line) => line.transaction_type).sort()).toEqual([
      'api_checkout',
      'api_checkout_refund',
      'api_payout',
      'api_payout',
      'api_payout_reversal',
    ]);
    expect(report.providerFees).toBe(lines.reduce((sum, line) => sum + Number(line.fee), 0));
    expect(report.outsideGateway).toEqual({ count: 1, amount: 5_000 });
    // Six lines at two a page: the cursor was followed.
    const pages = setup.wave.calls.filter((call) => call.path.startsWith('/v1/transactions?')).slice(pagesBefore);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.some((call) => call.path.includes('after='))).toBe(true);
    await expectBalancedLedger(setup.gateway.ctx.db);
    // The file's first checkout, refund, payout and CLI run each load their modules once: slow on a loaded machine.
  }, 60_000);

  it('lists each disagreement as itself and nothing else: a payment Wave has and the gateway not, an amount changed at Wave, a missing line, a reversed payout', async () => {
    const start = since();
    const merchant = await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' });
    const changed = await paidWithWave(merchant);
    const missing = await paidWithWave(merchant);
    const withoutReference = await paidWithWave(merchant);
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    const payout = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 6_000 })), 'completed');
    const agreeing = await reconcile(start);
    expect(agreeing.discrepancies).toEqual([]);

    const foreign = setup.wave.bookForeignCheckout(7_000n, 'not-the-gateways');
    setup.wave.changeLineAmount(changed.line.transaction_id, BigInt(changed.session.amount) + 500n);
    setup.wave.removeLine(missing.line.transaction_id);
    // A line naming only its session (no client_reference) still finds its attempt.
    withoutReference.line.client_reference = null;
    const atWave = [...setup.wave.payouts.values()].find((item) => item.client_reference === payout.order_id)!;
    setup.wave.settlePayout(atWave.id, 'failed');

    const report = await reconcile(start);
    expect(report.discrepancies).toHaveLength(4);
    expect(report.discrepancies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          issue: 'missing_in_ledger',
          kind: 'payment',
          reference: 'not-the-gateways',
          providerReference: foreign.transaction_id,
          providerAmount: 7_000,
          providerFee: 70,
        }),
        expect.objectContaining({
          issue: 'amount_mismatch',
          kind: 'payment',
          reference: changed.session.client_reference,
          ledgerAmount: Number(changed.session.amount),
          providerAmount: Number(changed.session.amount) + 500,
        }),
        expect.objectContaining({ issue: 'missing_at_provider', kind: 'payment', reference: missing.session.client_reference, providerAmount: null }),
        expect.objectContaining({ issue: 'status_mismatch', kind: 'payout', reference: payout.order_id, ledgerStatus: 'succeeded', providerStatus: 'failed' }),
      ]),
    );
    // The payment changed, the payment missing and the reversed payout no longer match; the rest still does.
    expect(report.matched).toBe(agreeing.matched - 3);
  });
});

describe('a Wave payment whose webhook was lost', () => {
  it('shows as a status mismatch (paid at Wave, open here) until the reconciler settles it; an open session nobody paid shows nothing', async () => {
    const start = since();
    const merchant = await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' });
    const unpaid = await waveTransaction(setup.gateway, merchant.key);
    await startWaveCheckout(setup, unpaid.checkoutUrl);
    const { checkoutUrl } = await waveTransaction(setup.gateway, merchant.key);
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    setup.wave.loseNextWebhook = true;
    await setup.wave.completeSession(session.id);
    const open = await reconcile(start);
    expect(open.discrepancies).toEqual([
      expect.objectContaining({
        issue: 'status_mismatch',
        kind: 'payment',
        reference: session.client_reference,
        ledgerStatus: 'pending',
        providerStatus: 'succeeded',
      }),
    ]);
    await settleStalePaymentAttempts(setup.gateway.ctx, { olderThanMs: 0 });
    const settled = await reconcile(start);
    expect(settled.discrepancies).toEqual([]);
    expect(settled.matched).toBe(1);
  });
});

describe('a Wave refund whose answer was lost', () => {
  it("is confirmed by its api_checkout_refund line in Wave's history, never sent again", async () => {
    const merchant = await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' });
    const { orderId, session, read } = await paidWithWave(merchant);
    await adjustAccount(setup.gateway.ctx, setup.gateway.operator, { organizationId: merchant.organization.id, amount: 1_000, reason: 'cover the refund' });
    const refundPath = `/v1/checkout/sessions/${session.id}/refund`;
    setup.gateway.ctx.settings.providerTimeoutMs = 1_000;
    setup.wave.loseNextAnswer(new RegExp(`POST ${refundPath}`));
    try {
      await setup.gateway.rest('GET', `/api/v2/refund/${orderId}`, { key: merchant.key });
    } finally {
      setup.gateway.ctx.settings.providerTimeoutMs = undefined;
    }
    // Wave refunded; the gateway does not know yet.
    expect(setup.wave.sessions.get(session.id)?.refunded).toBe(true);
    expect((await setup.gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).status).toBe('pending');
    await settlePendingRefunds(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await setup.gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).status).toBe('succeeded');
    expect((await read()).transaction_status).toBe('refunded');
    expect(setup.wave.calls.filter((call) => call.method === 'POST' && call.path === refundPath)).toHaveLength(1);
    await expectBalancedLedger(setup.gateway.ctx.db);
  });
});

describe('cancelling a transaction whose Wave session is open', () => {
  async function leftOnWave(merchant?: { key: string }) {
    const paying = merchant ?? (await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' }));
    const { orderId, checkoutUrl } = await waveTransaction(setup.gateway, paying.key);
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    const read = async () => (await setup.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key: paying.key })).body;
    const expires = () => setup.wave.calls.filter((call) => call.method === 'POST' && call.path === `/v1/checkout/sessions/${session.id}/expire`);
    return { ...paying, orderId, session, read, expires };
  }

  it('expires the session at Wave first, then cancels (REST v2 DELETE)', async () => {
    const { key, orderId, session, read, expires } = await leftOnWave();
    const cancelled = await setup.gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect((await read()).transaction_status).toBe('cancelled');
    expect(setup.wave.sessions.get(session.id)?.checkout_status).toBe('expired');
    expect(expires()).toHaveLength(1);
  });

  it('expires the session first on REST v1 delete-transaction and GraphQL cancelTransaction too', async () => {
    const merchant = await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' });
    const v1 = await leftOnWave(merchant);
    const deleted = await setup.gateway.rest('DELETE', `/api/v1/transaction/delete-transaction?order_id=${v1.orderId}`, { key: merchant.key });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await v1.read()).transaction_status).toBe('cancelled');
    expect(setup.wave.sessions.get(v1.session.id)?.checkout_status).toBe('expired');

    const graph = await leftOnWave(merchant);
    const answer = await graphqlTyped(setup.gateway, MerchantCancelTransactionDocument, { orderId: graph.orderId }, merchant.key);
    expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
    expect((await graph.read()).transaction_status).toBe('cancelled');
    expect(setup.wave.sessions.get(graph.session.id)?.checkout_status).toBe('expired');
  });

  it('is refused when Wave says the session was paid meanwhile (its webhook lost), and the payment is recorded, not lost', async () => {
    const { key, orderId, session, read } = await leftOnWave();
    setup.wave.loseNextWebhook = true;
    await setup.wave.completeSession(session.id);
    expect((await read()).transaction_status).toBe('pending');
    const refused = await setup.gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Cannot delete a paid transaction');
    expect((await read()).transaction_status).toBe('paid');
    const attempt = await setup.gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: session.client_reference! } });
    expect(attempt.state).toBe('succeeded');
    await expectBalancedLedger(setup.gateway.ctx.db);
  });
});
