/**
 * Payment attempts: the wallet is asked only after the attempt is recorded, so concurrent payments
 * of one transaction never collect twice, a cancel cannot slip in while a wallet is being asked,
 * and an attempt left without an answer (a crash, a lost connection) is settled by asking the
 * provider, never by collecting again.
 */
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller } from '../../../src/domain/access/auth.js';
import type { ErrorCode } from '../../../src/domain/errors.js';
import { cancelTransaction, createTransaction, payTransaction } from '../../../src/domain/operations.js';
import { settleStalePaymentAttempts } from '../../../src/domain/payments/attempts.js';
import { settleProviderCall } from '../../../src/domain/operations.js';
import type { PaymentProvider, ProviderRequest, ProviderStatusAnswer } from '../../../src/domain/ports.js';
import { useGateway } from '../../support/gateway.js';
import { withProvider } from '../../support/provider.js';
import { balanceOf, expectBalancedLedger } from '../../support/ledger.js';

// Latency makes concurrent payments overlap inside the wallet call, where the race used to be.
const gateway = useGateway({ sandboxLatencyMs: 150 });
const customer = { kind: 'customer' } as const;
const PHONE = '+221771234567';

async function pendingTransaction() {
  const organization = await gateway.createOrganization({ verified: true });
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization };
  const { value } = await createTransaction(gateway.ctx, authorizeMerchant(caller, 'createTransaction'), {
    methodOfPayment: ['wave'],
    products: [{ name: 'Yassa', price: 5000, quantity: 1 }],
  });
  return { organization, caller, transaction: value.transaction };
}

const codeOf = async (promise: Promise<unknown>): Promise<ErrorCode | 'accepted'> =>
  promise.then(
    () => 'accepted' as const,
    (error: { code?: ErrorCode }) => error.code ?? (String(error) as ErrorCode),
  );

/** The real sandbox, counting the collections it is asked for. */
function countingProvider(): PaymentProvider & { collected: ProviderRequest[] } {
  const sandbox = gateway.ctx.provider;
  const collected: ProviderRequest[] = [];
  return Object.assign(Object.create(sandbox) as PaymentProvider, {
    collected,
    collect: (request: ProviderRequest) => {
      collected.push(request);
      return sandbox.collect(request);
    },
  });
}

/** A provider whose collect call is lost on the way back (it collected, or not: `status` says). */
function lostAnswerProvider(status: ProviderStatusAnswer['status']) {
  const asked: string[] = [];
  const provider: PaymentProvider = Object.assign(Object.create(gateway.ctx.provider) as PaymentProvider, {
    collect: async () => {
      throw new Error('connection reset by the wallet provider');
    },
    collectStatus: async (reference: string): Promise<ProviderStatusAnswer> => {
      asked.push(reference);
      return { status, providerReference: status === 'succeeded' ? `stub_${reference}` : '', reason: status === 'failed' ? 'declined' : undefined };
    },
  });
  return { provider, asked };
}

/** Waits until an attempt of the transaction is recorded and its wallet being asked (bounded). */
async function untilCollecting(transactionId: string): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    if (await gateway.db.prisma.paymentAttempt.count({ where: { transactionId, state: 'collecting' } })) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no attempt started collecting within a second');
}

describe('concurrent payments of one transaction', () => {
  it('ask a wallet exactly once: the others are refused before any wallet is asked', async () => {
    const { organization, transaction } = await pendingTransaction();
    const provider = countingProvider();
    const outcomes = await withProvider(gateway, provider, () =>
      Promise.all(Array.from({ length: 10 }, () => codeOf(payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE })))),
    );

    expect(outcomes.filter((outcome) => outcome === 'accepted')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'payment_in_progress' || outcome === 'transaction_not_payable')).toHaveLength(9);
    expect(provider.collected).toHaveLength(1);
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(4950n);
    const attempts = await gateway.db.prisma.paymentAttempt.findMany({ where: { transactionId: transaction.id } });
    expect(attempts.map((attempt) => attempt.state)).toEqual(['succeeded']);
    expect(provider.collected[0]?.reference).toBe(attempts[0]?.id);
  });

  it('a cancel while the wallet is being asked is refused (409), and the payment lands', async () => {
    const { caller, transaction } = await pendingTransaction();
    const paying = payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE });
    await untilCollecting(transaction.id);
    const cancel = await codeOf(cancelTransaction(gateway.ctx, authorizeMerchant(caller, 'cancelTransaction'), transaction.id));

    expect(cancel).toBe('payment_in_progress');
    expect((await paying).transaction.status).toBe('paid');
  });

  it('a declined attempt frees the transaction for another wallet', async () => {
    const { organization, transaction } = await pendingTransaction();
    const declined = await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221770000000' });
    const paid = await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE });

    expect([declined.outcome, paid.outcome]).toEqual(['failed', 'paid']);
    const attempts = await gateway.db.prisma.paymentAttempt.findMany({ where: { transactionId: transaction.id }, orderBy: { createdAt: 'asc' } });
    expect(attempts.map((attempt) => [attempt.phone, attempt.state])).toEqual([
      ['+221770000000', 'failed'],
      [PHONE, 'succeeded'],
    ]);
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(4950n);
  });
});

describe('an attempt left without an answer', () => {
  it('keeps the transaction (no second collection) until the reconciler learns the wallet paid, then records the payment once', async () => {
    const { organization, transaction } = await pendingTransaction();
    const { provider, asked } = lostAnswerProvider('succeeded');
    const result = await withProvider(gateway, provider, () => payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE }));
    expect(result).toMatchObject({ outcome: 'pending', transaction: { status: 'pending' } });

    // Meanwhile the customer tries again: refused before a wallet is asked.
    expect(await codeOf(payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE }))).toBe('payment_in_progress');

    // Not yet stale: the reconciler leaves it to the request.
    await withProvider(gateway, provider, () => settleStalePaymentAttempts(gateway.ctx));
    expect(asked).toEqual([]);
    const attempt = await gateway.db.prisma.paymentAttempt.findFirstOrThrow({ where: { transactionId: transaction.id } });
    expect(attempt.state).toBe('collecting');

    await withProvider(gateway, provider, () => settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 }));
    await withProvider(gateway, provider, () => settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 }));
    expect(asked.filter((reference) => reference === attempt.id)).toHaveLength(1);
    const paid = await gateway.db.prisma.transaction.findUniqueOrThrow({ where: { id: transaction.id } });
    expect(paid).toMatchObject({ status: 'paid', selectedPaymentMethod: 'wave', fees: 50n, payerPhone: PHONE });
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(4950n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('whose wallet call hangs is answered "not confirmed" at the provider timeout, the attempt left for the reconciler', async () => {
    const { transaction } = await pendingTransaction();
    const { provider, asked } = lostAnswerProvider('succeeded');
    const hanging: PaymentProvider = Object.assign(Object.create(provider) as PaymentProvider, { collect: () => new Promise(() => undefined) });
    gateway.ctx.settings.providerTimeoutMs = 300;
    try {
      const started = Date.now();
      const result = await withProvider(gateway, hanging, () => payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE }));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result).toMatchObject({ outcome: 'pending', transaction: { status: 'pending' } });
    } finally {
      delete gateway.ctx.settings.providerTimeoutMs;
    }
    const attempt = await gateway.db.prisma.paymentAttempt.findFirstOrThrow({ where: { transactionId: transaction.id } });
    expect(attempt.state).toBe('collecting');
    await withProvider(gateway, hanging, () => settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 }));
    expect(asked).toEqual([attempt.id]);
    expect((await gateway.db.prisma.transaction.findUniqueOrThrow({ where: { id: transaction.id } })).status).toBe('paid');
  });

  it("stays open when the provider says it never received it (unknown is not failed); an operator's decision frees it and the customer may pay again", async () => {
    const { organization, transaction } = await pendingTransaction();
    const { provider } = lostAnswerProvider('not_found');
    await withProvider(gateway, provider, () => payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE }));
    expect(await withProvider(gateway, provider, () => settleStalePaymentAttempts(gateway.ctx, { olderThanMs: 0 }))).toMatchObject({
      settled: 0,
      stillPending: 1,
    });

    const attempt = await gateway.db.prisma.paymentAttempt.findFirstOrThrow({ where: { transactionId: transaction.id } });
    expect(attempt).toMatchObject({ state: 'collecting', providerChecks: 1 });
    await expect(payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE })).rejects.toMatchObject({
      code: 'payment_in_progress',
    });

    await settleProviderCall(gateway.ctx, gateway.operator, { kind: 'payment', id: attempt.id, outcome: 'failed' }, 'no such payment at the provider');
    expect(await gateway.db.prisma.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } })).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/decided by an operator/),
    });
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(0n);
    expect((await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: PHONE })).outcome).toBe('paid');
  });
});

describe('the sandbox remembers what it was asked to collect', () => {
  it('answers collectStatus by reference: paid, declined, unconfirmed, never received', async () => {
    const sandbox = gateway.ctx.provider;
    const ask = (phone: string, reference: string) => sandbox.collect({ method: 'wave', phone, amount: 1000n, reference });
    await Promise.all([ask(PHONE, 'ref-paid'), ask('+221770000000', 'ref-declined'), ask('+221770001111', 'ref-unconfirmed')]);

    expect((await sandbox.collectStatus('ref-paid')).status).toBe('succeeded');
    expect((await sandbox.collectStatus('ref-declined')).status).toBe('failed');
    expect((await sandbox.collectStatus('ref-unconfirmed')).status).toBe('pending');
    expect((await sandbox.collectStatus('ref-never-sent')).status).toBe('not_found');
  });
});
