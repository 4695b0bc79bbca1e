/**
 * Payment attempts: the record that makes "ask the wallet to pay" safe to run concurrently and to
 * survive a crash. Money comes IN here, so the danger is collecting twice (the customer double
 * clicks, or two tabs pay at once): both wallets would be charged and only one payment recorded.
 *
 *   1. claim: ONE statement sets the transaction's `collectingAttemptId` (a conditional update:
 *      only while it is pending and unclaimed) and writes the attempt `collecting`. Of concurrent
 *      payments exactly one claims it; the others are refused (409) before any wallet is asked,
 *      and so is a cancel.
 *   2. the provider is asked once, with the attempt's id as the reference.
 *   3. settle: the answer is written and the claim released. `succeeded` moves the transaction
 *      out of pending with its ledger posting in the same database transaction; `failed` /
 *      `pending` (never confirmed) move nothing, so the customer may try again.
 *
 * A crash (or a provider that never answers) between 1 and 3 leaves the attempt `collecting` and
 * the claim held; the reconciler below asks the provider what became of it (never collecting
 * again) and settles it.
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type PaymentAttempt } from '../../generated/prisma/client.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { runStatement, type PreparedStatement } from '../statements.js';
import { clearingAccountOf, creditPostingCtes } from '../ledger/posting.js';
import type { ProviderAnswer } from '../ports.js';
import { reconcileOpenCalls, type OpenCallStore, type OpenProviderCall, type ReconcileTally } from '../providerFlow.js';
import { paymentStatusBodyV1, paymentStatusBodyV2 } from '../webhooks/bodies.js';
import { paymentStatusOutboxCte } from '../webhooks/outbox.js';
import { isUuid } from '../ids.js';
import { transactionRecordOf, transactionWithProductsColumns, type RawTransactionRow, type TransactionRecord } from '../transactions/transactions.js';

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


/** Phase 1: the claim and the attempt, in one statement, before the wallet is asked. */
export async function recordAttempt(ctx: GatewayContext, transactionId: string, terms: AttemptTerms): Promise<PaymentAttempt> {
  const attemptId = randomUUID();
  const claim = Prisma.sql`
    WITH claimed AS (
      UPDATE "Transaction" SET "collectingAttemptId" = ${attemptId}::uuid
      WHERE id = ${transactionId}::uuid AND status = 'pending' AND "collectingAttemptId" IS NULL
      RETURNING id)
    INSERT INTO "PaymentAttempt" (id, "transactionId", method, phone, amount, fee, "createdAt")
    SELECT ${attemptId}::uuid, id, ${terms.method}::"PaymentMethod", ${terms.phone}::text, ${terms.amount}::bigint, ${terms.fee}::bigint, ${ctx.clock.now()}::timestamptz FROM claimed
    RETURNING id, "transactionId", method::text AS method, phone, amount, fee, state::text AS state, "providerReference", reason, "createdAt", "settledAt"`;
  const rows = await runStatement<PaymentAttempt>(ctx.db, { name: 'gw_payment_claim', text: claim.text }, claim.values);
  if (rows[0]) return rows[0];
  throw await whyNotClaimable(ctx.db, transactionId);
}

/** Why a transaction could not be claimed (or cancelled): paid or cancelled meanwhile, or a wallet is being asked. */
export async function whyNotClaimable(db: Pick<DbTransaction, 'transaction'>, transactionId: string): Promise<DomainError> {
  const now = await db.transaction.findUnique({ where: { id: transactionId }, select: { status: true, collectingAttemptId: true } });
  if (!now) return new DomainError('transaction_not_found');
  if (now.status !== 'pending') return new DomainError('transaction_not_payable', now.status);
  return new DomainError('payment_in_progress');
}

/**
 * Phase 3: writes the provider's answer in ONE statement (atomic without a transaction, so the
 * merchant's hot `main` row is locked only while PostgreSQL runs it): the attempt is closed
 * (conditionally: only while `collecting` and still holding the transaction's claim), the claim
 * released, and on success the transaction paid with its posting. When a reconciler settled the
 * attempt first, this changes nothing. Returns the attempt's state after it (`collecting` when
 * there was no answer).
 */
export async function settleAttempt(ctx: GatewayContext, attempt: PaymentAttempt, answer: WalletAnswer, claimed?: ClaimedTransaction): Promise<Settled> {
  // No answer: the attempt keeps the transaction until the reconciler learns what happened.
  if (answer.status === 'unknown') return { state: 'collecting' };
  const state: PaymentAttempt['state'] = answer.status === 'succeeded' ? 'succeeded' : answer.status === 'failed' ? 'failed' : 'unconfirmed';
  const now = ctx.clock.now();
  // A payment of a merchant with webhook endpoints also writes their payment_status deliveries
  // (the outbox) in the same statement, with bodies built from the transaction as it will be
  // paid. An endpoint registered while this runs may or may not get this event, like one
  // registered just after it.
  const paid = state === 'succeeded' ? await paidProjectionIfNotified(ctx, attempt, now, claimed) : null;
  const settlement = settlementStatement(attempt, state, answer, now, paid);
  // Three texts (unpaid; paid; paid with the outbox), each a named statement.
  const name = state !== 'succeeded' ? 'gw_payment_settle_unpaid' : paid ? 'gw_payment_settle_paid_notified' : 'gw_payment_settle_paid';
  const rows = await runStatement<RawTransactionRow>(ctx.db, { name, text: settlement.text }, settlement.values);
  if (rows[0]) {
    const transaction = transactionRecordOf(rows[0]);
    if (paid) checkProjection(ctx, paid, transaction);
    return { state, transaction };
  }
  // Settled by someone else first (a reconciler): their answer stands. Still collecting means the
  // claim was lost, which the rules forbid: fail loudly, leaving the attempt to the reconciler.
  const settled = await currentStateOf(ctx, attempt);
  if (settled === 'collecting') throw new Error(`payment attempt ${attempt.id} could not be settled: transaction ${attempt.transactionId} is no longer pending under it`);
  return { state: settled };
}

/** The attempt's state after settling, and the transaction as the settlement left it (when this settlement closed it). */
export interface Settled {
  state: PaymentAttempt['state'];
  transaction?: TransactionRecord;
}

/**
 * The settlement as one statement. `closed`: the attempt, only while collecting and holding the
 * claim. `released`: the transaction, its claim released and, when the wallet paid, `pending` ->
 * `paid` (or `paid_and_blocked` for escrow) with the method, fees, paid_at and payer phone. Then,
 * when paid, the posting: the provider's clearing account owes what the wallet was charged, the
 * merchant is credited the proceeds (`main`, or `escrow`), the gateway keeps the fee.
 */
function settlementStatement(attempt: PaymentAttempt, state: PaymentAttempt['state'], answer: ProviderAnswer, now: Date, notified: TransactionRecord | null): Prisma.Sql {
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

/**
 * The pending transaction as the caller read it before claiming it, and whether its organisation
 * has an active webhook endpoint: a pending transaction changes only by its claim or a cancel
 * (which the claim excludes), so it is still so at settlement and need not be read again.
 */
export interface ClaimedTransaction {
  transaction: TransactionRecord;
  hasActiveWebhooks: boolean;
}

/**
 * When the merchant has an active webhook endpoint: the transaction as the paid settlement will
 * leave it (with the settlement's changes applied), to build the payment_status bodies before the
 * statement runs. From `claimed` when the caller has it (the payment request), else read (the
 * reconciler: one EXISTS, no read of the row without an endpoint). Null without an endpoint.
 * The transaction cannot change meanwhile but by this settlement: the attempt holds its claim.
 */
async function paidProjectionIfNotified(ctx: GatewayContext, attempt: PaymentAttempt, now: Date, claimed?: ClaimedTransaction): Promise<TransactionRecord | null> {
  let before: TransactionRecord;
  if (claimed) {
    if (!claimed.hasActiveWebhooks) return null;
    before = claimed.transaction;
  } else {
    const [row] = await runStatement<RawTransactionRow>(ctx.db, READ_IF_NOTIFIED, [attempt.transactionId]);
    if (!row) return null;
    before = transactionRecordOf(row);
  }
  return {
    ...before,
    status: before.isEscrow ? 'paid_and_blocked' : 'paid',
    selectedPaymentMethod: attempt.method,
    fees: attempt.fee,
    paidAt: now,
    payerPhone: attempt.phone,
    updatedAt: now,
    collectingAttemptId: null,
  };
}

const READ_IF_NOTIFIED: PreparedStatement = {
  name: 'gw_payment_read_if_notified',
  text: `SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"')).text}
    FROM "Transaction" t
    WHERE t.id = $1::uuid AND EXISTS (SELECT 1 FROM "Webhook" w WHERE w."organizationId" = t."organizationId" AND w."isActive")`,
};

/**
 * The bodies were built from the projection: if the settled row ever differs from it (a column
 * the settlement sets and the projection forgot), say so loudly; the test suite compares them too.
 */
function checkProjection(ctx: GatewayContext, projected: TransactionRecord, settled: TransactionRecord): void {
  if (paymentStatusBodyV2(projected) === paymentStatusBodyV2(settled) && paymentStatusBodyV1(projected) === paymentStatusBodyV1(settled)) return;
  ctx.log.error({ transactionId: settled.id, projected: paymentStatusBodyV2(projected), settled: paymentStatusBodyV2(settled) }, 'payment_status webhook body differs from the settled transaction: fix paidProjectionIfNotified');
}

async function currentStateOf(ctx: GatewayContext, attempt: PaymentAttempt): Promise<PaymentAttempt['state']> {
  return (await ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id }, select: { state: true } })).state;
}

/** An attempt left `collecting` (a crash, or no answer in time): the wallet may or may not have collected. */
interface OpenAttempt extends OpenProviderCall {
  attempt: PaymentAttempt;
}

/**
 * The store side of the payment reconciler (providerFlow.ts): attempts left `collecting` are asked
 * about, never collected again. paid -> the payment is recorded; declined or unconfirmed -> the
 * attempt closes and the customer may pay again; never received ("not found") -> it stays open
 * (unknown is not failed) and is asked again with backoff until the provider knows it or an
 * operator decides (settleOpenAttempt).
 */
export const openAttempts = (ctx: GatewayContext): OpenCallStore<OpenAttempt> => ({
  kind: 'payment',
  finalStatuses: ['succeeded', 'failed', 'pending'],
  listDue: (now, openedBefore, limit) =>
    selectOpenAttempts(ctx, { OR: [{ nextProviderCheckAt: null, createdAt: { lte: openedBefore } }, { nextProviderCheckAt: { lte: now } }] }, limit),
  listOpen: (minChecks, limit) => selectOpenAttempts(ctx, { providerChecks: { gte: minChecks } }, limit),
  findOpen: async (id) => (isUuid(id) ? ((await selectOpenAttempts(ctx, { id }, 1))[0] ?? null) : null),
  ask: (call) => ctx.provider.collectStatus(call.reference),
  settle: async (call, answer) => {
    await settleAttempt(ctx, call.attempt, answer);
  },
  async postpone(call, nextCheckAt) {
    await ctx.db.paymentAttempt.updateMany({ where: { id: call.id, state: 'collecting' }, data: { providerChecks: { increment: 1 }, nextProviderCheckAt: nextCheckAt } });
  },
  async countOpen(stuckAfterChecks) {
    const [open, stuck] = await Promise.all([
      ctx.db.paymentAttempt.count({ where: { state: 'collecting' } }),
      ctx.db.paymentAttempt.count({ where: { state: 'collecting', providerChecks: { gte: stuckAfterChecks } } }),
    ]);
    return { open, stuck };
  },
});

/** Attempts still collecting that match `where`, oldest first, as open provider calls. */
async function selectOpenAttempts(ctx: GatewayContext, where: Prisma.PaymentAttemptWhereInput, limit: number): Promise<OpenAttempt[]> {
  const attempts = await ctx.db.paymentAttempt.findMany({
    where: { AND: [{ state: 'collecting' }, where] },
    orderBy: { createdAt: 'asc' },
    take: limit,
    include: { transaction: { select: { organizationId: true } } },
  });
  return attempts.map(({ transaction, ...attempt }) => ({
    kind: 'payment',
    id: attempt.id,
    organizationId: transaction.organizationId,
    reference: attempt.id,
    providerChecks: attempt.providerChecks,
    openedAt: attempt.createdAt,
    attempt,
  }));
}

/** The reconciler's run over payment attempts (background.ts); safe in several instances at once. */
export function settleStalePaymentAttempts(ctx: GatewayContext, options: { olderThanMs?: number; limit?: number } = {}): Promise<ReconcileTally> {
  return reconcileOpenCalls(ctx, openAttempts(ctx), options);
}
