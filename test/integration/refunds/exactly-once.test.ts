/**
 * Exactly one refund of a transaction ever succeeds and main is debited once: under 50 concurrent
 * requests, under Idempotency-Key retries, when the provider does not answer in time (the
 * reconciler settles it later by asking, never by sending again), and when the process dies
 * between recording the refund and calling the provider.
 */
import { describe, expect, it } from 'vitest';
import { settleProviderCall } from '../../../src/domain/operations.js';
import { settlePendingRefunds } from '../../../src/domain/refunds/refunds.js';
import { recordRefund } from '../../../src/domain/refunds/store.js';
import { expectCatalogueError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { PHONES, balances, entriesOf, expectLedgerConsistent, paidTransaction, refund, statusOf, stubProvider, withProvider } from '../../support/refunds.js';

const gateway = useGateway();

/** A merchant whose main holds exactly what one 3000 refund needs (fees on the customer's side). */
async function coveredTransaction(phone: string = PHONES.refundSucceeds) {
  const { organization, key } = await gateway.merchant({ verified: true });
  const orderId = await paidTransaction(gateway, key, { price: 3000, feesCustomerSide: true, phone });
  expect((await balances(gateway, organization.id)).main).toBe(3000n);
  return { organizationId: organization.id, key, orderId };
}

const refundDebits = async (orderId: string) =>
  (await entriesOf(gateway, orderId)).filter((entry) => entry.kind === 'refund' && entry.account?.name === 'main');

describe('concurrent refunds of one transaction', () => {
  it('50 at once: exactly one 200, the others 409 or 400, main debited once', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    const responses = await Promise.all(Array.from({ length: 50 }, () => refund(gateway, key, orderId)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(
      statuses.every((status) => status === 200 || status === 409 || status === 400),
      statuses.join(),
    ).toBe(true);
    for (const response of responses.filter((r) => r.status === 409)) expectCatalogueError(response, 'refund_in_progress');
    for (const response of responses.filter((r) => r.status === 400)) expectCatalogueError(response, 'cannot_refund');
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    expect(await refundDebits(orderId)).toHaveLength(1);
    await expectLedgerConsistent(gateway, organizationId);
  });

  it('50 at once with one Idempotency-Key: one refund, every answer a 200 (first or replayed) or a 409', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    const responses = await Promise.all(Array.from({ length: 50 }, () => refund(gateway, key, orderId, 'same-key')));
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(),
    ).toBe(true);
    expect(responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    expect(await refundDebits(orderId)).toHaveLength(1);
  });
});

describe('Idempotency-Key on GET /refund', () => {
  it('a retry replays the 200 with Idempotent-Replayed: true and debits nothing more', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    const first = await refund(gateway, key, orderId, 'refund-key-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await refund(gateway, key, orderId, 'refund-key-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    expect(await refundDebits(orderId)).toHaveLength(1);
    const keyRow = await gateway.ctx.db.idempotencyKey.findUniqueOrThrow({ where: { organizationId_key: { organizationId, key: 'refund-key-1' } } });
    expect(keyRow).toMatchObject({ state: 'completed', responseStatus: 200 });
  });

  it('the same key for another transaction is 422, and refunds nothing', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    expect((await refund(gateway, key, orderId, 'refund-key-2')).status).toBe(200);
    const other = await paidTransaction(gateway, key, { price: 1000, feesCustomerSide: true });
    expectCatalogueError(await refund(gateway, key, other, 'refund-key-2'), 'idempotency_key_reused');
    expect(await statusOf(gateway, other)).toBe('paid');
    expect((await balances(gateway, organizationId)).main).toBe(1000n);
  });

  it('a refusal (400) is kept and replayed; a provider failure (500) is not kept, so the key can be used again', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    const organizationId = organization.id;
    const uncovered = await paidTransaction(gateway, key, { price: 3000 });
    expectCatalogueError(await refund(gateway, key, uncovered, 'refund-key-3'), 'insufficient_balance');
    const replayed = await refund(gateway, key, uncovered, 'refund-key-3');
    expectCatalogueError(replayed, 'insufficient_balance');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const failing = await paidTransaction(gateway, key, { price: 2000, feesCustomerSide: true, phone: PHONES.refundFails });
    expectCatalogueError(await refund(gateway, key, failing, 'refund-key-4'), 'refund_failed');
    expect(await gateway.ctx.db.idempotencyKey.count({ where: { organizationId, key: 'refund-key-4' } })).toBe(0);
    const retried = await refund(gateway, key, failing, 'refund-key-4');
    expectCatalogueError(retried, 'refund_failed');
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: failing } })).toMatchObject({ status: 'failed', attempts: 2 });
  });
});

describe('a provider that does not answer in time', () => {
  it('leaves the refund pending and debited (500), refuses a second request (409), and the reconciler settles it once', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    const timingOut = stubProvider('pending');
    const first = await withProvider(gateway, timingOut, () => refund(gateway, key, orderId, 'timeout-key'));
    expect(timingOut.calls.refund).toBe(1);
    expectCatalogueError(first, 'refund_unconfirmed');
    expect(first.body.error).not.toMatch(/nothing was debited/i);
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    expect(await statusOf(gateway, orderId)).toBe('paid');
    const pending = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(pending.status).toBe('pending');

    expectCatalogueError(await refund(gateway, key, orderId), 'refund_in_progress');
    expectCatalogueError(await refund(gateway, key, orderId, 'timeout-key'), 'idempotency_key_in_use');
    expectCatalogueError(await refund(gateway, key, orderId, 'another-key'), 'refund_in_progress');

    // Not yet old enough for the reconciler's default age: nothing is asked.
    const provider = stubProvider('succeeded');
    expect(await settlePendingRefunds({ ...gateway.ctx, provider })).toMatchObject({ settled: 0 });
    expect(provider.calls.refundStatus).toEqual([]);

    expect(await settlePendingRefunds({ ...gateway.ctx, provider }, { olderThanMs: 0 })).toMatchObject({ settled: 1, errors: 0 });
    expect(provider.calls.refundStatus).toEqual([pending.id]);
    expect(provider.calls.refund).toBe(0);
    expect(timingOut.calls.refund).toBe(1);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).toMatchObject({
      status: 'succeeded',
      providerReference: `stub_${pending.id}`,
    });

    // Settled once: another run does not ask again; main was debited once.
    await settlePendingRefunds({ ...gateway.ctx, provider }, { olderThanMs: 0 });
    expect(provider.calls.refundStatus).toEqual([pending.id]);
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    expect(await refundDebits(orderId)).toHaveLength(1);
    await expectLedgerConsistent(gateway, organizationId);

    // The key waiting on it was completed by the reconciler: the retry replays the 200.
    const replay = await refund(gateway, key, orderId, 'timeout-key');
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a refund call that hangs is answered at the provider timeout (500, being confirmed) and settled by asking', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    const hanging = Object.assign(stubProvider('succeeded'), { refund: () => new Promise<never>(() => undefined) });
    gateway.ctx.settings.providerTimeoutMs = 300;
    try {
      const started = Date.now();
      expectCatalogueError(await withProvider(gateway, hanging, () => refund(gateway, key, orderId)), 'refund_unconfirmed');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      delete gateway.ctx.settings.providerTimeoutMs;
    }
    expect((await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).status).toBe('pending');
    expect(await settlePendingRefunds({ ...gateway.ctx, provider: hanging }, { olderThanMs: 0 })).toMatchObject({ settled: 1, errors: 0 });
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    await expectLedgerConsistent(gateway, organizationId);
  });

  it('a provider that later says it failed: the debit returns, the transaction stays paid, the key is freed', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    expectCatalogueError(
      await withProvider(gateway, stubProvider('pending'), () => refund(gateway, key, orderId, 'timeout-then-failed')),
      'refund_unconfirmed',
    );
    await settlePendingRefunds({ ...gateway.ctx, provider: stubProvider('failed') }, { olderThanMs: 0 });
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect((await balances(gateway, organizationId)).main).toBe(3000n);
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).toMatchObject({ status: 'failed' });
    // A 5xx is not kept: the key is free for a new attempt, which succeeds.
    expect(await gateway.ctx.db.idempotencyKey.count({ where: { organizationId, key: 'timeout-then-failed' } })).toBe(0);
    await expectLedgerConsistent(gateway, organizationId);
    expect((await refund(gateway, key, orderId, 'timeout-then-failed')).status).toBe(200);
    expect((await balances(gateway, organizationId)).main).toBe(0n);
  });

  it('a provider still without an answer: the reconciler leaves it pending and debited', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    await withProvider(gateway, stubProvider('pending'), () => refund(gateway, key, orderId));
    expect(await settlePendingRefunds({ ...gateway.ctx, provider: stubProvider('pending') }, { olderThanMs: 0 })).toMatchObject({
      stillPending: 1,
      settled: 0,
    });
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).toMatchObject({ status: 'pending' });
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    await settlePendingRefunds({ ...gateway.ctx, provider: stubProvider('succeeded') }, { olderThanMs: 0 });
    expect(await statusOf(gateway, orderId)).toBe('refunded');
  });
});

describe('a crash between recording the refund and calling the provider', () => {
  it('is never failed by a provider that says "not found": it stays open, and an operator decision returns the debit; a later request is a new attempt', async () => {
    const { organizationId, key, orderId } = await coveredTransaction();
    // Phase 1 commits, then the process "dies": the provider is never called.
    const intent = await recordRefund(gateway.ctx, gateway.ctx.db, organizationId, orderId);
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    expectCatalogueError(await refund(gateway, key, orderId), 'refund_in_progress');

    // "Not found" may only mean "not yet": the reconciler asks again later, it never fails it.
    const provider = stubProvider('not_found');
    expect(await settlePendingRefunds({ ...gateway.ctx, provider }, { olderThanMs: 0 })).toMatchObject({ settled: 0, stillPending: 1 });
    expect(provider.calls.refund).toBe(0);
    expect(provider.calls.refundStatus).toHaveLength(1);
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { id: intent.refundId } })).toMatchObject({ status: 'pending', providerChecks: 1 });
    expect((await balances(gateway, organizationId)).main).toBe(0n);

    // The operator checked with the provider: it never got it.
    await settleProviderCall(gateway.ctx, gateway.operator, { kind: 'refund', id: intent.refundId, outcome: 'failed' }, 'not in the provider statement');
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect((await balances(gateway, organizationId)).main).toBe(3000n);
    await expectLedgerConsistent(gateway, organizationId);
    // Applied once: a second decision finds nothing open.
    await expect(settleProviderCall(gateway.ctx, gateway.operator, { kind: 'refund', id: intent.refundId, outcome: 'failed' }, 'again')).rejects.toMatchObject({
      code: 'provider_call_not_open',
    });

    const retried = await refund(gateway, key, orderId);
    expect(retried.status).toBe(200);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect((await balances(gateway, organizationId)).main).toBe(0n);
    await expectLedgerConsistent(gateway, organizationId);
  });

  it("for a held transaction, an operator's failed decision puts the proceeds back in escrow", async () => {
    const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const orderId = await paidTransaction(gateway, key, { price: 3000, isEscrow: true, feesCustomerSide: true });
    const intent = await recordRefund(gateway.ctx, gateway.ctx.db, organization.id, orderId);
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
    await settleProviderCall(gateway.ctx, gateway.operator, { kind: 'refund', id: intent.refundId, outcome: 'failed' }, 'never received');
    expect(await statusOf(gateway, orderId)).toBe('paid_and_blocked');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 3000n });
    await expectLedgerConsistent(gateway, organization.id);
  });
});
