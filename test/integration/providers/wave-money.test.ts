/**
 * Refunds, payouts and late payments with Wave, against the Wave simulator: each goes through the
 * provider flow with Wave's idempotency key set to our reference, a timeout leaves the call open
 * to be reconciled by a status question (sent again with the same reference only when Wave does
 * not know it: payouts by their idempotency-key, refunds and late payments' returns because a
 * session is refunded at most once), and after each the gateway's ledger and Wave's own books agree.
 */
import { describe, expect, it } from 'vitest';
import { adjustAccount, approvePayout, settleProviderCall } from '../../../src/domain/operations.js';
import { settleOpenLateReturns } from '../../../src/domain/payments/latePayments.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { createWaveProvider } from '../../../src/infra/providers/wave.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { LatePaymentsDocument, OpenProviderCallsOfKindDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import { freePort } from '../../support/processes.js';
import { withProvider } from '../../support/provider.js';
import { PHONES, expectPayout, fundedMerchant, mainBalance, payoutBody, postPayout } from '../../support/payouts.js';
import { expectWaveAgrees, reconcileWave, startWaveCheckout, useWaveGateway, waveTransaction } from '../../support/providers/wave.js';

const setup = useWaveGateway();

const payoutCalls = () => setup.wave.calls.filter((call) => call.method === 'POST' && call.path === '/v1/payout');

/** A merchant paid once through Wave's checkout (merchant-side fees: Wave refunds what it collected). */
async function paidWithWave(options: { scope?: string } = {}) {
  const merchant = await setup.gateway.merchant({ name: 'Boutique Wave', scope: options.scope ?? 'readAndWrite' });
  const { orderId, checkoutUrl } = await waveTransaction(setup.gateway, merchant.key, { fees_customer_side: false });
  const { session } = await startWaveCheckout(setup, checkoutUrl);
  await setup.wave.completeSession(session.id);
  const read = async () => (await setup.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key: merchant.key })).body;
  expect((await read()).transaction_status).toBe('paid');
  // main got the amount less the gateway's fee: the fee is topped up so main covers the refund.
  await adjustAccount(setup.gateway.ctx, setup.gateway.operator, { organizationId: merchant.organization.id, amount: 1_000, reason: 'cover the refund' });
  return { ...merchant, orderId, session, read };
}

describe('a refund with Wave', () => {
  it('refunds the checkout session once, under our refund id as the idempotency key', async () => {
    const { key, orderId, session, read } = await paidWithWave();
    const refunded = await setup.gateway.rest('GET', `/api/v2/refund/${orderId}`, { key });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    expect((await read()).transaction_status).toBe('refunded');
    const calls = setup.wave.calls.filter((call) => call.path === `/v1/checkout/sessions/${session.id}/refund`);
    expect(calls).toHaveLength(1);
    const refund = await setup.gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(calls[0]!.idempotencyKey).toBe(refund.id);
    expect(setup.wave.sessions.get(session.id)?.refunded).toBe(true);
    await expectWaveAgrees(setup.gateway);
    await expectBalancedLedger(setup.gateway.ctx.db);
  });

  it("a refund Wave refuses is the spec's 500 and debits nothing", async () => {
    const { key, organization, orderId, session, read } = await paidWithWave();
    const before = await mainBalance(setup.gateway, organization.id);
    setup.wave.failNext(new RegExp(`POST /v1/checkout/sessions/${session.id}/refund`), 409, 'checkout-refund-failed', 'The session cannot be refunded');
    const refused = await setup.gateway.rest('GET', `/api/v2/refund/${orderId}`, { key });
    expect(refused.status).toBe(500);
    expect((await read()).transaction_status).toBe('paid');
    expect(await mainBalance(setup.gateway, organization.id)).toBe(before);
    await expectWaveAgrees(setup.gateway);
  });
});

describe('a payout with Wave', () => {
  it("up to the review threshold: sent at once with idempotency-key = the payout id, completed, in Wave's books", async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    const payout = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 10_000 })), 'completed');
    const [call] = payoutCalls().filter((c) => c.idempotencyKey === payout.order_id);
    expect(call).toBeDefined();
    expect(JSON.parse(call!.body)).toEqual({ currency: 'XOF', receive_amount: '10000', mobile: PHONES.succeeds, client_reference: payout.order_id });
    const atWave = [...setup.wave.payouts.values()].find((p) => p.client_reference === payout.order_id);
    expect(atWave?.status).toBe('succeeded');
    expect(payout.provider_reference).toBe(atWave?.id);
    await expectWaveAgrees(setup.gateway);
  });

  it('above the review threshold: not sent until an operator approves, then sent once and completed', async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 3_000_000 });
    const payout = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 2_500_000 })), 'pending');
    expect(payoutCalls().filter((c) => c.idempotencyKey === payout.order_id)).toHaveLength(0);
    const approved = await approvePayout(setup.gateway.ctx, setup.gateway.operator, payout.order_id);
    expect(approved.status).toBe('completed');
    expect(payoutCalls().filter((c) => c.idempotencyKey === payout.order_id)).toHaveLength(1);
    await expectWaveAgrees(setup.gateway);
  });

  it("refused by Wave (the recipient cannot receive it): the spec's 500, amount and fees back in main", async () => {
    const { key, organization } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    setup.wave.refusedPayoutMobiles.set('+221770000042', 'recipient-wallet-not-found');
    const refused = await postPayout(setup.gateway, key, payoutBody({ amount: 5_000, recipient: { first_name: 'A', last_name: 'B', phone: '+221770000042' } }));
    expect(refused.status).toBe(500);
    expect(refused.body.error).toMatch(/Failed to withdraw/);
    expect(await mainBalance(setup.gateway, organization.id)).toBe(100_000n);
    await expectWaveAgrees(setup.gateway);
  });

  it("that times out stays pending, is never sent again, and is completed by the reconciler's status question", async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    setup.gateway.ctx.settings.providerTimeoutMs = 1_000;
    setup.wave.loseNextAnswer(/^POST \/v1\/payout$/);
    let payout: { order_id: string };
    try {
      payout = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 7_000 })), 'pending');
    } finally {
      setup.gateway.ctx.settings.providerTimeoutMs = undefined;
    }
    // Wave did it; only its answer was lost. The ledger's open call differs from Wave until reconciled.
    const open = await reconcileWave(setup.gateway);
    expect(open.discrepancies).toEqual([
      expect.objectContaining({ issue: 'status_mismatch', kind: 'payout', reference: payout.order_id, ledgerStatus: 'pending', providerStatus: 'succeeded' }),
    ]);
    await settlePendingPayouts(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await setup.gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('completed');
    expect(payoutCalls().filter((c) => c.idempotencyKey === payout.order_id)).toHaveLength(1);
    expect(setup.wave.calls.filter((c) => c.path === `/v1/payouts/search?client_reference=${payout.order_id}`).length).toBeGreaterThanOrEqual(1);
    await expectWaveAgrees(setup.gateway);
  });

  it('that Wave answers 503 having created nothing stays pending (unknown, never failed) and is sent again with the same key until it completes', async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    setup.wave.failNext(/^POST \/v1\/payout$/, 503, 'service-unavailable');
    const payout = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 3_000 })), 'pending');
    // Wave created nothing: the books differ until the payout is resumed.
    const report = await reconcileWave(setup.gateway);
    expect(report.discrepancies).toEqual([expect.objectContaining({ issue: 'missing_at_provider', kind: 'payout', reference: payout.order_id })]);
    await settlePendingPayouts(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await setup.gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('completed');
    const sends = payoutCalls().filter((c) => c.idempotencyKey === payout.order_id);
    expect(sends).toHaveLength(2);
    expect(sends[1]!.body).toBe(sends[0]!.body);
    expect([...setup.wave.payouts.values()].filter((p) => p.client_reference === payout.order_id)).toHaveLength(1);
    await expectWaveAgrees(setup.gateway);
  });
});

describe('a payout when Wave cannot take it', () => {
  it('rate limited (429): Retry-After is honoured and the payout completes, sent under one key', async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    setup.wave.rateLimitNext(/^POST \/v1\/payout$/, 1);
    const started = Date.now();
    const payout = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 4_000 })), 'completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const sends = payoutCalls().filter((c) => c.idempotencyKey === payout.order_id);
    expect(sends.map((c) => c.status)).toEqual([429, 200]);
    await expectWaveAgrees(setup.gateway);
  });

  it("unreachable (connection refused): the spec's 503 (use the other method), amount and fees back in main, nothing at Wave", async () => {
    const { key, organization } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    const closed = await freePort();
    const unreachable = createWaveProvider({ apiKey: setup.wave.apiKey, apiUrl: `http://127.0.0.1:${closed}` });
    const refused = await withProvider(setup.gateway, unreachable, () => postPayout(setup.gateway, key, payoutBody({ amount: 4_000 })));
    expect(refused.status).toBe(503);
    expect(await mainBalance(setup.gateway, organization.id)).toBe(100_000n);
    await expectWaveAgrees(setup.gateway);
  });
});

describe('a Wave payment confirmed after the gateway closed its attempt', () => {
  async function closedAttempt() {
    const merchant = await setup.gateway.merchant({ name: 'Boutique Wave', scope: 'readAndWrite' });
    const { orderId, checkoutUrl } = await waveTransaction(setup.gateway, merchant.key);
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    // Closed by the gateway's side (an operator decided it never went through): the session is still open at Wave.
    await settleProviderCall(
      setup.gateway.ctx,
      setup.gateway.operator,
      { kind: 'payment', id: session.client_reference!, outcome: 'failed' },
      'customer said they gave up',
    );
    const read = async () => (await setup.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key: merchant.key })).body;
    return { ...merchant, orderId, session, read };
  }

  it('is recorded on the order when it can still be paid', async () => {
    const { orderId, session, read } = await closedAttempt();
    await setup.wave.completeSession(session.id);
    expect((await read()).transaction_status).toBe('paid');
    const late = await setup.gateway.ctx.db.latePayment.findUniqueOrThrow({ where: { attemptId: session.client_reference! } });
    expect(late).toMatchObject({ transactionId: orderId, outcome: 'recorded' });
    expect(setup.wave.sessions.get(session.id)?.refunded).toBeUndefined();
    await expectWaveAgrees(setup.gateway);
  });

  it('is refunded at Wave when the order was cancelled meanwhile, once whatever duplicates arrive, and operators see it', async () => {
    const { key, session, read } = await closedAttempt();
    expect((await setup.gateway.rest('DELETE', `/api/v2/transactions/${(await read()).order_id}`, { key })).status).toBe(200);
    expect((await read()).transaction_status).toBe('cancelled');
    setup.wave.duplicateWebhooks = true;
    try {
      await setup.wave.completeSession(session.id);
    } finally {
      setup.wave.duplicateWebhooks = false;
    }
    expect((await read()).transaction_status).toBe('cancelled');
    expect(setup.wave.sessions.get(session.id)?.refunded).toBe(true);
    expect(setup.wave.calls.filter((call) => call.path === `/v1/checkout/sessions/${session.id}/refund`)).toHaveLength(1);
    const listed = await graphqlTyped(setup.gateway, LatePaymentsDocument, {}, setup.gateway.adminToken);
    expect(listed.body.data!.latePayments).toContainEqual({ attemptId: session.client_reference, outcome: 'returned', reason: 'the order is cancelled' });
    await expectWaveAgrees(setup.gateway);
  });

  it('whose return times out stays open (an open provider call) and is settled by the reconciler, never sent again', async () => {
    const { key, session, read } = await closedAttempt();
    await setup.gateway.rest('DELETE', `/api/v2/transactions/${(await read()).order_id}`, { key });
    setup.gateway.ctx.settings.providerTimeoutMs = 1_000;
    setup.wave.loseNextAnswer(new RegExp(`POST /v1/checkout/sessions/${session.id}/refund`));
    try {
      await setup.wave.completeSession(session.id);
    } finally {
      setup.gateway.ctx.settings.providerTimeoutMs = undefined;
    }
    const open = await graphqlTyped(setup.gateway, OpenProviderCallsOfKindDocument, { kind: 'LATE_PAYMENT_RETURN' }, setup.gateway.adminToken);
    expect(open.body.data!.openProviderCalls).toEqual([{ id: session.client_reference, reference: `${session.client_reference}:return` }]);
    await settleOpenLateReturns(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await setup.gateway.ctx.db.latePayment.findUniqueOrThrow({ where: { attemptId: session.client_reference! } })).outcome).toBe('returned');
    expect(setup.wave.calls.filter((call) => call.path === `/v1/checkout/sessions/${session.id}/refund`)).toHaveLength(1);
    await expectWaveAgrees(setup.gateway);
  });

  it('whose return never reached Wave is sent again by the reconciler (the session is refunded once), not stranded', async () => {
    const { key, session, read } = await closedAttempt();
    await setup.gateway.rest('DELETE', `/api/v2/transactions/${(await read()).order_id}`, { key });
    const refundPath = `/v1/checkout/sessions/${session.id}/refund`;
    setup.gateway.ctx.settings.providerTimeoutMs = 500;
    setup.wave.loseNextCall(new RegExp(`POST ${refundPath}`));
    try {
      await setup.wave.completeSession(session.id);
    } finally {
      setup.gateway.ctx.settings.providerTimeoutMs = undefined;
    }
    const late = () => setup.gateway.ctx.db.latePayment.findUniqueOrThrow({ where: { attemptId: session.client_reference! } });
    expect((await late()).outcome).toBe('returning');
    expect(setup.wave.sessions.get(session.id)?.refunded).toBeUndefined();
    // Two reconcilers at once (two instances): one claims it and sends; the other leaves it.
    const runs = await Promise.all([
      settleOpenLateReturns(setup.gateway.ctx, { olderThanMs: 0 }),
      settleOpenLateReturns(setup.gateway.ctx, { olderThanMs: 0 }),
    ]);
    expect(runs.map((run) => run.settled).sort()).toEqual([0, 1]);
    expect((await late()).outcome).toBe('returned');
    expect(setup.wave.sessions.get(session.id)?.refunded).toBe(true);
    // Wave saw one refund call (the first never reached it), and the customer is refunded once.
    expect(setup.wave.calls.filter((call) => call.path === refundPath)).toHaveLength(1);
    expect(setup.wave.linesOf(session.id).filter((line) => line.transaction_type === 'api_checkout_refund')).toHaveLength(1);
    await expectWaveAgrees(setup.gateway);
  });
});
