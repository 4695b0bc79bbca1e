/** The payments' SQL: the read a payment starts from, the attempts' claim and settlement, the open attempts. */
import { Prisma, type PaymentAttempt } from '../../generated/prisma/client.js';
import type { Db, DbTransaction, ProviderAnswer } from '../ports.js';
import { FEE_RATE_COLUMNS, FEE_RATE_SELECT, takeFeeRates, type FeeRates } from '../ledger/fees.js';
import { clearingAccountOf, creditPostingCtes } from '../ledger/posting.js';
import { runStatement, type PreparedStatement } from '../statements.js';
import { transactionRecordOf, transactionWithProductsColumns, type RawTransactionRow } from '../transactions/store.js';
import type { TransactionRecord } from '../transactions/store.js';
import { paymentStatusOutboxCte } from '../webhooks/store.js';

/**
 * What a payment reads first, in ONE statement: the transaction, its organisation's fee rates, and
 * whether the organisation has an active webhook endpoint (its payment_status is then written with
 * the settlement).
 */
const READ_FOR_PAYMENT: PreparedStatement = {
  name: 'gw_read_for_payment',
  text: `SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"')).text},
      ${FEE_RATE_COLUMNS.map((column) => `o."${column}"`).join(', ')},
      EXISTS (SELECT 1 FROM "Webhook" w WHERE w."organizationId" = t."organizationId" AND w."isActive") AS "hasActiveWebhooks"
    FROM "Transaction" t JOIN "Organization" o ON o.id = t."organizationId"
    WHERE t.id = $1::uuid`,
};

export interface PaymentRead {
  transaction: TransactionRecord;
  feeRates: FeeRates;
  hasActiveWebhooks: boolean;
}

/** The transaction `id` (a UUID, any organisation's) as a payment needs it, or null. */
export async function readForPayment(db: Pick<Db, '$queryRawUnsafe'>, id: string): Promise<PaymentRead | null> {
  const [row] = await runStatement<RawTransactionRow & FeeRates & { hasActiveWebhooks: boolean }>(db, READ_FOR_PAYMENT, [id]);
  if (!row) return null;
  const { hasActiveWebhooks, ...columns } = row;
  const { feeRates, rest: transaction } = takeFeeRates(columns);
  return { transaction: transactionRecordOf(transaction), feeRates, hasActiveWebhooks };
}

/** The organisation's name and fee rates, as the checkout page shows them; null when it is gone. */
export async function readCheckoutOrganization(db: Db, organizationId: string): Promise<({ name: string } & FeeRates) | null> {
  return db.organization.findUnique({ where: { id: organizationId }, select: { name: true, ...FEE_RATE_SELECT } });
}

/** An attempt to record, with the terms the wallet is asked for. */
export interface NewAttempt {
  id: string;
  transactionId: string;
  method: PaymentAttempt['method'];
  phone: string;
  amount: bigint;
  fee: bigint;
  createdAt: Date;
}

/**
 * The claim and the attempt in ONE statement: the transaction's `collectingAttemptId` is set only
 * while it is pending and unclaimed, and the attempt is written `collecting` only if it was. Null
 * when the transaction could not be claimed.
 */
export async function claimForPayment(db: Pick<Db, '$queryRawUnsafe'>, attempt: NewAttempt): Promise<PaymentAttempt | null> {
  const claim = Prisma.sql`
    WITH claimed AS (
      UPDATE "Transaction" SET "collectingAttemptId" = ${attempt.id}::uuid
      WHERE id = ${attempt.transactionId}::uuid AND status = 'pending' AND "collectingAttemptId" IS NULL
      RETURNING id)
    INSERT INTO "PaymentAttempt" (id, "transactionId", method, phone, amount, fee, "createdAt")
    SELECT ${attempt.id}::uuid, id, ${attempt.method}::"PaymentMethod", ${attempt.phone}::text, ${attempt.amount}::bigint, ${attempt.fee}::bigint, ${attempt.createdAt}::timestamptz FROM claimed
    RETURNING id, "transactionId", method::text AS method, phone, amount, fee, state::text AS state, "providerReference", reason, "createdAt", "settledAt"`;
  const rows = await runStatement<PaymentAttempt>(db, { name: 'gw_payment_claim', text: claim.text }, claim.values);
  return rows[0] ?? null;
}

/** The transaction's status and claim as they are now; null when it does not exist. */
export async function claimStateOf(db: Db, transactionId: string): Promise<{ status: TransactionRecord['status']; collectingAttemptId: string | null } | null> {
  return db.transaction.findUnique({ where: { id: transactionId }, select: { status: true, collectingAttemptId: true } });
}

/** The provider's answer to `attempt`, as the settlement writes it. */
export interface Settlement {
  attempt: PaymentAttempt;
  state: PaymentAttempt['state'];
  answer: ProviderAnswer;
  now: Date;
  /** The paid transaction the payment_status webhooks are built from, when the merchant has endpoints. */
  notified: TransactionRecord | null;
}

/**
 * Writes the settlement in ONE statement (settleAttempt says why). Returns the transaction as the
 * statement left it, or null when the attempt was no longer collecting under the transaction's
 * claim (settled by someone else first: the statement changed nothing).
 */
export async function writeSettlement(db: Pick<Db, '$queryRawUnsafe'>, settlement: Settlement): Promise<TransactionRecord | null> {
  const statement = settlementStatement(settlement);
  // Three texts (unpaid; paid; paid with the outbox), each a named statement.
  const name =
    settlement.state !== 'succeeded' ? 'gw_payment_settle_unpaid' : settlement.notified ? 'gw_payment_settle_paid_notified' : 'gw_payment_settle_paid';
  const rows = await runStatement<RawTransactionRow>(db, { name, text: statement.text }, statement.values);
  return rows[0] ? transactionRecordOf(rows[0]) : null;
}

/**
 * The settlement as one statement. `closed`: the attempt, only while collecting and holding the
 * claim. `released`: the transaction, its claim released and, when the wallet paid, `pending` ->
 * `paid` (or `paid_and_blocked` for escrow) with the method, fees, paid_at and payer phone. Then,
 * when paid, the posting: the provider's clearing account owes what the wallet was charged, the
 * merchant is credited the proceeds (`main`, or `escrow`), the gateway keeps the fee. Then, when
 * the merchant has endpoints, its payment_status deliveries (the outbox).
 */
function settlementStatement({ attempt, state, answer, now, notified }: Settlement): Prisma.Sql {
  const paid = state === 'succeeded';
  const head = Prisma.sql`
    WITH closed AS (
      UPDATE "PaymentAttempt" SET state = ${state}::"PaymentAttemptState", "providerReference" = ${answer.providerReference}::text,
        reason = ${answer.reason ?? null}::text, "settledAt" = ${now}::timestamptz
      WHERE id = ${attempt.id}::uuid AND state = 'collecting'
        AND EXISTS (SELECT 1 FROM "Transaction" WHERE id = ${attempt.transactionId}::uuid AND "collectingAttemptId" = ${attempt.id}::uuid AND status = 'pending')
      RETURNING id),
    released AS (
      UPDATE "Transaction" t SET "collectingAttemptId" = NULL,
        status = CASE WHEN ${paid}::boolean THEN (CASE WHEN t."isEscrow" THEN 'paid_and_blocked' ELSE 'paid' END)::"TransactionStatus" ELSE t.status END,
        "selectedPaymentMethod" = CASE WHEN ${paid}::boolean THEN ${attempt.method}::"PaymentMethod" ELSE t."selectedPaymentMethod" END,
        fees = CASE WHEN ${paid}::boolean THEN ${attempt.fee}::bigint ELSE t.fees END,
        "paidAt" = CASE WHEN ${paid}::boolean THEN ${now}::timestamptz ELSE t."paidAt" END,
        "payerPhone" = CASE WHEN ${paid}::boolean THEN ${attempt.phone}::text ELSE t."payerPhone" END,
        "updatedAt" = CASE WHEN ${paid}::boolean THEN ${now}::timestamptz ELSE t."updatedAt" END
      FROM closed WHERE t.id = ${attempt.transactionId}::uuid AND t."collectingAttemptId" = closed.id
      RETURNING t.*, (CASE WHEN t."isEscrow" THEN 'escrow' ELSE 'main' END)::"AccountName" AS "accountName",
        (CASE WHEN t."isEscrow" THEN 'escrow_hold' ELSE 'payment' END)::"LedgerEntryKind" AS kind)`;
  // The transaction as this statement left it (the answer: no read after).
  const result = Prisma.sql`SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))} FROM released t`;
  if (!paid) return Prisma.sql`${head} ${result}`;
  const posting = creditPostingCtes({
    source: 'released',
    transactionId: attempt.transactionId,
    description: `${attempt.method} payment ${answer.providerReference}`.trim(),
    credit: attempt.amount - attempt.fee,
    gatewaySides: [
      { gateway: clearingAccountOf(attempt.method), amount: -attempt.amount },
      { gateway: 'fee_revenue', amount: attempt.fee },
    ],
  });
  if (!notified) return Prisma.sql`${head}, ${posting} ${result}`;
  return Prisma.sql`${head}, ${posting}, ${paymentStatusOutboxCte('released', notified, now)} ${result}`;
}

const READ_IF_NOTIFIED: PreparedStatement = {
  name: 'gw_payment_read_if_notified',
  text: `SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"')).text}
    FROM "Transaction" t
    WHERE t.id = $1::uuid AND EXISTS (SELECT 1 FROM "Webhook" w WHERE w."organizationId" = t."organizationId" AND w."isActive")`,
};

/** The transaction when its organisation has an active webhook endpoint; null without one (one EXISTS, no read of the row). */
export async function readTransactionIfNotified(db: Pick<Db, '$queryRawUnsafe'>, transactionId: string): Promise<TransactionRecord | null> {
  const [row] = await runStatement<RawTransactionRow>(db, READ_IF_NOTIFIED, [transactionId]);
  return row ? transactionRecordOf(row) : null;
}

/** The attempt's state and transaction, or null when there is no such attempt. */
export async function attemptSummaryOf(
  db: Db,
  attemptId: string,
): Promise<Pick<PaymentAttempt, 'state' | 'transactionId' | 'method' | 'amount' | 'providerReference'> | null> {
  return db.paymentAttempt.findUnique({
    where: { id: attemptId },
    select: { state: true, transactionId: true, method: true, amount: true, providerReference: true },
  });
}

export async function attemptStateOf(db: Db, attemptId: string): Promise<PaymentAttempt['state']> {
  return (await db.paymentAttempt.findUniqueOrThrow({ where: { id: attemptId }, select: { state: true } })).state;
}

/** An attempt still collecting, with its transaction's organisation. */
export type CollectingAttempt = PaymentAttempt & { organizationId: string };

/** Collecting attempts due a question: never asked and opened before `openedBefore`, or whose next check has come. Oldest first. */
export function dueAttempts(db: Db, now: Date, openedBefore: Date, limit: number): Promise<CollectingAttempt[]> {
  return collectingAttempts(db, { OR: [{ nextProviderCheckAt: null, createdAt: { lte: openedBefore } }, { nextProviderCheckAt: { lte: now } }] }, limit);
}

/** Collecting attempts the provider was asked about at least `minChecks` times, oldest first. */
export function attemptsCheckedAtLeast(db: Db, minChecks: number, limit: number): Promise<CollectingAttempt[]> {
  return collectingAttempts(db, { providerChecks: { gte: minChecks } }, limit);
}

/** The attempt `id` (a UUID) while it is collecting, else null. */
export async function collectingAttempt(db: Db, id: string): Promise<CollectingAttempt | null> {
  return (await collectingAttempts(db, { id }, 1))[0] ?? null;
}

async function collectingAttempts(db: Db, where: Prisma.PaymentAttemptWhereInput, limit: number): Promise<CollectingAttempt[]> {
  const attempts = await db.paymentAttempt.findMany({
    where: { AND: [{ state: 'collecting' }, where] },
    orderBy: { createdAt: 'asc' },
    take: limit,
    include: { transaction: { select: { organizationId: true } } },
  });
  return attempts.map(({ transaction, ...attempt }) => ({ ...attempt, organizationId: transaction.organizationId }));
}

/** Counts one more question about a collecting attempt and when to ask the next. */
export async function postponeAttemptCheck(db: Db, attemptId: string, nextCheckAt: Date): Promise<void> {
  await db.paymentAttempt.updateMany({
    where: { id: attemptId, state: 'collecting' },
    data: { providerChecks: { increment: 1 }, nextProviderCheckAt: nextCheckAt },
  });
}

/** Attempts collecting, and those of them asked about at least `stuckAfterChecks` times. */
export async function countCollectingAttempts(db: Db, stuckAfterChecks: number): Promise<{ open: number; stuck: number }> {
  const [open, stuck] = await Promise.all([
    db.paymentAttempt.count({ where: { state: 'collecting' } }),
    db.paymentAttempt.count({ where: { state: 'collecting', providerChecks: { gte: stuckAfterChecks } } }),
  ]);
  return { open, stuck };
}

/**
 * An escrow release's status change, inside the release's transaction: `paid_and_blocked` ->
 * `paid`, only while still held (of two concurrent releases, or a release racing a refund, one
 * finds it no longer held). True when this call changed it.
 */
export async function markEscrowReleased(tx: DbTransaction, transactionId: string): Promise<boolean> {
  const { count } = await tx.transaction.updateMany({ where: { id: transactionId, status: 'paid_and_blocked' }, data: { status: 'paid' } });
  return count === 1;
}

// ---------------------------------------------------------------------------------------------
// Late payments (latePayments.ts): confirmed by the provider after the attempt was closed

/** A closed attempt the provider says was paid after all, as the late payment needs it. */
export interface LateAttempt {
  id: string;
  transactionId: string;
  organizationId: string;
  method: PaymentAttempt['method'];
  phone: string;
  amount: bigint;
  state: PaymentAttempt['state'];
}

/** The attempt `id` with its transaction's organisation, whatever its state; null when unknown. */
export async function lateAttemptOf(db: Db, id: string): Promise<LateAttempt | null> {
  const attempt = await db.paymentAttempt.findUnique({
    where: { id },
    select: { id: true, transactionId: true, method: true, phone: true, amount: true, state: true, transaction: { select: { organizationId: true } } },
  });
  if (!attempt) return null;
  const { transaction, ...rest } = attempt;
  return { ...rest, organizationId: transaction.organizationId };
}

/**
 * Reopens a closed attempt the provider says was paid, in ONE statement, when its transaction can
 * still be paid by it (pending and not claimed by another attempt): the transaction is claimed for
 * it, the attempt is `collecting` again (the ordinary settlement then records the payment, or the
 * reconciler does after a crash), and the late payment is noted `recorded`. False when the
 * transaction can no longer be paid by it (or it was reopened already).
 */
export async function reopenForLatePayment(db: Pick<Db, '$queryRawUnsafe'>, attempt: LateAttempt, providerReference: string): Promise<boolean> {
  const statement = Prisma.sql`
    WITH claimed AS (
      UPDATE "Transaction" SET "collectingAttemptId" = ${attempt.id}::uuid
      WHERE id = ${attempt.transactionId}::uuid AND status = 'pending' AND "collectingAttemptId" IS NULL
        AND EXISTS (SELECT 1 FROM "PaymentAttempt" WHERE id = ${attempt.id}::uuid AND state IN ('unconfirmed', 'failed'))
      RETURNING id),
    reopened AS (
      UPDATE "PaymentAttempt" p SET state = 'collecting', "settledAt" = NULL, reason = NULL
      FROM claimed WHERE p.id = ${attempt.id}::uuid AND p.state IN ('unconfirmed', 'failed')
      RETURNING p.id),
    noted AS (
      INSERT INTO "LatePayment" ("attemptId", "transactionId", "organizationId", method, amount, "providerReference", outcome)
      SELECT ${attempt.id}::uuid, ${attempt.transactionId}::uuid, ${attempt.organizationId}::uuid, ${attempt.method}::"PaymentMethod", ${attempt.amount}::bigint, ${providerReference}::text, 'recorded'
      FROM reopened ON CONFLICT ("attemptId") DO NOTHING RETURNING "attemptId")
    SELECT (SELECT count(*) FROM reopened)::int AS reopened, (SELECT count(*) FROM noted)::int AS noted`;
  const [row] = await runStatement<{ reopened: number }>(db, { name: 'gw_late_payment_reopen', text: statement.text }, statement.values);
  return (row?.reopened ?? 0) > 0;
}

export interface LatePaymentRow {
  attemptId: string;
  transactionId: string;
  organizationId: string;
  method: PaymentAttempt['method'];
  amount: bigint;
  providerReference: string;
  outcome: 'recorded' | 'returning' | 'returned' | 'return_failed';
  reason: string | null;
  returnReference: string;
  providerChecks: number;
  createdAt: Date;
  settledAt: Date | null;
}

/** Notes a late payment to return (once per attempt: a duplicate notification finds it). Returns the row as it is. */
export async function recordLateReturn(
  db: Db,
  attempt: LateAttempt,
  providerReference: string,
  returnReference: string,
  reason: string,
): Promise<{ row: LatePaymentRow; inserted: boolean }> {
  const { count } = await db.latePayment.createMany({
    data: [
      {
        attemptId: attempt.id,
        transactionId: attempt.transactionId,
        organizationId: attempt.organizationId,
        method: attempt.method,
        amount: attempt.amount,
        providerReference,
        outcome: 'returning',
        reason,
        returnReference,
      },
    ],
    skipDuplicates: true,
  });
  return { row: (await db.latePayment.findUniqueOrThrow({ where: { attemptId: attempt.id } })) as LatePaymentRow, inserted: count === 1 };
}

/** The return's final outcome, only while it is `returning` (a later settler changes nothing). True when this call settled it. */
export async function settleLateReturn(db: Db, attemptId: string, outcome: 'returned' | 'return_failed', reason: string | null, now: Date): Promise<boolean> {
  const { count } = await db.latePayment.updateMany({
    where: { attemptId, outcome: 'returning' },
    data: { outcome, ...(reason && { reason }), settledAt: now },
  });
  return count === 1;
}

const returningWhere = (extra: Prisma.LatePaymentWhereInput): Prisma.LatePaymentWhereInput => ({ AND: [{ outcome: 'returning' }, extra] });

/** Returns due a question: first once older than `openedBefore`, then at their next check time. Oldest first. */
export async function dueLateReturns(db: Db, now: Date, openedBefore: Date, limit: number): Promise<LatePaymentRow[]> {
  return (await db.latePayment.findMany({
    where: returningWhere({ OR: [{ nextProviderCheckAt: null, createdAt: { lte: openedBefore } }, { nextProviderCheckAt: { lte: now } }] }),
    orderBy: { createdAt: 'asc' },
    take: limit,
  })) as LatePaymentRow[];
}

export async function openLateReturns(db: Db, minChecks: number, limit: number): Promise<LatePaymentRow[]> {
  return (await db.latePayment.findMany({
    where: returningWhere({ providerChecks: { gte: minChecks } }),
    orderBy: { createdAt: 'asc' },
    take: limit,
  })) as LatePaymentRow[];
}

export async function openLateReturn(db: Db, attemptId: string): Promise<LatePaymentRow | null> {
  return (await db.latePayment.findFirst({ where: returningWhere({ attemptId }) })) as LatePaymentRow | null;
}

/**
 * One instance's claim on an open return for one question or re-send (see claimRefundCheck): the
 * return's next check moves to `until` only when it is due, so two instances never send it at once,
 * and a killed instance's claim lapses at `until`.
 */
export async function claimLateReturnCheck(db: Db, attemptId: string, now: Date, until: Date): Promise<boolean> {
  const { count } = await db.latePayment.updateMany({
    where: { attemptId, outcome: 'returning', OR: [{ nextProviderCheckAt: null }, { nextProviderCheckAt: { lte: now } }] },
    data: { nextProviderCheckAt: until },
  });
  return count === 1;
}

export async function postponeLateReturn(db: Db, attemptId: string, nextCheckAt: Date): Promise<void> {
  await db.latePayment.updateMany({ where: { attemptId, outcome: 'returning' }, data: { providerChecks: { increment: 1 }, nextProviderCheckAt: nextCheckAt } });
}

export async function countLateReturns(db: Db, stuckAfterChecks: number): Promise<{ open: number; stuck: number }> {
  const [open, stuck] = await Promise.all([
    db.latePayment.count({ where: { outcome: 'returning' } }),
    db.latePayment.count({ where: { outcome: 'returning', providerChecks: { gte: stuckAfterChecks } } }),
  ]);
  return { open, stuck };
}

/** Late payments, newest first (operators), at most `limit`. */
export async function listLatePaymentRows(db: Db, limit: number): Promise<LatePaymentRow[]> {
  return (await db.latePayment.findMany({ orderBy: { createdAt: 'desc' }, take: limit })) as LatePaymentRow[];
}
