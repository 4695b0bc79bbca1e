/**
 * Payment attempts: the record that makes "ask the wallet to pay" safe to run concurrently and to
 * survive a crash. Money comes IN here, so the danger is collecting twice (the customer double
 * clicks, or two tabs pay at once): both wallets would be charged and only one payment recorded.
 *
 *   1. record: ONE database transaction locks the transaction row, checks it is still pending and
 *      that no other attempt is `collecting`, and writes this attempt `collecting`. The loser of
 *      two concurrent payments is refused here (409) before any wallet is asked.
 *   2. the provider is asked once, with the attempt's id as the reference.
 *   3. settle: a second transaction writes the answer. `succeeded` moves the transaction out of
 *      pending with its ledger posting (see recordPayment); `failed` / `pending` close the attempt
 *      and nothing moves, so the customer may try again.
 *
 * A crash (or a provider that never answers) between 1 and 3 leaves the attempt `collecting`; the
 * reconciler below asks the provider what became of it (never collecting again) and settles it.
 */
import type { PaymentAttempt } from '../generated/prisma/client.js';
import type { DbTransaction, GatewayContext } from './context.js';
import { DomainError } from './errors.js';
import { clearingAccountOf, post } from './ledger/posting.js';
import type { ProviderAnswer } from './ports.js';

/** What the wallet is asked for, and how the payment is split once it pays. */
export interface AttemptTerms {
  method: PaymentAttempt['method'];
  phone: string;
  /** Charged to the wallet. */
  amount: bigint;
  fee: bigint;
}

/** The wallet's answer, or `unknown` when the call itself failed (it may or may not have collected). */
export type WalletAnswer = ProviderAnswer | { status: 'unknown' };

/** A `collecting` attempt is asked about only once it is older than this (the request gave up long before). */
export const PAYMENT_RECONCILE_AFTER_MS = 60_000;
/** Most stale attempts one reconciler run looks at. */
const RECONCILE_BATCH = 100;

interface LockedTransaction {
  status: string;
}

/** Phase 1: the attempt is written (and owns the transaction) before the wallet is asked. */
export async function recordAttempt(ctx: GatewayContext, transactionId: string, terms: AttemptTerms): Promise<PaymentAttempt> {
  return ctx.db.$transaction(async (tx) => {
    await lockPendingTransaction(tx, transactionId);
    const collecting = await tx.paymentAttempt.count({ where: { transactionId, state: 'collecting' } });
    if (collecting > 0) throw new DomainError('payment_in_progress');
    return tx.paymentAttempt.create({ data: { transactionId, ...terms, createdAt: ctx.clock.now() } });
  });
}

/**
 * Locks the transaction row (ordering this against a payment, a cancel, a refund) and refuses
 * unless it is pending. The next statement of the caller sees every attempt committed before the
 * lock was granted.
 */
export async function lockPendingTransaction(tx: DbTransaction, transactionId: string): Promise<void> {
  const [row] = await tx.$queryRaw<LockedTransaction[]>`SELECT status::text AS status FROM "Transaction" WHERE id = ${transactionId}::uuid FOR UPDATE`;
  if (!row) throw new DomainError('transaction_not_found');
  if (row.status !== 'pending') throw new DomainError('transaction_not_payable', row.status);
}

/** Refuses (409) while a wallet is being asked to pay this transaction: used by cancel. */
export async function refuseWhileCollecting(tx: DbTransaction, transactionId: string): Promise<void> {
  const collecting = await tx.paymentAttempt.count({ where: { transactionId, state: 'collecting' } });
  if (collecting > 0) throw new DomainError('payment_in_progress');
}

/**
 * Phase 3: writes the provider's answer, in one database transaction with the payment it records.
 * Conditional on the attempt still `collecting`: when a reconciler settled it first, this one
 * changes nothing. Returns the attempt's state after it (`collecting` when there was no answer).
 */
export async function settleAttempt(ctx: GatewayContext, attempt: PaymentAttempt, answer: WalletAnswer): Promise<PaymentAttempt['state']> {
  // No answer: the attempt keeps the transaction until the reconciler learns what happened.
  if (answer.status === 'unknown') return 'collecting';
  const state = answer.status === 'succeeded' ? 'succeeded' : answer.status === 'failed' ? 'failed' : 'unconfirmed';
  return ctx.db.$transaction(async (tx) => {
    const { count } = await tx.paymentAttempt.updateMany({
      where: { id: attempt.id, state: 'collecting' },
      data: { state, providerReference: answer.providerReference, reason: answer.reason ?? null, settledAt: ctx.clock.now() },
    });
    if (count === 0) return (await tx.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } })).state;
    if (state === 'succeeded') await recordPayment(ctx, tx, attempt, answer.providerReference);
    return state;
  });
}

/**
 * The payment itself: `pending` -> `paid` (or `paid_and_blocked` for escrow) with the method,
 * fees, paid_at and payer phone, and the balanced posting: the provider's clearing account owes
 * what the wallet was charged, the merchant is credited the proceeds (`main`, or `escrow`) and the
 * gateway keeps the fee.
 */
async function recordPayment(ctx: GatewayContext, tx: DbTransaction, attempt: PaymentAttempt, providerReference: string): Promise<void> {
  const transaction = await tx.transaction.findUniqueOrThrow({ where: { id: attempt.transactionId }, select: { organizationId: true, isEscrow: true, feesCustomerSide: true } });
  const status = transaction.isEscrow ? 'paid_and_blocked' : 'paid';
  // The attempt owned the transaction while collecting (cancel and other attempts are refused),
  // so it is still pending; the condition only guards against a rule broken elsewhere.
  const { count } = await tx.transaction.updateMany({
    where: { id: attempt.transactionId, status: 'pending' },
    data: { status, selectedPaymentMethod: attempt.method, fees: attempt.fee, paidAt: ctx.clock.now(), payerPhone: attempt.phone },
  });
  if (count === 0) throw new Error(`payment attempt ${attempt.id} succeeded but transaction ${attempt.transactionId} is no longer pending`);
  await post(tx, {
    kind: transaction.isEscrow ? 'escrow_hold' : 'payment',
    transactionId: attempt.transactionId,
    description: `${attempt.method} payment ${providerReference}`.trim(),
    movements: [
      { side: { gateway: clearingAccountOf(attempt.method) }, amount: -attempt.amount },
      { side: { organizationId: transaction.organizationId, account: transaction.isEscrow ? 'escrow' : 'main' }, amount: attempt.amount - attempt.fee },
      { side: { gateway: 'fee_revenue' }, amount: attempt.fee },
    ],
  });
}

/**
 * Settles attempts left `collecting` (a crash or a lost answer) by ASKING the provider what became
 * of each: paid -> the payment is recorded; declined, unconfirmed or never received -> closed.
 * Run periodically by the process; safe to run from several instances at once (settleAttempt is
 * conditional).
 */
export async function settleStalePaymentAttempts(
  ctx: GatewayContext,
  options: { olderThanMs?: number; limit?: number } = {},
): Promise<{ settled: number; errors: number }> {
  const cutoff = new Date(ctx.clock.now().getTime() - (options.olderThanMs ?? PAYMENT_RECONCILE_AFTER_MS));
  const stale = await ctx.db.paymentAttempt.findMany({
    where: { state: 'collecting', createdAt: { lte: cutoff } },
    orderBy: { createdAt: 'asc' },
    take: options.limit ?? RECONCILE_BATCH,
  });
  const tally = { settled: 0, errors: 0 };
  for (const attempt of stale) {
    try {
      const status = await ctx.provider.collectStatus(attempt.id);
      const answer: ProviderAnswer =
        status.status === 'not_found'
          ? { status: 'failed', providerReference: '', reason: status.reason ?? 'the provider never received the payment request' }
          : { status: status.status, providerReference: status.providerReference, reason: status.reason };
      await settleAttempt(ctx, attempt, answer);
      tally.settled += 1;
    } catch (error) {
      tally.errors += 1;
      ctx.log.warn({ err: error, attemptId: attempt.id }, 'could not reconcile a payment attempt; will try again');
    }
  }
  if (stale.length) ctx.log.info({ ...tally }, 'stale payment attempts reconciled');
  return tally;
}
