/**
 * The refunds' store: the only place their SQL lives, one function per effect. Each money effect
 * is ONE statement, run as it is on `ctx.db` (a request without an Idempotency-Key: the statement
 * is atomic by itself, and the merchant's hot `main` row is locked for that one statement) or in
 * the key's database transaction (the key row then commits with it).
 *
 * Lock order, in every refund path: the Transaction row first, then the Refund row, then the
 * merchant's accounts (escrow before main, as post() orders them). The old order of one path
 * (Refund, then Transaction) deadlocked against a concurrent first phase that held the Transaction
 * row and waited on the Refund's unique index: PostgreSQL killed the settlement of a refund the
 * provider had executed (test/faults/refund-race.test.ts).
 *
 * Every statement's postings compose the ledger's one posting builder (ledger/posting.ts): the
 * common record statement (a paid transaction's first refund) one posting, its amount and clearing
 * account read from the row it locked (statementPostingCtes); the general record statement and a
 * failed refund's reversal two postings over one merchant account (a refund of a held transaction
 * is escrow -> main, then main -> the provider's clearing account; its reversal undoes both), where
 * one statement may update a row only once: `main` moves once, by their net, and each posting's
 * entries record the balance after it (statementPostingsCtes).
 */
import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { GatewayContext } from '../context.js';
import { DomainError, isErrorCode } from '../errors.js';
import { isUuid } from '../ids.js';
import { statementPostingCtes, statementPostingsCtes } from '../ledger/posting.js';
import { PAYMENT_METHOD_CATALOGUE } from '../paymentMethods.js';
import type { Db, DbTransaction, ProviderAnswer } from '../ports.js';
import { isUniqueViolation, runStatement } from '../statements.js';
import { transactionRecordOf, transactionWithProductsColumns, type RawTransactionRow } from '../transactions/transactions.js';
import type { TransactionRecord } from '../transactions/store.js';
import { auditEventStatementPart, type AuditEventInput } from '../audit/recordAuditEvent.js';
import { eventOutboxCte } from '../webhooks/store.js';

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
  /**
   * The provider's own reference of the payment refunded ('' when none was recorded): a real
   * provider refunds a payment by its id (Wave: the checkout session). Read by the statement that
   * records the refund, so sending it costs no extra round trip.
   */
  paymentReference: string;
  /**
   * The transaction as phase 1 found it, paid, when the common shape recorded the refund (absent
   * when rebuilt from the Refund row, or recorded by the general shape): its success projects the
   * refund_status body from it and settles in ONE statement.
   */
  paidTransaction?: TransactionRecord;
}

/** The provider's reference of the attempt that paid transaction `t` (a subquery: `t` is the outer row). */
const PAYMENT_REFERENCE_OF_T = `COALESCE((SELECT pa."providerReference" FROM "PaymentAttempt" pa
        WHERE pa."transactionId" = t.id AND pa.state = 'succeeded' ORDER BY pa."settledAt" DESC LIMIT 1), '')`;

/** Phase 1's postings carry this description: how settlement (even a reconciler's) finds them to reverse. */
const postingTagOf = (intent: Pick<RefundIntent, 'refundId' | 'attempt'>): string => `refund ${intent.refundId} attempt ${intent.attempt}`;

/** Every method with its provider's clearing account (the catalogue's rows), as the statement's join. */
const METHODS = Object.keys(PAYMENT_METHOD_CATALOGUE) as PaymentMethod[];
const CLEARING_ACCOUNTS = METHODS.map((method) => PAYMENT_METHOD_CATALOGUE[method].clearingAccount);

/**
 * Phase 1, ONE statement: takes the transaction's refund gate (a transaction-scoped advisory lock:
 * a concurrent refund of it answers 409 at once instead of queueing behind its row lock), locks
 * the transaction (paid or paid_and_blocked), its Refund row if any (a new attempt only after a
 * failed one) and the accounts it moves, and writes only when they cover it:
 * - held (paid_and_blocked): the proceeds return from `escrow` to `main` and the status leaves
 *   paid_and_blocked with the money (`paid`, so an escrow release cannot move it a second time
 *   while the refund is pending; a failed refund puts both back);
 * - `main` is debited by the amount (the provider's clearing account owes it back);
 * - the Refund row `pending`: a new one, or the next attempt of a failed one.
 * The checks read the rows this statement locked (their latest versions), so nothing is decided
 * on a stale view; the writes then cannot be refused. Nothing written: the general shape names
 * why (refusalOfAny), and this throws that refusal.
 */
/** Who asks for the refund: its audit entry (`transaction.refunded`) is written by the record statement, with the debit. */
export type RefundAudit = Pick<AuditEventInput, 'actor'>;

export async function recordRefund(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  organizationId: string,
  orderId: string,
  audit?: RefundAudit,
): Promise<RefundIntent> {
  if (!isUuid(orderId)) throw new DomainError('transaction_not_found');
  // The common case first, in its lighter shape; anything it does not cover (held in escrow, a
  // new attempt after a failed refund, every refusal) wrote nothing there and is decided by the
  // general shape, which records the refund or names why not.
  const row = (await recordInShape(ctx, db, organizationId, orderId, 'paid', audit)) ?? (await recordInShape(ctx, db, organizationId, orderId, 'any', audit));
  if (!row) throw new DomainError('refund_in_progress');
  return {
    refundId: row.refundId,
    attempt: row.attempt,
    organizationId,
    transactionId: orderId,
    method: row.method,
    phone: row.phone,
    amount: BigInt(row.amount),
    paymentReference: row.paymentReference,
    ...(row.paidTransaction && { paidTransaction: row.paidTransaction }),
  };
}

/**
 * The two shapes of the one record statement: `paid` covers a paid transaction never refunded
 * (the common case, in the form that holds `main` the shortest time); `any` covers every case.
 * Null when the statement wrote nothing.
 */
export type RecordShape = 'paid' | 'any';
type RecordedRow = {
  refundId: string;
  attempt: number;
  amount: bigint;
  method: PaymentMethod;
  phone: string;
  paymentReference: string;
  paidTransaction?: TransactionRecord;
};

/** One shape alone (exported for the test that proves the general shape's snapshot guard). */
export async function recordInShape(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  organizationId: string,
  orderId: string,
  shape: RecordShape,
  audit?: RefundAudit,
): Promise<RecordedRow | null> {
  const audited = refundAuditCte(ctx, organizationId, orderId, audit);
  const statement =
    shape === 'paid' ? recordPaidRefundStatement(ctx, organizationId, orderId, audited) : recordAnyRefundStatement(ctx, organizationId, orderId, audited);
  let row: ({ free: boolean; refusal?: string | null } & { [K in keyof RecordedRow]: RecordedRow[K] | null }) | undefined;
  try {
    // Prepared by name: one name per text (with or without the audit entry).
    [row] = await runStatement(db, { name: `gw_refund_record_${shape}${audit ? '_audited' : ''}`, text: statement.text }, statement.values);
  } catch (error) {
    // The paid shape only: a refund of this transaction committed after the statement's snapshot
    // (see recordPaidRefundStatement); the statement, its debit included, rolled back.
    if (isUniqueViolation(error)) throw new DomainError('refund_in_progress');
    throw error;
  }
  if (!row?.free) throw new DomainError('refund_in_progress');
  if (row.refundId && shape === 'paid') return recordedPaidRow(row as unknown as PaidRecordedRow);
  if (row.refundId) return row as RecordedRow;
  // The general shape names its refusal (refusalOfAny); the common one has none: null, the general shape decides.
  if (row.refusal === 'unpayable') throw new Error(`transaction ${orderId} is paid but has no payment method or payer phone`);
  if (row.refusal) throw new DomainError(isErrorCode(row.refusal) ? row.refusal : 'refund_in_progress');
  return null;
}

/**
 * The common shape: a paid transaction never refunded. It locks `main` by the conditional debit
 * itself (no read of the accounts before): under one merchant's load every refund queues on
 * `main`, so the less a statement does while holding it, the more refunds a second (the bench:
 * 0.65-0.70 of the floor with a locking read of the accounts first, 0.87 without). The Refund row
 * is inserted after the debit, so its unique index cannot be resolved by "do nothing" (the debit
 * would stand without it): a refund committed after this statement's snapshot (between the
 * snapshot and the gate) makes the insert fail, which rolls the whole statement back.
 */
/**
 * The audit entry as the record statement's last CTE (`audited`, after a comma), one per refund it
 * recorded (`recorded` returns its id, amount and attempt); nothing when no actor is given.
 */
function refundAuditCte(ctx: GatewayContext, organizationId: string, orderId: string, audit: RefundAudit | undefined): Prisma.Sql {
  if (!audit) return Prisma.empty;
  const event = { organizationId, actor: audit.actor, action: 'transaction.refunded' as const, target: orderId, at: ctx.clock.now() };
  return Prisma.sql`,
    ${auditEventStatementPart('audited', 'recorded', event, Prisma.sql`jsonb_build_object('refundId', s.id, 'attempt', s.attempts, 'amount', s.amount)`)}`;
}

/** What the common shape returns: the refund, and the paid transaction it refunds (its columns). */
type PaidRecordedRow = Pick<RecordedRow, 'refundId' | 'attempt' | 'paymentReference'> & RawTransactionRow;

function recordedPaidRow({ refundId, attempt, paymentReference, ...transaction }: PaidRecordedRow): RecordedRow {
  const paidTransaction = transactionRecordOf(transaction);
  if (!paidTransaction.selectedPaymentMethod || !paidTransaction.payerPhone)
    throw new Error(`transaction ${paidTransaction.id} is paid without a method or payer phone`);
  return {
    refundId,
    attempt,
    paymentReference,
    amount: BigInt(paidTransaction.amount),
    method: paidTransaction.selectedPaymentMethod,
    phone: paidTransaction.payerPhone,
    paidTransaction,
  };
}

function recordPaidRefundStatement(ctx: GatewayContext, organizationId: string, orderId: string, audited: Prisma.Sql): Prisma.Sql {
  const now = ctx.clock.now();
  const refundId = randomUUID();
  // The debit decides, on main's latest version: a balance that cannot cover it writes nothing.
  // Its posting (tagged as postingTagOf tags it): main debited by the transaction's amount, the
  // method's clearing account owed it; both read from `fresh`, the row this statement locked.
  const amount = (sign: 1 | -1) => ({ cte: 'fresh', terms: [{ column: 'amount', sign }] });
  const debit = statementPostingCtes({
    as: 'moved',
    kind: 'refund',
    transactionId: orderId,
    description: postingTagOf({ refundId, attempt: 1 }),
    movements: [
      { side: { organizationId, account: 'main' }, amount: amount(-1) },
      { side: { gateway: { cte: 'fresh', column: 'clearing' } }, amount: amount(1) },
    ],
    onlyIf: 'fresh',
  });
  return Prisma.sql`
    WITH gate AS MATERIALIZED (
      SELECT pg_try_advisory_xact_lock(hashtextextended(${`refund:${orderId}`}::text, 0)) AS free),
    found AS MATERIALIZED (
      SELECT t.id AS "transactionId", t.amount, t."selectedPaymentMethod"::text AS method, t."payerPhone" AS phone, ${refundId}::uuid AS "refundId", 1 AS number,
        ${Prisma.raw(PAYMENT_REFERENCE_OF_T)} AS "paymentReference"
      FROM "Transaction" t
      WHERE t.id = ${orderId}::uuid AND t."organizationId" = ${organizationId}::uuid AND (SELECT free FROM gate)
        AND t.status = 'paid' AND t."selectedPaymentMethod" IS NOT NULL AND t."payerPhone" IS NOT NULL
      FOR UPDATE),
    -- Never refunded, checked once the row is locked: a settlement that held it is then waited for
    -- (and a transaction it made held again is no longer found above).
    fresh AS MATERIALIZED (
      SELECT f.*, clearing.account AS clearing FROM found f
        JOIN unnest(${METHODS}::text[], ${CLEARING_ACCOUNTS}::text[]) AS clearing(method, account) ON clearing.method = f.method
      WHERE NOT EXISTS (SELECT 1 FROM "Refund" r WHERE r."transactionId" = f."transactionId")),
    ${debit},
    recorded AS (
      INSERT INTO "Refund" (id, "transactionId", "organizationId", amount, method, status, attempts, "createdAt", "updatedAt")
      SELECT f."refundId", f."transactionId", ${organizationId}::uuid, f.amount, f.method::"PaymentMethod", 'pending', 1, ${now}::timestamptz, ${now}::timestamptz
      FROM fresh f CROSS JOIN moved
      RETURNING id, amount, attempts)${audited}
    SELECT g.free, f."refundId", f.number AS attempt, f."paymentReference", ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))}
    FROM gate g LEFT JOIN (fresh f CROSS JOIN recorded JOIN "Transaction" t ON t.id = f."transactionId") ON true`;
}

/**
 * The general shape: any refundable case (held in escrow, a new attempt after a failed refund).
 * Its two postings (the escrow release, written only when something is held, then the debit)
 * are composed by the ledger's one builder (statementPostingsCtes): `main` moves once, by their
 * net, and each posting's entries record the balance after it. Both accounts are locked and
 * checked first, in lock order (escrow, main), on their latest versions: only then is the Refund
 * row written (its conflict may still refuse it: nothing moves unless it was), and the moves
 * that follow it cannot be refused.
 */
function recordAnyRefundStatement(ctx: GatewayContext, organizationId: string, orderId: string, audited: Prisma.Sql): Prisma.Sql {
  const now = ctx.clock.now();
  // Amounts, clearing account and tag read from `covered`, the attempt this statement checked.
  const read = (column: 'held' | 'amount', sign: 1 | -1) => ({ cte: 'covered', terms: [{ column, sign }] });
  const description = { cte: 'covered', column: 'tag' };
  const postings = statementPostingsCtes({
    as: 'moved',
    onlyIf: 'recorded',
    postings: [
      {
        kind: 'escrow_release',
        transactionId: orderId,
        description,
        movements: [
          { side: { organizationId, account: 'escrow' }, amount: read('held', -1) },
          { side: { organizationId, account: 'main' }, amount: read('held', 1) },
        ],
      },
      {
        kind: 'refund',
        transactionId: orderId,
        description,
        movements: [
          { side: { organizationId, account: 'main' }, amount: read('amount', -1) },
          { side: { gateway: { cte: 'covered', column: 'clearing' } }, amount: read('amount', 1) },
        ],
      },
    ],
  });
  return Prisma.sql`
    WITH gate AS MATERIALIZED (
      SELECT pg_try_advisory_xact_lock(hashtextextended(${`refund:${orderId}`}::text, 0)) AS free),
    ${seenAndFoundAnyStatus(organizationId, orderId)}
    attempt AS MATERIALIZED (
      ${attemptOfAny()}),
    accounts AS MATERIALIZED (
      SELECT a.id, a.name::text AS name, a.balance FROM "Account" a
      WHERE a."organizationId" = ${organizationId}::uuid AND EXISTS (SELECT 1 FROM attempt) AND a.name IN ('main', 'escrow')
      ORDER BY a.name::text
      FOR UPDATE),
    -- The attempt, when the locked accounts cover it, with what its postings read: the method's
    -- clearing account and the tag postingTagOf gives them.
    covered AS MATERIALIZED (
      SELECT x.*, clearing.account AS clearing, 'refund ' || x."refundId" || ' attempt ' || x.number AS tag
      FROM attempt x JOIN accounts m ON m.name = 'main' JOIN accounts e ON e.name = 'escrow'
        JOIN unnest(${METHODS}::text[], ${CLEARING_ACCOUNTS}::text[]) AS clearing(method, account) ON clearing.method = x.method
      WHERE m.balance + x.held - x.amount >= 0 AND e.balance - x.held >= 0),
    -- On conflict: a refund of this transaction exists (or committed after this statement's
    -- snapshot); only a failed one takes a new attempt; otherwise nothing is written.
    recorded AS (
      INSERT INTO "Refund" AS r (id, "transactionId", "organizationId", amount, method, status, attempts, "createdAt", "updatedAt")
      SELECT c."refundId", c."transactionId", ${organizationId}::uuid, c.amount, c.method::"PaymentMethod", 'pending', c.number,
        ${now}::timestamptz, ${now}::timestamptz
      FROM covered c
      ON CONFLICT ("transactionId") DO UPDATE SET status = 'pending', attempts = EXCLUDED.attempts, amount = EXCLUDED.amount, method = EXCLUDED.method,
        "failureReason" = NULL, "providerReference" = '', "updatedAt" = EXCLUDED."updatedAt"
      WHERE r.status = 'failed' AND r.attempts = EXCLUDED.attempts - 1
      RETURNING r.id, r.amount, r.attempts),
    released AS (
      UPDATE "Transaction" t SET status = 'paid', "updatedAt" = ${now}::timestamptz
      FROM covered c WHERE t.id = c."transactionId" AND c.held > 0 AND t.status = 'paid_and_blocked' AND EXISTS (SELECT 1 FROM recorded)),
    -- Covered above, on the rows this statement locked: these moves cannot be refused.
    ${postings}${audited}
    SELECT g.free, c."refundId", c.number AS attempt, c.amount, c.method, c.phone, c."paymentReference", ${refusalOfAny(organizationId, orderId)} AS refusal
    FROM gate g LEFT JOIN (covered c CROSS JOIN recorded) ON true`;
}

/**
 * THE refusal of a refund, named where it is decided: the general shape's statement, when it
 * recorded nothing, says why, from the rows it locked where it has them (the refund, the accounts
 * it checked) and the transaction as its snapshot saw it; the first rule broken, in the order the
 * spec's errors are checked. When none is broken, the transaction changed while the statement ran
 * (a concurrent refund, payment or settlement of it): 409, so the client tries again. `unpayable`
 * is no client's error: a paid transaction without a method or phone is a bug, thrown as one.
 */
function refusalOfAny(organizationId: string, orderId: string): Prisma.Sql {
  return Prisma.sql`(
      SELECT CASE
        WHEN EXISTS (SELECT 1 FROM recorded) THEN NULL
        WHEN t.id IS NULL THEN 'transaction_not_found'
        WHEN t.status NOT IN ('paid', 'paid_and_blocked') THEN 'cannot_refund'
        WHEN COALESCE((SELECT p.status FROM previous p), r.status::text) = 'pending' THEN 'refund_in_progress'
        WHEN COALESCE((SELECT p.status FROM previous p), r.status::text) = 'succeeded' THEN 'cannot_refund'
        WHEN t."selectedPaymentMethod" IS NULL OR t."payerPhone" IS NULL THEN 'unpayable'
        WHEN (SELECT COUNT(*) FROM "Account" a WHERE a."organizationId" = ${organizationId}::uuid AND a.name IN ('main', 'escrow')) < 2 THEN 'merchant_account_unavailable'
        WHEN EXISTS (SELECT 1 FROM attempt) AND NOT EXISTS (SELECT 1 FROM covered) THEN 'insufficient_balance'
        ELSE 'refund_in_progress' END
      FROM (SELECT 1) one
        LEFT JOIN "Transaction" t ON t.id = ${orderId}::uuid AND t."organizationId" = ${organizationId}::uuid
        LEFT JOIN "Refund" r ON r."transactionId" = t.id)`;
}

/**
 * The general shape's reads: the transaction paid or held, its previous refund (a new attempt only
 * after a failed one) and what it still holds in escrow. A held transaction only as this
 * statement's snapshot saw it too: its escrow entries read below are then the ones of that state
 * (a payment or a failed attempt's settlement that committed while this statement waited for the
 * row is not half seen). Ends with a comma: more CTEs follow.
 */
function seenAndFoundAnyStatus(organizationId: string, orderId: string): Prisma.Sql {
  return Prisma.sql`
    seen AS MATERIALIZED (
      SELECT status FROM "Transaction" WHERE id = ${orderId}::uuid),
    found AS MATERIALIZED (
      SELECT t.id, t.status::text AS status, t.amount, t."selectedPaymentMethod"::text AS method, t."payerPhone" AS phone,
        ${Prisma.raw(PAYMENT_REFERENCE_OF_T)} AS "paymentReference"
      FROM "Transaction" t
      WHERE t.id = ${orderId}::uuid AND t."organizationId" = ${organizationId}::uuid AND (SELECT free FROM gate)
        AND t.status IN ('paid', 'paid_and_blocked') AND t."selectedPaymentMethod" IS NOT NULL AND t."payerPhone" IS NOT NULL
        AND (t.status = 'paid' OR (SELECT status FROM seen) = 'paid_and_blocked')
      FOR UPDATE),
    previous AS MATERIALIZED (
      SELECT r.id, r.status::text AS status, r.attempts FROM "Refund" r
      WHERE r."transactionId" = ${orderId}::uuid AND EXISTS (SELECT 1 FROM found)
      FOR UPDATE),
    held AS MATERIALIZED (
      SELECT COALESCE(SUM(e.amount), 0)::bigint AS amount
      FROM "LedgerEntry" e JOIN "Account" a ON a.id = e."accountId"
      WHERE e."transactionId" = ${orderId}::uuid AND a."organizationId" = ${organizationId}::uuid AND a.name = 'escrow'
        AND EXISTS (SELECT 1 FROM found WHERE status = 'paid_and_blocked')),`;
}

/** The general shape's attempt: the previous refund's next one, or a first. */
function attemptOfAny(): Prisma.Sql {
  return Prisma.sql`SELECT f.id AS "transactionId", f.amount, f.method, f.phone, f."paymentReference", h.amount AS held,
        COALESCE(p.id, ${randomUUID()}::uuid) AS "refundId", COALESCE(p.attempts, 0) + 1 AS number
      FROM found f CROSS JOIN held h LEFT JOIN previous p ON true
      WHERE p.id IS NULL OR p.status = 'failed'`;
}

/** What phase 2 found and left: the refund as it was (locked) before, and the transaction after. */
export interface RefundAnswerApplied {
  refund: { status: string; attempts: number };
  transaction: TransactionRecord;
}

/**
 * Phase 2, ONE statement, by the request, the reconciler or an operator, whichever comes first:
 * with the transaction and then the refund locked, and only while the refund is this attempt and
 * `pending`, records the provider's answer:
 * - `succeeded`: the refund `succeeded` and the transaction `refunded` (only while still paid);
 * - `failed`: phase 1's postings reversed (the debit, then the escrow release: the proceeds of a
 *   held transaction go back to escrow and it is paid_and_blocked again), the refund `failed`;
 * - `pending` (no answer): the provider's reference, if it gave one.
 * Returns the refund as found (a later settler sees it settled) and the transaction as left.
 */
export async function applyRefundAnswer(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  intent: RefundIntent,
  answer: ProviderAnswer,
  refundStatusBodyAt: ((refundedAt: Date) => string) | null = null,
): Promise<RefundAnswerApplied> {
  const statement = applyRefundAnswerStatement(ctx, intent, answer, refundStatusBodyAt);
  const announced = answer.status === 'succeeded' && refundStatusBodyAt ? '_announced' : '';
  const [row] = await runStatement<RawTransactionRow & { refundStatus: string; refundAttempts: number; reversed?: boolean }>(
    db,
    // One statement text per outcome (see applyRefundAnswerStatement), with or without the outbox.
    { name: `gw_refund_settle_${answer.status}${announced}`, text: statement.text },
    statement.values,
  );
  if (!row) throw new Error(`refund ${intent.refundId} vanished before it was settled`);
  const { refundStatus, refundAttempts, reversed, ...transaction } = row;
  // Settled failed here, its debit not returned: never leave it so (the caller's transaction rolls back; the reconciler asks again).
  if (reversed === false && refundStatus === 'pending' && refundAttempts === intent.attempt) {
    throw new Error(`refund ${intent.refundId} failed but phase 1's postings were not reversed`);
  }
  return { refund: { status: refundStatus, attempts: refundAttempts }, transaction: transactionRecordOf(transaction) };
}

/**
 * With `refundStatusBodyAt` (the refund_status body of the transaction as a success leaves it,
 * refunded at the time given), a success also writes its outbox rows, in this same statement.
 */
function applyRefundAnswerStatement(
  ctx: GatewayContext,
  intent: RefundIntent,
  answer: ProviderAnswer,
  refundStatusBodyAt: ((refundedAt: Date) => string) | null,
): Prisma.Sql {
  const now = ctx.clock.now();
  const outcome = answer.status;
  const reference = answer.providerReference ?? '';
  const tag = postingTagOf(intent);
  const head = Prisma.sql`
    WITH locked AS MATERIALIZED (
      SELECT t.* FROM "Transaction" t WHERE t.id = ${intent.transactionId}::uuid FOR UPDATE),
    found AS MATERIALIZED (
      SELECT r.status::text AS status, r.attempts FROM "Refund" r
      WHERE r.id = ${intent.refundId}::uuid AND EXISTS (SELECT 1 FROM locked)
      FOR UPDATE),
    open AS MATERIALIZED (
      SELECT 1 FROM found WHERE status = 'pending' AND attempts = ${intent.attempt}::int
        AND (${outcome}::text <> 'succeeded' OR EXISTS (SELECT 1 FROM locked WHERE status IN ('paid', 'paid_and_blocked')))),
    settled AS (
      UPDATE "Refund" SET
        status = (CASE WHEN ${outcome}::text = 'pending' THEN status::text ELSE ${outcome}::text END)::"RefundStatus",
        "providerReference" = ${reference}::text,
        "failureReason" = CASE WHEN ${outcome}::text = 'failed' THEN ${answer.reason ?? 'refused by the provider'}::text ELSE "failureReason" END,
        "updatedAt" = ${now}::timestamptz
      WHERE id = ${intent.refundId}::uuid AND EXISTS (SELECT 1 FROM open) AND (${outcome}::text <> 'pending' OR ${reference}::text <> ''))`;
  // Each outcome's statement holds only the writes that outcome makes: a statement names (and
  // locks) fewer tables and indexes, which under one merchant's load keeps PostgreSQL's lock
  // manager out of the way (the bench's refunds).
  const effects =
    outcome === 'succeeded' ? refundedEffects(intent, now, refundStatusBodyAt) : outcome === 'failed' ? reversalEffects(intent, now, tag) : Prisma.empty;
  const current =
    outcome === 'succeeded'
      ? Prisma.sql`current AS (SELECT * FROM refunded UNION ALL SELECT * FROM locked WHERE NOT EXISTS (SELECT 1 FROM refunded))`
      : Prisma.sql`current AS (SELECT * FROM locked)`;
  // A failed outcome says whether its reversal moved the money back (applyRefundAnswer checks it).
  const reversed = outcome === 'failed' ? Prisma.sql`EXISTS (SELECT 1 FROM returned) AS reversed, ` : Prisma.empty;
  return Prisma.sql`
    ${head},
    ${effects}
    ${current}
    SELECT f.status AS "refundStatus", f.attempts AS "refundAttempts", ${reversed}${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))}
    FROM found f CROSS JOIN current t`;
}

/**
 * `succeeded`: the transaction `refunded` (only while still paid), and its refund_status outbox
 * rows when a body is given. Ends with a comma: more CTEs follow.
 */
function refundedEffects(intent: RefundIntent, now: Date, refundStatusBodyAt: ((refundedAt: Date) => string) | null): Prisma.Sql {
  const outbox = refundStatusBodyAt
    ? Prisma.sql`${eventOutboxCte('refunded', { event: 'refund_status', body: refundStatusBodyAt(now), transactionId: intent.transactionId }, now)},`
    : Prisma.empty;
  return Prisma.sql`
    refunded AS (
      UPDATE "Transaction" t SET status = 'refunded', "refundedAt" = ${now}::timestamptz, "updatedAt" = ${now}::timestamptz
      WHERE t.id = ${intent.transactionId}::uuid AND EXISTS (SELECT 1 FROM open)
      RETURNING t.*),
    ${outbox}`;
}

/**
 * `failed`: phase 1's postings reversed (the debit, then the escrow release: the proceeds of a
 * held transaction go back to escrow and it is paid_and_blocked again), each by a posting of its
 * own composed by the ledger's one builder (statementPostingsCtes: `main` moves once, by their
 * net). What is reversed is what was posted: `undone` reads phase 1's entries (tagged) into one
 * row, and the reversals' amounts and clearing account are its columns; with nothing held, the
 * release's reversal reads 0 and writes nothing. Reversing a debit and a release credits both
 * accounts back: nothing here can be refused. Ends with a comma.
 */
function reversalEffects(intent: RefundIntent, now: Date, tag: string): Prisma.Sql {
  const read = (column: 'debited' | 'released', sign: 1 | -1) => ({ cte: 'undone', terms: [{ column, sign }] });
  const common = { kind: 'refund_reversal' as const, transactionId: intent.transactionId, description: `${tag} failed` };
  const { organizationId } = intent;
  // The debit's reversal comes first, the release's last (as phase 1 posted them the other way round).
  const reversals = statementPostingsCtes({
    as: 'returned',
    onlyIf: 'undone',
    postings: [
      {
        ...common,
        movements: [
          { side: { organizationId, account: 'main' }, amount: read('debited', 1) },
          { side: { gateway: { cte: 'undone', column: 'clearing' } }, amount: read('debited', -1) },
        ],
      },
      {
        ...common,
        movements: [
          { side: { organizationId, account: 'escrow' }, amount: read('released', 1) },
          { side: { organizationId, account: 'main' }, amount: read('released', -1) },
        ],
      },
    ],
  });
  return Prisma.sql`
    taken AS MATERIALIZED (
      SELECT e.kind::text AS kind, a.name::text AS account, e."gatewayAccount"::text AS "gatewayAccount", e.amount FROM "LedgerEntry" e
        LEFT JOIN "Account" a ON a.id = e."accountId"
      WHERE e."transactionId" = ${intent.transactionId}::uuid AND e.description = ${tag}::text AND e.kind IN ('refund', 'escrow_release')
        AND EXISTS (SELECT 1 FROM open)),
    undone AS MATERIALIZED (
      SELECT (-SUM(amount) FILTER (WHERE kind = 'refund' AND account = 'main'))::bigint AS debited,
        COALESCE(-SUM(amount) FILTER (WHERE kind = 'escrow_release' AND account = 'escrow'), 0)::bigint AS released,
        MIN("gatewayAccount") FILTER (WHERE kind = 'refund') AS clearing
      FROM taken HAVING COUNT(*) > 0),
    ${reversals},
    reheld AS (
      UPDATE "Transaction" t SET status = 'paid_and_blocked', "updatedAt" = ${now}::timestamptz
      WHERE t.id = ${intent.transactionId}::uuid AND t.status = 'paid' AND EXISTS (SELECT 1 FROM taken WHERE kind = 'escrow_release')),`;
}

/** A refund as resuming an intent reads it (refunds.ts currentRefundOfIntent); null when there is none. */
export async function findRefund(
  db: Db,
  id: string,
): Promise<{ method: PaymentMethod; attempts: number; status: string; transactionId: string; organizationId: string; failureReason: string | null } | null> {
  if (!isUuid(id)) return null;
  return db.refund.findUnique({
    where: { id },
    select: { method: true, attempts: true, status: true, transactionId: true, organizationId: true, failureReason: true },
  });
}

/** A pending refund as the reconciler and the operator see it. */
export interface OpenRefundRow {
  id: string;
  attempts: number;
  organizationId: string;
  transactionId: string;
  method: PaymentMethod;
  payerPhone: string | null;
  amount: bigint;
  /** See RefundIntent.paymentReference. */
  paymentReference: string;
  providerChecks: number;
  updatedAt: Date;
}

/** Pending refunds due for a question: first once older than `openedBefore`, then at their next check time. */
export const listDueRefunds = (db: Db, now: Date, openedBefore: Date, limit: number): Promise<OpenRefundRow[]> =>
  selectOpenRefunds(db, Prisma.sql`((r."nextProviderCheckAt" IS NULL AND r."updatedAt" <= ${openedBefore}) OR r."nextProviderCheckAt" <= ${now})`, limit);

/** Pending refunds asked about at least `minChecks` times. */
export const listOpenRefunds = (db: Db, minChecks: number, limit: number): Promise<OpenRefundRow[]> =>
  selectOpenRefunds(db, Prisma.sql`r."providerChecks" >= ${minChecks}`, limit);

export async function findOpenRefund(db: Db, id: string): Promise<OpenRefundRow | null> {
  return isUuid(id) ? ((await selectOpenRefunds(db, Prisma.sql`r.id = ${id}::uuid`, 1))[0] ?? null) : null;
}

/** Pending refunds matching `where` (over Refund r), oldest first. */
function selectOpenRefunds(db: Db, where: Prisma.Sql, limit: number): Promise<OpenRefundRow[]> {
  return db.$queryRaw<OpenRefundRow[]>`
    SELECT r.id, r.attempts, r."organizationId", r."transactionId", r.method::text AS method, t."payerPhone", r.amount,
      ${Prisma.raw(PAYMENT_REFERENCE_OF_T)} AS "paymentReference", r."providerChecks", r."updatedAt"
    FROM "Refund" r JOIN "Transaction" t ON t.id = r."transactionId"
    WHERE r.status = 'pending' AND ${where}
    ORDER BY r."updatedAt" LIMIT ${limit}`;
}

/** One instance's claim on a pending refund for one question or re-send (see claimPayoutCheck). */
export async function claimRefundCheck(db: Db, id: string, attempt: number, now: Date, until: Date): Promise<boolean> {
  const count = await db.$executeRaw`UPDATE "Refund" SET "nextProviderCheckAt" = ${until}
    WHERE id = ${id}::uuid AND status = 'pending' AND attempts = ${attempt} AND ("nextProviderCheckAt" IS NULL OR "nextProviderCheckAt" <= ${now})`;
  return count === 1;
}

/** Still open after a question: counts it and sets when to ask next (only while this attempt is pending). */
export async function postponeRefundCheck(db: Db, id: string, attempt: number, nextCheckAt: Date): Promise<void> {
  await db.$executeRaw`UPDATE "Refund" SET "providerChecks" = "providerChecks" + 1, "nextProviderCheckAt" = ${nextCheckAt}
    WHERE id = ${id}::uuid AND status = 'pending' AND attempts = ${attempt}`;
}

export async function countOpenRefunds(db: Db, stuckAfterChecks: number): Promise<{ open: number; stuck: number }> {
  const [row] = await db.$queryRaw<{ open: bigint; stuck: bigint }[]>`
    SELECT count(*) AS open, count(*) FILTER (WHERE "providerChecks" >= ${stuckAfterChecks}) AS stuck FROM "Refund" WHERE status = 'pending'`;
  return { open: Number(row?.open ?? 0), stuck: Number(row?.stuck ?? 0) };
}
