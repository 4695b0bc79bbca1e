/**
 * Payouts (DESIGN.md "Payout", "Seams: Idempotency"): money leaves `main` for a recipient's wallet
 * and cannot be called back, so a payout runs in two phases around the provider call, like a
 * refund (refunds.ts):
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
 * "One payout per organisation at a time" is a lock of the coordination port taken by the
 * operations (createPayout, approvePayout): it answers a concurrent request 409 at once. Money
 * never rests on it: if it lapses mid-payout, each payout still debits its own amount under
 * PostgreSQL's conditional update and is sent once, under its own reference.
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type Organization, type Payout } from '../generated/prisma/client.js';
import type { GatewayAccount, PaymentMethod, PayoutStatus } from '../generated/prisma/enums.js';
import type { DbTransaction, GatewayContext } from './context.js';
import { PAYOUT_STATUSES, isOneOf } from './enums.js';
import { DomainError } from './errors.js';
import { settleIntent, type Settlement } from './idempotency.js';
import { payoutFeeOf } from './ledger/fees.js';
import { clearingAccountOf, debitPostingCtes, post, reverse } from './ledger/posting.js';
import { ensureAccounts } from './organizations.js';
import type { Db, LockHandle, ProviderAnswer, ProviderStatusAnswer } from './ports.js';
import { callProviderOnce } from './providerCalls.js';
import { runStatement } from './statements.js';
import { isUuid } from './transactions.js';

export type PayoutRecord = Payout;

/** Spec: a payout above this many XOF is `pending` until the operator reviews it. */
export const MANUAL_REVIEW_THRESHOLD = 2_000_000n;
/** The per-organisation lock outlives the provider call's own timeout (PROVIDER_TIMEOUT_MS), so it normally covers it. */
export const PAYOUT_LOCK_TTL_MS = 45_000;
/** A sent payout is asked about only once it is older than this: its request has given up on the answer. */
export const PAYOUT_RECONCILE_AFTER_MS = 60_000;
/** Most pending payouts one reconciler run looks at. */
const RECONCILE_BATCH = 100;

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

/**
 * "One payout per organisation at a time" (409 at once, no waiting). When the coordinator cannot
 * be asked (Redis down) the payout goes on without the lock: PostgreSQL still guards the money.
 */
export async function takePayoutLock(ctx: GatewayContext, organizationId: string): Promise<LockHandle | null> {
  let handle: LockHandle | null;
  try {
    handle = await ctx.coordination.lock.tryAcquire(`payout:${organizationId}`, ctx.settings.payoutLockTtlMs ?? PAYOUT_LOCK_TTL_MS);
  } catch (error) {
    warnWithoutLock(ctx, organizationId, error);
    return null;
  }
  if (!handle) throw new DomainError('payout_in_progress');
  return handle;
}

/** While the coordinator fails, payouts without the lock are reported at most this often (with a count), not each. */
export const LOCKLESS_WARNING_INTERVAL_MS = 60_000;
/** Per coordinator object, as the rate limiter's outages (rateLimit.ts). */
const locklessSince = new WeakMap<object, { lastWarnedAt: number; payouts: number }>();

function warnWithoutLock(ctx: GatewayContext, organizationId: string, error: unknown): void {
  const now = ctx.clock.now().getTime();
  const seen = locklessSince.get(ctx.coordination) ?? { lastWarnedAt: Number.NEGATIVE_INFINITY, payouts: 0 };
  locklessSince.set(ctx.coordination, seen);
  seen.payouts += 1;
  if (now - seen.lastWarnedAt < LOCKLESS_WARNING_INTERVAL_MS) return;
  seen.lastWarnedAt = now;
  ctx.log.warn(
    { err: error, organizationId, payoutsWithoutLock: seen.payouts, nextWarningInMs: LOCKLESS_WARNING_INTERVAL_MS },
    'payout lock unavailable; going on without it (the database guards the balance)',
  );
}

/** Releases a payout lock; a release that fails only lets the lock lapse at its ttl. */
export async function releasePayoutLock(ctx: GatewayContext, handle: LockHandle | null): Promise<void> {
  await handle?.release().catch((error: unknown) => ctx.log.warn({ err: error }, 'could not release a payout lock; it lapses at its ttl'));
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
 * Phase 1 as ONE statement (no Idempotency-Key, the common case): the same debit, entries and row
 * as recordPayout, atomic without an interactive transaction, so `main` is locked for one
 * statement instead of four round trips. Null when the debit was refused (or `main` is missing):
 * nothing was written, and recordPayout then gives the exact refusal.
 */
export async function recordPayoutInOneStatement(ctx: GatewayContext, db: Db, organization: Organization, payout: NewPayout): Promise<PayoutIntent | null> {
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
  });
  const statement = Prisma.sql`
    WITH ${debit},
    recorded AS (
      INSERT INTO "Payout" (id, "organizationId", "selectedPaymentMethod", amount, fees, "recipientFirstName", "recipientLastName", "recipientPhone",
        reason, status, "sentAt", "createdAt", "updatedAt")
      SELECT ${terms.id}::uuid, ${organization.id}::uuid, ${payout.method}::"PaymentMethod", ${String(payout.amount)}::bigint, ${String(terms.fee)}::bigint,
        ${payout.recipientFirstName}::text, ${payout.recipientLastName}::text, ${payout.recipientPhone}::text, ${payout.reason}::text, 'pending',
        ${terms.send ? now : null}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM debited
      RETURNING id)
    SELECT id FROM recorded`;
  const rows = await runStatement<{ id: string }>(db, { name: 'gw_payout_record', text: statement.text }, statement.values);
  return rows[0] ? intentOf(organization, payout, terms) : null;
}

/**
 * The provider, once, bounded in time. A throw or no answer in time is "not known yet"
 * (pending), never "failed": the money may have left.
 */
export async function sendPayout(ctx: GatewayContext, intent: Pick<PayoutIntent, 'payoutId' | 'method' | 'phone' | 'amount'>): Promise<ProviderAnswer> {
  const outcome = await callProviderOnce(
    ctx,
    () => ctx.provider.payout({ method: intent.method, phone: intent.phone, amount: intent.amount, reference: intent.payoutId }),
    { payoutId: intent.payoutId },
    'payout call to the provider failed; the reconciler will ask what became of it',
  );
  return 'answered' in outcome ? outcome.answered : { status: 'pending', providerReference: '', reason: outcome.unknown };
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
  if (payout.status === 'failed') return { refusal: new DomainError('payout_failed', payout.selectedPaymentMethod), final: true };
  return { answer: payout };
}

/**
 * The provider sent it: `pending` -> `completed` in one conditional statement (no transaction:
 * nothing else changes). Null when the payout is no longer pending (settled by someone else) or
 * the answer is another one: the full settlePayout handles those.
 */
export async function completePayoutInOneStatement(ctx: GatewayContext, db: Db, payoutId: string, answer: ProviderAnswer | null): Promise<PayoutRecord | null> {
  if (answer?.status !== 'succeeded') return null;
  // Enums as text: Prisma's raw queries return them so, as its own reads do.
  const statement = Prisma.sql`
    UPDATE "Payout" SET status = 'completed', "paidAt" = ${ctx.clock.now()}::timestamptz, "providerReference" = ${answer.providerReference ?? ''}::text, "updatedAt" = ${ctx.clock.now()}::timestamptz
    WHERE id = ${payoutId}::uuid AND status = 'pending'
    RETURNING id, "organizationId", "selectedPaymentMethod"::text AS "selectedPaymentMethod", amount, fees, currency, "recipientFirstName",
      "recipientLastName", "recipientPhone", status::text AS status, reason, "providerReference", "failureReason", "isDeleted", "paidAt",
      "sentAt", "createdAt", "updatedAt"`;
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

/**
 * The reconciler: settles payouts sent but left `pending` (a provider timeout, or a crash between
 * the phases) by asking the provider what became of each, then running the same settlement
 * (which also completes an Idempotency-Key still waiting on it). It never sends a payout: one the
 * provider never received (`not_found`) is settled as failed and its funds returned. Payouts
 * awaiting review (never sent) are not its business. Safe to run in several instances at once.
 */
export async function settlePendingPayouts(
  ctx: GatewayContext,
  options: { olderThanMs?: number; limit?: number } = {},
): Promise<{ settled: number; stillPending: number; errors: number }> {
  const cutoff = new Date(ctx.clock.now().getTime() - (options.olderThanMs ?? PAYOUT_RECONCILE_AFTER_MS));
  const pending = await ctx.db.payout.findMany({
    where: { status: 'pending', sentAt: { not: null, lte: cutoff } },
    orderBy: { sentAt: 'asc' },
    take: Math.min(options.limit ?? RECONCILE_BATCH, RECONCILE_BATCH),
    select: { id: true, organizationId: true },
  });
  const tally = { settled: 0, stillPending: 0, errors: 0 };
  for (const payout of pending) {
    try {
      const status = await ctx.provider.payoutStatus(payout.id);
      if (status.status === 'pending') {
        tally.stillPending += 1;
        continue;
      }
      await settleIntent(ctx, payout.organizationId, payoutIntentName(payout.id), async (tx) => settlementOf(await settlePayout(ctx, tx, payout.id, answerOf(status))));
      tally.settled += 1;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'payout_failed') {
        tally.settled += 1;
        continue;
      }
      tally.errors += 1;
      ctx.log.warn({ err: error, payoutId: payout.id }, 'could not reconcile a pending payout; will try again');
    }
  }
  if (pending.length) ctx.log.info({ ...tally }, 'pending payouts reconciled');
  return tally;
}

function answerOf(status: ProviderStatusAnswer): ProviderAnswer {
  if (status.status === 'not_found') return { status: 'failed', providerReference: '', reason: 'the provider never received the payout' };
  return { status: status.status, providerReference: status.providerReference, reason: status.reason };
}
