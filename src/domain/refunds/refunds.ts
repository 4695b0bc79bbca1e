/**
 * Refunds (DESIGN.md "Refund", "Seams: Idempotency"): the full `amount` goes back to the wallet
 * that paid, debited from `main` (fees are not returned). A refund calls a wallet provider, so it
 * runs in two phases around the call:
 *
 *   1. record: ONE database transaction locks the transaction row, checks the rules, returns a
 *      held (paid_and_blocked) transaction's proceeds from `escrow` to `main`, debits `main` by the
 *      amount (the provider's clearing account owes it back), and writes the Refund row `pending`.
 *      Nothing is sent before this commits.
 *   2. the provider is called once, with our reference for this attempt.
 *   3. settle: a second transaction records the answer: `succeeded` -> the transaction is
 *      `refunded`; `failed` -> the phase-1 postings are reversed (the escrow goes back to escrow)
 *      and the Refund is `failed` (it may be asked again: a new attempt); no answer (timeout) ->
 *      everything stays as phase 1 left it, and the reconciler below settles it later by ASKING the
 *      provider what became of it (never by sending it again).
 *
 * Exactly one refund of a transaction ever succeeds: the Refund row is unique per transaction and
 * a new attempt is only recorded while the previous one is `failed`; phase 1 of two concurrent
 * requests is serialised by a transaction-scoped advisory lock (the loser answers 409 at once,
 * without waiting) and by the transaction row's lock.
 */
import { randomUUID } from 'node:crypto';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { settleIntent, type Settlement } from '../idempotency.js';
import { heldInEscrow } from '../ledger/escrow.js';
import { clearingAccountOf, debitPostingCtes, post, reverse } from '../ledger/posting.js';
import { answerOrPending, callProviderOnce, reconcileOpenCalls, type OpenCallStore, type OpenProviderCall, type ReconcileTally } from '../providerFlow.js';
import { isUniqueViolation, runStatement, type PreparedStatement } from '../statements.js';
import type { Db, ProviderAnswer } from '../ports.js';
import { Prisma } from '../../generated/prisma/client.js';
import { isUuid } from '../ids.js';
import { findVisibleTransaction, transactionRecordOf, transactionWithProductsColumns, type RawTransactionRow, type TransactionRecord } from '../transactions/transactions.js';

/** What phase 1 recorded: everything the call and the settlement need (rebuildable from the Refund row). */
export interface RefundIntent {
  refundId: string;
  /** 1 for the first request; each new request after a failed one is the next attempt. */
  attempt: number;
  organizationId: string;
  transactionId: string;
  method: PaymentMethod;
  /** The wallet the payment came from: the refund goes back there. */
  phone: string;
  amount: bigint;
}

export const refundIntentName = (intent: Pick<RefundIntent, 'refundId' | 'attempt'>): string => `refundTransaction:${intent.refundId}:${intent.attempt}`;

/**
 * Our reference for an attempt, the provider's de-duplication key: the refund id for the first
 * attempt; a later attempt (after a failure) gets its own, so a provider that de-duplicates does
 * not answer it with the earlier failure.
 */
export const providerReferenceOf = (intent: Pick<RefundIntent, 'refundId' | 'attempt'>): string =>
  intent.attempt === 1 ? intent.refundId : `${intent.refundId}:${intent.attempt}`;

/** Phase 1's postings carry this description: how settlement (even a reconciler's) finds them to reverse. */
const postingTagOf = (intent: Pick<RefundIntent, 'refundId' | 'attempt'>): string => `refund ${intent.refundId} attempt ${intent.attempt}`;

interface LockedTransaction {
  id: string;
  status: string;
  amount: bigint;
  selectedPaymentMethod: PaymentMethod | null;
  payerPhone: string | null;
}

/** Phase 1 (inside the caller's database transaction). */
export async function recordRefund(tx: DbTransaction, organizationId: string, orderId: string): Promise<RefundIntent> {
  if (!isUuid(orderId)) throw new DomainError('transaction_not_found');
  // Another request is in its phase 1 for this transaction: answer at once instead of queueing
  // 50 connections behind one row lock. Released at commit or rollback.
  const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtextextended(${`refund:${orderId}`}, 0)) AS locked`;
  if (!lock?.locked) throw new DomainError('refund_in_progress');
  // The row lock orders this against a payment, a cancel or an escrow release of the same row.
  const [transaction] = await tx.$queryRaw<LockedTransaction[]>`
    SELECT id, status::text AS status, amount, "selectedPaymentMethod"::text AS "selectedPaymentMethod", "payerPhone"
    FROM "Transaction" WHERE id = ${orderId}::uuid AND "organizationId" = ${organizationId}::uuid
    FOR UPDATE`;
  if (!transaction) throw new DomainError('transaction_not_found');
  if (transaction.status !== 'paid' && transaction.status !== 'paid_and_blocked') throw new DomainError('cannot_refund');

  const existing = await tx.refund.findUnique({ where: { transactionId: transaction.id } });
  if (existing?.status === 'pending') throw new DomainError('refund_in_progress');
  if (existing?.status === 'succeeded') throw new DomainError('cannot_refund');
  const { selectedPaymentMethod: method, payerPhone: phone } = transaction;
  if (!method || !phone) throw new Error(`transaction ${transaction.id} is ${transaction.status} but has no payment method or payer phone`);

  const amount = BigInt(transaction.amount);
  const intent: RefundIntent = {
    refundId: existing?.id ?? randomUUID(),
    attempt: existing ? existing.attempts + 1 : 1,
    organizationId,
    transactionId: transaction.id,
    method,
    phone,
    amount,
  };
  const description = postingTagOf(intent);

  // The Refund row first, the postings last: the merchant's `main` row (which every payment and
  // refund of the merchant updates) is then locked only for the last statement and the COMMIT.
  if (existing) {
    await tx.refund.update({
      where: { id: existing.id },
      data: { status: 'pending', attempts: intent.attempt, amount, method, failureReason: null, providerReference: '' },
    });
  } else {
    await tx.refund.create({ data: { id: intent.refundId, transactionId: transaction.id, organizationId, amount, method, status: 'pending', attempts: 1 } });
  }
  if (transaction.status === 'paid_and_blocked') {
    // DESIGN: the held proceeds first return to main, in this same transaction; then the rule
    // (main covers the amount) applies to main as it then is. The status leaves
    // paid_and_blocked with the money (`paid`, so an escrow release cannot move it a second time
    // while the refund is pending); a failed refund puts both back.
    const held = await heldInEscrow(tx, organizationId, transaction.id);
    if (held > 0n) {
      await tx.transaction.updateMany({ where: { id: transaction.id, status: 'paid_and_blocked' }, data: { status: 'paid' } });
      await post(tx, {
        kind: 'escrow_release',
        transactionId: transaction.id,
        description,
        movements: [
          { side: { organizationId, account: 'escrow' }, amount: -held },
          { side: { organizationId, account: 'main' }, amount: held },
        ],
      });
    }
  }
  // Throws insufficient_balance when main cannot cover it: the whole transaction rolls back.
  await post(tx, {
    kind: 'refund',
    transactionId: transaction.id,
    description,
    movements: [
      { side: { organizationId, account: 'main' }, amount: -amount },
      { side: { gateway: clearingAccountOf(method) }, amount },
    ],
  });

  return intent;
}

const REFUNDABLE: PreparedStatement = {
  name: 'gw_refund_find',
  text: `SELECT t.status::text AS status, t.amount, t."selectedPaymentMethod"::text AS "selectedPaymentMethod", t."payerPhone",
      EXISTS (SELECT 1 FROM "Refund" r WHERE r."transactionId" = t.id) AS "hasRefund"
    FROM "Transaction" t WHERE t.id = $1::uuid AND t."organizationId" = $2::uuid`,
};

/**
 * Phase 1 in ONE statement, for the common case (no Idempotency-Key; a `paid` transaction never
 * refunded): the debit of `main` with its entries and the Refund row `pending`, written only while
 * the transaction is still paid (its row locked for the statement) and `main` covers the amount.
 * No interactive transaction: `main`, which every payment of the merchant credits, is locked for
 * one statement instead of seven round trips. Null in every other case (not found or not
 * refundable, escrow, a retry after a failed refund, short of funds, a concurrent refund that
 * recorded first): nothing was written, and recordRefund then gives the exact answer.
 */
export async function recordRefundInOneStatement(ctx: GatewayContext, db: Db, organizationId: string, orderId: string): Promise<RefundIntent | null> {
  if (!isUuid(orderId)) return null;
  const [found] = await runStatement<LockedTransaction & { hasRefund: boolean }>(db, REFUNDABLE, [orderId, organizationId]);
  if (!found || found.status !== 'paid' || found.hasRefund || !found.selectedPaymentMethod || !found.payerPhone) return null;
  const method = found.selectedPaymentMethod;
  const intent: RefundIntent = { refundId: randomUUID(), attempt: 1, organizationId, transactionId: orderId, method, phone: found.payerPhone, amount: BigInt(found.amount) };
  const now = ctx.clock.now();
  const debit = debitPostingCtes({
    organizationId,
    account: 'main',
    kind: 'refund',
    about: { transactionId: orderId },
    description: postingTagOf(intent),
    debit: intent.amount,
    gatewaySides: [{ gateway: clearingAccountOf(method), amount: intent.amount }],
    onlyIf: 'refundable',
  });
  const statement = Prisma.sql`
    WITH refundable AS (
      SELECT id FROM "Transaction"
      WHERE id = ${orderId}::uuid AND "organizationId" = ${organizationId}::uuid AND status = 'paid' AND amount = ${String(intent.amount)}::bigint
      FOR UPDATE),
    ${debit},
    recorded AS (
      INSERT INTO "Refund" (id, "transactionId", "organizationId", amount, method, status, attempts, "createdAt", "updatedAt")
      SELECT ${intent.refundId}::uuid, ${orderId}::uuid, ${organizationId}::uuid, ${String(intent.amount)}::bigint, ${method}::"PaymentMethod", 'pending', 1,
        ${now}::timestamptz, ${now}::timestamptz
      FROM debited
      RETURNING id)
    SELECT id FROM recorded`;
  try {
    const rows = await runStatement<{ id: string }>(db, { name: 'gw_refund_record', text: statement.text }, statement.values);
    return rows[0] ? intent : null;
  } catch (error) {
    // Refund.transactionId is unique: a concurrent refund of it recorded first (this statement,
    // its debit included, rolled back). recordRefund answers 409.
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/**
 * Phase 2's call: the provider, once, bounded in time. A throw or no answer in time is "not
 * known yet" (pending), never "failed": the money may have left.
 */
export async function sendRefund(ctx: GatewayContext, intent: RefundIntent): Promise<ProviderAnswer> {
  const outcome = await callProviderOnce(
    ctx,
    (signal) => ctx.provider.refund({ method: intent.method, phone: intent.phone, amount: intent.amount, reference: providerReferenceOf(intent), signal }),
    { refundId: intent.refundId },
    'refund call to the provider failed; the reconciler will ask what became of it',
  );
  return answerOrPending(outcome);
}

/**
 * Phase 2's settlement (inside the caller's database transaction), by the request or by the
 * reconciler, whichever comes first: the Refund row is locked and only a `pending` row of this
 * attempt is settled; the later one finds it settled and answers what it became.
 */
export async function settleRefund(ctx: GatewayContext, tx: DbTransaction, intent: RefundIntent, answer: ProviderAnswer): Promise<Settlement<TransactionRecord>> {
  // Locks in one order in every refund path (the transaction, the refund, then accounts in
  // post()): a concurrent phase 1, escrow release or settlement waits instead of deadlocking.
  await tx.$queryRaw`SELECT id FROM "Transaction" WHERE id = ${intent.transactionId}::uuid FOR UPDATE`;
  const [refund] = await tx.$queryRaw<{ status: string; attempts: number }[]>`
    SELECT status::text AS status, attempts FROM "Refund" WHERE id = ${intent.refundId}::uuid FOR UPDATE`;
  if (!refund) throw new Error(`refund ${intent.refundId} vanished before it was settled`);
  if (refund.status !== 'pending' || refund.attempts !== intent.attempt) return settledAlready(ctx, tx, intent, refund, answer);

  const providerReference = answer.providerReference ?? '';
  if (answer.status === 'succeeded') {
    await tx.refund.update({ where: { id: intent.refundId }, data: { status: 'succeeded', providerReference } });
    const { count } = await tx.transaction.updateMany({
      where: { id: intent.transactionId, status: { in: ['paid', 'paid_and_blocked'] } },
      data: { status: 'refunded', refundedAt: ctx.clock.now() },
    });
    if (count !== 1) throw new Error(`refund ${intent.refundId} succeeded but transaction ${intent.transactionId} was no longer paid`);
    return { answer: await findVisibleTransaction(tx, null, intent.transactionId) };
  }
  if (answer.status === 'failed') {
    await reversePhaseOne(tx, intent);
    await tx.refund.update({ where: { id: intent.refundId }, data: { status: 'failed', providerReference, failureReason: answer.reason ?? 'refused by the provider' } });
    return { refusal: new DomainError('refund_failed') };
  }
  if (providerReference) await tx.refund.update({ where: { id: intent.refundId }, data: { providerReference } });
  return { unsettled: new DomainError('refund_unconfirmed') };
}

/**
 * The common settlement, the provider said yes, in ONE statement (no interactive transaction):
 * the Refund `succeeded` (only while it is this attempt and pending, and its transaction is still
 * paid) and the transaction `refunded`, returned as the answer. Null for any other answer or when
 * someone settled it first: settleRefund handles those.
 *
 * Lock order: the Transaction row FIRST (`locked`, an uncorrelated CTE PostgreSQL runs before it
 * touches the Refund), then the Refund row, as in every other refund path (recordRefund and
 * settleRefund). The old order (Refund, then Transaction) deadlocked against a concurrent phase 1
 * that held the Transaction row and waited on the Refund's unique index: PostgreSQL killed the
 * settlement of a refund the provider had executed (test/faults/refund-race.test.ts).
 */
export async function completeRefundInOneStatement(ctx: GatewayContext, db: Db, intent: RefundIntent, answer: ProviderAnswer): Promise<Settlement<TransactionRecord> | null> {
  if (answer.status !== 'succeeded') return null;
  const now = ctx.clock.now();
  const statement = Prisma.sql`
    WITH locked AS (
      SELECT id FROM "Transaction" WHERE id = ${intent.transactionId}::uuid AND status IN ('paid', 'paid_and_blocked') FOR UPDATE),
    settled AS (
      UPDATE "Refund" SET status = 'succeeded', "providerReference" = ${answer.providerReference ?? ''}::text, "updatedAt" = ${now}::timestamptz
      WHERE id = ${intent.refundId}::uuid AND status = 'pending' AND attempts = ${intent.attempt}::int AND EXISTS (SELECT 1 FROM locked)
      RETURNING "transactionId"),
    refunded AS (
      UPDATE "Transaction" t SET status = 'refunded', "refundedAt" = ${now}::timestamptz, "updatedAt" = ${now}::timestamptz
      FROM settled WHERE t.id = settled."transactionId"
      RETURNING t.*)
    SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))} FROM refunded t`;
  const rows = await runStatement<RawTransactionRow>(db, { name: 'gw_refund_complete', text: statement.text }, statement.values);
  return rows[0] ? { answer: transactionRecordOf(rows[0]) } : null;
}

/** Gives back what phase 1 took: the debit first (so main never dips), then the escrow release. */
async function reversePhaseOne(tx: DbTransaction, intent: RefundIntent): Promise<void> {
  const postings = await tx.ledgerEntry.findMany({
    where: { transactionId: intent.transactionId, description: postingTagOf(intent), kind: { in: ['refund', 'escrow_release'] } },
    select: { postingId: true, kind: true },
    distinct: ['postingId'],
  });
  const debit = postings.find((posting) => posting.kind === 'refund');
  const release = postings.find((posting) => posting.kind === 'escrow_release');
  const description = `${postingTagOf(intent)} failed`;
  if (debit) await reverse(tx, debit.postingId, 'refund_reversal', description);
  if (release) {
    await reverse(tx, release.postingId, 'refund_reversal', description);
    await tx.transaction.updateMany({ where: { id: intent.transactionId, status: 'paid' }, data: { status: 'paid_and_blocked' } });
  }
}

/** Someone settled this attempt first: answer what it became (and say so if the provider disagrees). */
async function settledAlready(
  ctx: GatewayContext,
  tx: DbTransaction,
  intent: RefundIntent,
  refund: { status: string; attempts: number },
  answer: ProviderAnswer,
): Promise<Settlement<TransactionRecord>> {
  if (refund.attempts !== intent.attempt) return { refusal: new DomainError('refund_in_progress') };
  if (answer.status !== 'pending' && answer.status !== refund.status) {
    ctx.log.error({ refundId: intent.refundId, recorded: refund.status, provider: answer.status }, 'the provider answered a refund differently from how it was settled: check it with the provider');
  }
  if (refund.status === 'succeeded') return { answer: await findVisibleTransaction(tx, null, intent.transactionId) };
  return { refusal: new DomainError('refund_failed') };
}

/** A refund recorded (and maybe sent) whose outcome the provider has not told us yet. */
interface OpenRefund extends OpenProviderCall {
  intent: RefundIntent;
}

/**
 * The store side of the refund reconciler (providerFlow.ts): pending refunds are asked about, never
 * sent again. A refund the provider says it never received stays pending (unknown is not
 * failed: it may yet appear, or the process crashed before sending it); after STUCK_AFTER_CHECKS
 * questions an operator decides (settleOpenRefund).
 */
export const openRefunds = (ctx: GatewayContext): OpenCallStore<OpenRefund> => ({
  kind: 'refund',
  listDue: (now, openedBefore, limit) =>
    selectOpenRefunds(ctx, Prisma.sql`((r."nextProviderCheckAt" IS NULL AND r."updatedAt" <= ${openedBefore}) OR r."nextProviderCheckAt" <= ${now})`, limit),
  listOpen: (minChecks, limit) => selectOpenRefunds(ctx, Prisma.sql`r."providerChecks" >= ${minChecks}`, limit),
  findOpen: async (id) => (isUuid(id) ? ((await selectOpenRefunds(ctx, Prisma.sql`r.id = ${id}::uuid`, 1))[0] ?? null) : null),
  ask: (call) => ctx.provider.refundStatus(call.reference),
  settle: (call, answer) => settleOpenRefund(ctx, call.intent, answer),
  async postpone(call, nextCheckAt) {
    await ctx.db.$executeRaw`UPDATE "Refund" SET "providerChecks" = "providerChecks" + 1, "nextProviderCheckAt" = ${nextCheckAt}
      WHERE id = ${call.id}::uuid AND status = 'pending' AND attempts = ${call.intent.attempt}`;
  },
  async countOpen(stuckAfterChecks) {
    const [row] = await ctx.db.$queryRaw<{ open: bigint; stuck: bigint }[]>`
      SELECT count(*) AS open, count(*) FILTER (WHERE "providerChecks" >= ${stuckAfterChecks}) AS stuck FROM "Refund" WHERE status = 'pending'`;
    return { open: Number(row?.open ?? 0), stuck: Number(row?.stuck ?? 0) };
  },
});

/** Pending refunds matching `where` (over Refund r), oldest first, as open provider calls. */
async function selectOpenRefunds(ctx: GatewayContext, where: Prisma.Sql, limit: number): Promise<OpenRefund[]> {
  const rows = await ctx.db.$queryRaw<{ id: string; attempts: number; organizationId: string; transactionId: string; method: PaymentMethod; payerPhone: string | null; amount: bigint; providerChecks: number; updatedAt: Date }[]>`
    SELECT r.id, r.attempts, r."organizationId", r."transactionId", r.method::text AS method, t."payerPhone", r.amount, r."providerChecks", r."updatedAt"
    FROM "Refund" r JOIN "Transaction" t ON t.id = r."transactionId"
    WHERE r.status = 'pending' AND ${where}
    ORDER BY r."updatedAt" LIMIT ${limit}`;
  return rows.map((row) => {
    const intent: RefundIntent = { refundId: row.id, attempt: row.attempts, organizationId: row.organizationId, transactionId: row.transactionId, method: row.method, phone: row.payerPhone ?? '', amount: BigInt(row.amount) };
    return { kind: 'refund', id: row.id, organizationId: row.organizationId, reference: providerReferenceOf(intent), providerChecks: row.providerChecks, openedAt: row.updatedAt, intent };
  });
}

/**
 * Applies a final outcome to a pending refund, by the reconciler or an operator: the same
 * settlement as the request's (it also completes an Idempotency-Key waiting on it). A no-op when
 * it was settled first; a refusal of the settled outcome (failed) is not an error here.
 */
export async function settleOpenRefund(ctx: GatewayContext, intent: RefundIntent, answer: ProviderAnswer): Promise<void> {
  try {
    await settleIntent(ctx, intent.organizationId, refundIntentName(intent), (tx) => settleRefund(ctx, tx, intent, answer));
  } catch (error) {
    if (error instanceof DomainError && (error.code === 'refund_failed' || error.code === 'refund_in_progress')) return;
    throw error;
  }
}

/** The reconciler's run over refunds (background.ts); safe in several instances at once. */
export function settlePendingRefunds(ctx: GatewayContext, options: { olderThanMs?: number; limit?: number } = {}): Promise<ReconcileTally> {
  return reconcileOpenCalls(ctx, openRefunds(ctx), options);
}
