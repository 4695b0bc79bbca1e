/**
 * Payouts (DESIGN.md "Payout", "Seams: Idempotency"): money leaves `main` for a recipient's wallet
 * and cannot be called back, so a payout runs in two phases around the provider call, like a
 * refund (../refunds/refunds.ts):
 *
 *   1. record: ONE database transaction writes the Payout row `pending` and debits `main` by
 *      amount + fees (a conditional UPDATE in post(): PostgreSQL refuses a debit the balance cannot
 *      cover, whatever runs concurrently): the provider's clearing account is owed the amount, the
 *      gateway keeps the fee. A payout the gateway will send now also gets `sentAt` in this same
 *      transaction; one above the review threshold does not (it waits for the operator).
 *      Nothing is sent before this commits, so after a timeout the caller finds the payout by
 *      `recipient_phone`.
 *   2. the provider is called once, with the payout id as our reference (never with another).
 *   3. settle: a second transaction records the answer: `succeeded` -> `completed`; `failed` ->
 *      the phase-1 posting is reversed (amount and fees back in `main`) and the payout is
 *      `failed`; no answer (timeout) -> it stays `pending` and the reconciler below settles it
 *      later by ASKING the provider what became of it, never by sending it again.
 *
 * Above the threshold the operator approves (sentAt is set in its own transaction, then the same
 * call and settlement run) or rejects (`cancelled`, the posting reversed).
 *
 * "One payout per organisation at a time" is a lease in PostgreSQL (PayoutLease) taken by the
 * operations (createPayout, approvePayout): it answers a concurrent request 409 at once, from any
 * instance, whether Redis answers or not. It lapses at its ttl (past the provider timeout), so a
 * killed process cannot hold it forever. Money never rests on it: if it lapses mid-payout, each
 * payout still debits its own amount under PostgreSQL's conditional update and is sent once, under
 * its own reference.
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type Organization, type Payout } from '../../generated/prisma/client.js';
import type { GatewayAccount, PaymentMethod, PayoutStatus } from '../../generated/prisma/enums.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { PAYOUT_STATUSES, isOneOf } from '../enums.js';
import { DomainError } from '../errors.js';
import { settleIntent, type Settlement } from '../idempotency.js';
import { payoutFeeOf } from '../ledger/fees.js';
import { clearingAccountOf, debitPostingCtes, post, reverse } from '../ledger/posting.js';
import { ensureAccounts } from '../organizations/organizations.js';
import { paymentMethodRow } from '../paymentMethods.js';
import type { Db, ProviderAnswer } from '../ports.js';
import { PROVIDER_TIMEOUT_MS, answerOrPending, callProviderOnce, reconcileOpenCalls, settleDurably, type OpenCallStore, type OpenProviderCall, type ReconcileTally } from '../providerFlow.js';
import { runStatement } from '../statements.js';
import { isUuid } from '../ids.js';

export type PayoutRecord = Payout;

/** Spec: a payout above this many XOF is `pending` until the operator reviews it. */
export const MANUAL_REVIEW_THRESHOLD = 2_000_000n;
/** The per-organisation lease outlives the provider call's own timeout (PROVIDER_TIMEOUT_MS), so it normally covers it. */
export const PAYOUT_LOCK_TTL_MS = 45_000;

/** A payout as recorded, ready for phase 1 (validated by the operation). */
export interface NewPayout {
  method: PaymentMethod;
  amount: bigint;
  recipientFirstName: string | null;
  recipientLastName: string | null;
  recipientPhone: string;
  reason: string;
}

/** What phase 1 recorded: what the call and the settlement need. */
export interface PayoutIntent {
  payoutId: string;
  organizationId: string;
  method: PaymentMethod;
  phone: string;
  amount: bigint;
  /** false: above the review threshold, it waits for the operator and is not sent now. */
  send: boolean;
}

export const payoutIntentName = (payoutId: string): string => `createPayout:${payoutId}`;

/** Pending and never handed to the provider: the operator's review queue. */
export const isAwaitingReview = (payout: Pick<Payout, 'status' | 'sentAt'>): boolean => payout.status === 'pending' && payout.sentAt === null;

/** Approving or rejecting is for payouts in the review queue only; anything else says what it is. */
export function refuseUnlessAwaitingReview(payout: PayoutRecord): void {
  if (!isAwaitingReview(payout)) throw new DomainError('payout_not_awaiting_review', payout.status === 'pending' ? 'pending with the provider' : payout.status);
}

export function parsePayoutStatus(value: string): PayoutStatus {
  if (!isOneOf(PAYOUT_STATUSES, value)) throw new DomainError('invalid_query', `status must be one of ${PAYOUT_STATUSES.join(', ')}`);
  return value;
}

/**
 * A payout the caller may see: of `organizationId`, or of any organisation when it is null
 * (operators). Another organisation's payout answers exactly like a missing one.
 */
export async function findVisiblePayout(db: Pick<Db, 'payout'>, organizationId: string | null, orderId: string): Promise<PayoutRecord> {
  const payout = isUuid(orderId) ? await db.payout.findFirst({ where: { id: orderId, ...(organizationId !== null && { organizationId }) } }) : null;
  if (!payout) throw new DomainError('payout_not_found');
  return payout;
}

/** A held payout lease: release it when the request ends. */
export interface PayoutLease {
  organizationId: string;
  holder: string;
}

/**
 * Takes the organisation's lease, or takes nothing when another payout holds it: PostgreSQL
 * decides, on every instance; an expired lease is taken over, a live one is not (the database's
 * clock, the same for every instance). RETURNING says whether this request got it. One fragment:
 * a statement of its own (takePayoutLease) or the first CTE of phase 1's statement.
 */
const takeLeaseSql = (lease: PayoutLease, ttlMs: number): Prisma.Sql => Prisma.sql`
  INSERT INTO "PayoutLease" ("organizationId", holder, "expiresAt")
  VALUES (${lease.organizationId}::uuid, ${lease.holder}::uuid, now() + ${ttlMs}::int * interval '1 millisecond')
  ON CONFLICT ("organizationId") DO UPDATE SET holder = EXCLUDED.holder, "expiresAt" = EXCLUDED."expiresAt"
  WHERE "PayoutLease"."expiresAt" < now()
  RETURNING holder`;

/**
 * Releasing expires the row rather than deleting it: the next payout of the organisation updates
 * it in place (a HOT update: no index entry, no dead row per payout), which the bench showed
 * matters at hundreds of payouts a second.
 */
const RELEASE_LEASE = {
  name: 'gw_payout_lease_release',
  text: `UPDATE "PayoutLease" SET "expiresAt" = '-infinity' WHERE "organizationId" = $1::uuid AND holder = $2::uuid`,
};

/**
 * Inside phase 1's transaction (`db` is then its client) the lease commits with the payout, or
 * rolls back with a refused one; a concurrent payout waits only for that commit, then sees it held.
 */
export async function takePayoutLease(ctx: GatewayContext, organizationId: string, db: Db | DbTransaction = ctx.db): Promise<PayoutLease> {
  const lease = newPayoutLease(organizationId);
  const statement = takeLeaseSql(lease, leaseTtlMs(ctx));
  const rows = await runStatement<{ holder: string }>(db, { name: 'gw_payout_lease_take', text: statement.text }, statement.values);
  if (rows[0]?.holder !== lease.holder) throw new DomainError('payout_in_progress');
  return lease;
}

/** A lease this request will try to take (in its own statement, or folded into phase 1's). */
export const newPayoutLease = (organizationId: string): PayoutLease => ({ organizationId, holder: randomUUID() });

/** The lease outlives the provider call it covers: PROVIDER_TIMEOUT_MS may be set above the default. */
const LEASE_PAST_PROVIDER_TIMEOUT_MS = 15_000;
const leaseTtlMs = (ctx: GatewayContext): number =>
  ctx.settings.payoutLockTtlMs ?? Math.max(PAYOUT_LOCK_TTL_MS, (ctx.settings.providerTimeoutMs ?? PROVIDER_TIMEOUT_MS) + LEASE_PAST_PROVIDER_TIMEOUT_MS);

/** Releases the lease if this request still holds it; a release that fails only lets it lapse at its ttl. */
export async function releasePayoutLease(ctx: GatewayContext, lease: PayoutLease | null): Promise<void> {
  if (!lease) return;
  // Retried across a dropped connection (a release is idempotent): a lease left behind would
  // refuse the organisation's payouts (409) until its ttl.
  await settleDurably(ctx, { organizationId: lease.organizationId }, () => runStatement(ctx.db, RELEASE_LEASE, [lease.organizationId, lease.holder])).catch((error: unknown) =>
    ctx.log.warn({ err: error, organizationId: lease.organizationId }, 'could not release a payout lease; it lapses at its ttl'),
  );
}

/** What phase 1 writes, decided once for both ways of writing it. */
interface PayoutTerms {
  id: string;
  fee: bigint;
  /** false: above the review threshold, it waits for the operator. */
  send: boolean;
  /** The provider's clearing account is owed the amount, the gateway keeps the fee; `main` pays both. */
  gatewaySides: { gateway: GatewayAccount; amount: bigint }[];
}

function payoutTerms(organization: Organization, payout: NewPayout): PayoutTerms {
  const fee = payoutFeeOf(organization, payout.amount);
  return {
    id: randomUUID(),
    fee,
    send: payout.amount <= MANUAL_REVIEW_THRESHOLD,
    gatewaySides: [
      { gateway: clearingAccountOf(payout.method), amount: payout.amount },
      { gateway: 'fee_revenue', amount: fee },
    ],
  };
}

const intentOf = (organization: Organization, payout: NewPayout, terms: PayoutTerms): PayoutIntent => ({
  payoutId: terms.id,
  organizationId: organization.id,
  method: payout.method,
  phone: payout.recipientPhone,
  amount: payout.amount,
  send: terms.send,
});

/** Phase 1 (inside the caller's database transaction): the row, the debit and, below the threshold, sentAt. */
export async function recordPayout(ctx: GatewayContext, tx: DbTransaction, organization: Organization, payout: NewPayout): Promise<PayoutIntent> {
  await ensureAccounts(tx, organization.id);
  const terms = payoutTerms(organization, payout);
  // The row first: the ledger entries reference it.
  await tx.payout.create({
    data: {
      id: terms.id,
      organizationId: organization.id,
      selectedPaymentMethod: payout.method,
      amount: payout.amount,
      fees: terms.fee,
      recipientFirstName: payout.recipientFirstName,
      recipientLastName: payout.recipientLastName,
      recipientPhone: payout.recipientPhone,
      reason: payout.reason,
      status: 'pending',
      sentAt: terms.send ? ctx.clock.now() : null,
    },
  });
  // Throws insufficient_balance when main cannot cover amount + fees: everything rolls back.
  await post(tx, {
    kind: 'payout',
    payoutId: terms.id,
    description: `payout ${terms.id}`,
    movements: [
      { side: { organizationId: organization.id, account: 'main' }, amount: -(payout.amount + terms.fee) },
      ...terms.gatewaySides.map(({ gateway, amount }) => ({ side: { gateway }, amount })),
    ],
  });
  return intentOf(organization, payout, terms);
}

/**
 * Phase 1 as ONE statement (no Idempotency-Key, the common case): the organisation's lease, then
 * the same debit, entries and row as recordPayout, atomic without an interactive transaction, so
 * `main` is locked for one statement instead of four round trips, and one commit (one WAL flush)
 * serves the lease and the payout. `leased` false: another payout holds the lease, nothing was
 * written (409). `intent` null with the lease taken: the debit was refused (or `main` is missing),
 * nothing but the lease was written; the caller releases it and recordPayout gives the exact
 * refusal.
 */
export async function recordPayoutInOneStatement(
  ctx: GatewayContext,
  db: Db,
  organization: Organization,
  payout: NewPayout,
  lease: PayoutLease,
): Promise<{ leased: boolean; intent: PayoutIntent | null }> {
  const terms = payoutTerms(organization, payout);
  const now = ctx.clock.now();
  const debit = debitPostingCtes({
    organizationId: organization.id,
    account: 'main',
    kind: 'payout',
    about: { payoutId: terms.id },
    description: `payout ${terms.id}`,
    debit: payout.amount + terms.fee,
    gatewaySides: terms.gatewaySides,
    onlyIf: 'lease',
  });
  const statement = Prisma.sql`
    WITH lease AS (${takeLeaseSql(lease, leaseTtlMs(ctx))}),
    ${debit},
    recorded AS (
      INSERT INTO "Payout" (id, "organizationId", "selectedPaymentMethod", amount, fees, "recipientFirstName", "recipientLastName", "recipientPhone",
        reason, status, "sentAt", "createdAt", "updatedAt")
      SELECT ${terms.id}::uuid, ${organization.id}::uuid, ${payout.method}::"PaymentMethod", ${String(payout.amount)}::bigint, ${String(terms.fee)}::bigint,
        ${payout.recipientFirstName}::text, ${payout.recipientLastName}::text, ${payout.recipientPhone}::text, ${payout.reason}::text, 'pending',
        ${terms.send ? now : null}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM debited
      RETURNING id)
    SELECT EXISTS (SELECT 1 FROM lease) AS leased, (SELECT id FROM recorded) AS id`;
  const [row] = await runStatement<{ leased: boolean; id: string | null }>(db, { name: 'gw_payout_record', text: statement.text }, statement.values);
  return { leased: row?.leased === true, intent: row?.id ? intentOf(organization, payout, terms) : null };
}

/**
 * The provider, once, bounded in time. A throw or no answer in time is "not known yet"
 * (pending), never "failed": the money may have left.
 */
export async function sendPayout(ctx: GatewayContext, intent: Pick<PayoutIntent, 'payoutId' | 'method' | 'phone' | 'amount'>): Promise<ProviderAnswer> {
  const outcome = await callProviderOnce(
    ctx,
    (signal) => ctx.provider.payout({ method: intent.method, phone: intent.phone, amount: intent.amount, reference: intent.payoutId, signal }),
    { payoutId: intent.payoutId },
    'payout call to the provider failed; the reconciler will ask what became of it',
  );
  return answerOrPending(outcome);
}

/**
 * Phase 2 (inside the caller's database transaction), by the request, the operator's approval or
 * the reconciler, whichever comes first: the row is locked and only a `pending` one is settled;
 * a later settlement finds it settled and returns it as it is. Returns the payout after settling.
 */
export async function settlePayout(ctx: GatewayContext, tx: DbTransaction, payoutId: string, answer: ProviderAnswer): Promise<PayoutRecord> {
  const status = await lockPayoutStatus(tx, payoutId);
  if (status !== 'pending') {
    const recorded = status === 'completed' ? 'succeeded' : status;
    if (answer.status !== 'pending' && answer.status !== recorded) {
      ctx.log.error({ payoutId, recorded: status, provider: answer.status }, 'the provider answered a payout differently from how it was settled: check it with the provider');
    }
    return tx.payout.findUniqueOrThrow({ where: { id: payoutId } });
  }
  const providerReference = answer.providerReference ?? '';
  if (answer.status === 'succeeded') {
    return tx.payout.update({ where: { id: payoutId }, data: { status: 'completed', paidAt: ctx.clock.now(), providerReference } });
  }
  if (answer.status === 'failed') {
    await returnFunds(tx, payoutId, 'failed at the provider');
    return tx.payout.update({ where: { id: payoutId }, data: { status: 'failed', providerReference, failureReason: answer.reason ?? 'refused by the provider' } });
  }
  const data: Prisma.PayoutUpdateInput = providerReference ? { providerReference } : {};
  return tx.payout.update({ where: { id: payoutId }, data });
}

/**
 * How a settled payout answers the request that created it: `failed` is the spec's 500, kept
 * under the Idempotency-Key (final) so that a retry replays it instead of sending a new payout.
 */
export function settlementOf(payout: PayoutRecord): Settlement<PayoutRecord> {
  if (payout.status === 'failed') return { refusal: new DomainError('payout_failed', paymentMethodRow(payout.selectedPaymentMethod).payoutProviderName), final: true };
  return { answer: payout };
}

/**
 * The provider sent it: `pending` -> `completed` and the organisation's lease released, in one
 * conditional statement (one commit; nothing else changes). Null when the payout is no longer
 * pending (settled by someone else) or the answer is another one: the full settlePayout handles
 * those, and the lease is released by the caller.
 */
export async function completePayoutInOneStatement(ctx: GatewayContext, db: Db, payoutId: string, answer: ProviderAnswer | null, lease: PayoutLease | null): Promise<PayoutRecord | null> {
  if (answer?.status !== 'succeeded') return null;
  // Enums as text: Prisma's raw queries return them so, as its own reads do.
  const statement = Prisma.sql`
    WITH completed AS (
      UPDATE "Payout" SET status = 'completed', "paidAt" = ${ctx.clock.now()}::timestamptz, "providerReference" = ${answer.providerReference ?? ''}::text, "updatedAt" = ${ctx.clock.now()}::timestamptz
      WHERE id = ${payoutId}::uuid AND status = 'pending'
      RETURNING id, "organizationId", "selectedPaymentMethod"::text AS "selectedPaymentMethod", amount, fees, currency, "recipientFirstName",
        "recipientLastName", "recipientPhone", status::text AS status, reason, "providerReference", "failureReason", "isDeleted", "paidAt",
        "sentAt", "createdAt", "updatedAt", "providerChecks", "nextProviderCheckAt"),
    released AS (
      UPDATE "PayoutLease" SET "expiresAt" = '-infinity'
      WHERE "organizationId" = ${lease?.organizationId ?? null}::uuid AND holder = ${lease?.holder ?? null}::uuid AND EXISTS (SELECT 1 FROM completed))
    SELECT * FROM completed`;
  const rows = await runStatement<PayoutRecord>(db, { name: 'gw_payout_complete', text: statement.text }, statement.values);
  return rows[0] ?? null;
}

/** The payout row's status, locked until the transaction ends (settlements of one payout queue here). */
export async function lockPayoutStatus(tx: DbTransaction, payoutId: string): Promise<PayoutStatus> {
  const [row] = await tx.$queryRaw<{ status: PayoutStatus }[]>`SELECT status::text AS status FROM "Payout" WHERE id = ${payoutId}::uuid FOR UPDATE`;
  if (!row) throw new Error(`payout ${payoutId} vanished before it was settled`);
  return row.status;
}

/** Reverses phase 1's posting: amount and fees back to `main` (call with the row locked, still pending). */
export async function returnFunds(tx: DbTransaction, payoutId: string, why: string): Promise<void> {
  const debit = await tx.ledgerEntry.findFirst({ where: { payoutId, kind: 'payout' }, select: { postingId: true } });
  if (!debit) throw new Error(`payout ${payoutId} has no posting to reverse`);
  await reverse(tx, debit.postingId, 'payout_reversal', `payout ${payoutId} ${why}`);
}

/** A payout handed to the provider whose outcome it has not told us yet. */
type OpenPayout = OpenProviderCall;

/**
 * The store side of the payout reconciler (providerFlow.ts): payouts sent but left `pending` (a
 * provider timeout, or a crash between the phases) are asked about, never sent again. One the
 * provider says it never received stays pending: unknown is not failed (it may yet appear, or the
 * process died before sending it); an operator decides a stuck one (settleOpenPayout). Payouts
 * awaiting review (never sent) are not its business.
 */
export const openPayouts = (ctx: GatewayContext): OpenCallStore<OpenPayout> => ({
  kind: 'payout',
  listDue: (now, openedBefore, limit) =>
    selectOpenPayouts(ctx, Prisma.sql`(("nextProviderCheckAt" IS NULL AND "sentAt" <= ${openedBefore}) OR "nextProviderCheckAt" <= ${now})`, limit),
  listOpen: (minChecks, limit) => selectOpenPayouts(ctx, Prisma.sql`"providerChecks" >= ${minChecks}`, limit),
  findOpen: async (id) => (isUuid(id) ? ((await selectOpenPayouts(ctx, Prisma.sql`id = ${id}::uuid`, 1))[0] ?? null) : null),
  ask: (call) => ctx.provider.payoutStatus(call.reference),
  settle: async (call, answer) => {
    await settleOpenPayout(ctx, call.organizationId, call.id, answer);
  },
  async postpone(call, nextCheckAt) {
    await ctx.db.$executeRaw`UPDATE "Payout" SET "providerChecks" = "providerChecks" + 1, "nextProviderCheckAt" = ${nextCheckAt} WHERE id = ${call.id}::uuid AND status = 'pending'`;
  },
  async countOpen(stuckAfterChecks) {
    const [row] = await ctx.db.$queryRaw<{ open: bigint; stuck: bigint }[]>`
      SELECT count(*) AS open, count(*) FILTER (WHERE "providerChecks" >= ${stuckAfterChecks}) AS stuck FROM "Payout" WHERE status = 'pending' AND "sentAt" IS NOT NULL`;
    return { open: Number(row?.open ?? 0), stuck: Number(row?.stuck ?? 0) };
  },
});

/** Sent pending payouts matching `where`, oldest first, as open provider calls. */
async function selectOpenPayouts(ctx: GatewayContext, where: Prisma.Sql, limit: number): Promise<OpenPayout[]> {
  const rows = await ctx.db.$queryRaw<{ id: string; organizationId: string; providerChecks: number; sentAt: Date }[]>`
    SELECT id, "organizationId", "providerChecks", "sentAt" FROM "Payout"
    WHERE status = 'pending' AND "sentAt" IS NOT NULL AND ${where}
    ORDER BY "sentAt" LIMIT ${limit}`;
  return rows.map((row) => ({ kind: 'payout', id: row.id, organizationId: row.organizationId, reference: row.id, providerChecks: row.providerChecks, openedAt: row.sentAt }));
}

/**
 * Applies a final outcome to a sent pending payout, by the reconciler or an operator: the same
 * settlement as the request's (it also completes an Idempotency-Key waiting on it). A no-op when
 * someone settled it first. Returns the payout after it.
 */
export async function settleOpenPayout(ctx: GatewayContext, organizationId: string, payoutId: string, answer: ProviderAnswer): Promise<PayoutRecord> {
  let settled: PayoutRecord | undefined;
  try {
    await settleIntent(ctx, organizationId, payoutIntentName(payoutId), async (tx) => settlementOf((settled = await settlePayout(ctx, tx, payoutId, answer))));
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'payout_failed')) throw error;
  }
  return settled ?? ctx.db.payout.findUniqueOrThrow({ where: { id: payoutId } });
}

/** The reconciler's run over payouts (background.ts); safe in several instances at once. */
export function settlePendingPayouts(ctx: GatewayContext, options: { olderThanMs?: number; limit?: number } = {}): Promise<ReconcileTally> {
  return reconcileOpenCalls(ctx, openPayouts(ctx), options);
}
