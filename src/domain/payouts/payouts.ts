/**
 * Payouts (docs/architecture.md#payout and #idempotency): money leaves `main` for a recipient's wallet
 * and cannot be called back, so a payout runs in two phases around the provider call, like a
 * refund (../refunds/refunds.ts):
 *
 *   1. record: ONE statement (store.ts recordPayout) takes the organisation's lease, writes the
 *      Payout row `pending` and debits `main` by amount + fees (a conditional UPDATE: PostgreSQL
 *      refuses a debit the balance cannot cover, whatever runs concurrently): the provider's
 *      clearing account is owed the amount, the gateway keeps the fee. A payout the gateway will
 *      send now also gets `sentAt` in this same statement; one above the review threshold does
 *      not (it waits for the operator).
 *      Nothing is sent before this commits, so after a timeout the caller finds the payout by
 *      `recipient_phone`.
 *   2. the provider is called once, with the payout id as our reference (never with another).
 *   3. settle: a second statement (store.ts applyPayoutAnswer) records the answer: `succeeded` ->
 *      `completed`; `failed` -> the phase-1 posting is reversed (amount and fees back in `main`) and the payout is
 *      `failed`; no answer (timeout) -> it stays `pending` and the reconciler below settles it
 *      later by ASKING the provider what became of it, never by sending it again.
 *
 * Above the threshold the operator approves (sentAt is set in its own statement, then the same
 * call and settlement run) or rejects (`cancelled`, the posting reversed).
 *
 * The same statements run with or without an Idempotency-Key (with one, inside the key's
 * transaction), and for the reconciler, an operator's approval and an operator's decision.
 *
 * "One payout per organisation at a time" is a lease in PostgreSQL (PayoutLease) taken by the
 * operations (createPayout, approvePayout): it answers a concurrent request 409 at once, from any
 * instance, whether Redis answers or not. It lives 5 s past its last renewal, and its holder renews
 * it while the provider is called (../leases.ts), so a live request keeps it however long the call
 * lasts and a killed process's lease lapses within 5 s. Money never rests on it: if it lapses
 * mid-payout, each payout still debits its own amount under PostgreSQL's conditional update and is
 * sent once, under its own reference.
 */
import type { Organization, Payout } from '../../generated/prisma/client.js';
import { announceStatusChange } from '../liveUpdates/events.js';
import { withinTransaction } from '../afterCommit.js';
import { differingBodyFields, payoutStatusBody } from '../webhooks/bodies.js';
import { enqueueEvent } from '../webhooks/store.js';
import type { PaymentMethod, PayoutStatus } from '../../generated/prisma/enums.js';
import type { GatewayContext } from '../context.js';
import { PAYOUT_STATUSES, isOneOf } from '../enums.js';
import { DomainError } from '../errors.js';
import { settleIntent, type Settlement } from '../idempotency.js';
import { payoutFeeOf } from '../ledger/fees.js';
import { paymentMethodRow } from '../paymentMethods.js';
import { resendsSafely, type Db, type DbTransaction, type ProviderAnswer } from '../ports.js';
import { isSandboxed } from '../providerCalls/providerHealth.js';
import {
  answerOrPending,
  askOrResend,
  callProviderOnce,
  reconcileOpenCalls,
  type OpenCallStore,
  type OpenProviderCall,
  type ReconcileTally,
} from '../providerFlow.js';
import {
  applyPayoutAnswer,
  claimPayoutCheck,
  completePendingPayout,
  countOpenPayouts,
  findOpenPayout,
  findPayout,
  findPayoutIfAny,
  listDuePayouts,
  listOpenPayouts,
  postponePayoutCheck,
  releasePayoutLease,
  type OpenPayoutRow,
  type PayoutLease,
  type PayoutToRecord,
} from './store.js';
import type { NewPayout, PayoutIntent, PayoutRecord } from './store.js';

/** Spec: a payout above this many XOF is `pending` until the operator reviews it. */
export const MANUAL_REVIEW_THRESHOLD = 2_000_000n;

export const payoutIntentName = (payoutId: string): string => `createPayout:${payoutId}`;

/** The payout an intent name (payoutIntentName) stands for, or null. */
export async function findPayoutOfIntent(db: Db, intentName: string): Promise<PayoutRecord | null> {
  const id = /^createPayout:([0-9a-f-]{36})$/.exec(intentName)?.[1];
  return id ? findPayoutIfAny(db, id) : null;
}

/** What phase 1 writes: the organisation's payout fee, and whether it is sent now (at or below the review threshold). */
export const payoutTerms = (organization: Organization, payout: NewPayout): PayoutToRecord => ({
  ...payout,
  fee: payoutFeeOf(organization, payout.amount),
  send: payout.amount <= MANUAL_REVIEW_THRESHOLD,
});

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
 * The payout call: the same on the first send and on a re-send under the same reference (a
 * provider that de-duplicates by key, Wave, refuses a re-send whose request differs).
 */
const payoutRequestOf = (payout: { method: PaymentMethod; phone: string; amount: bigint; reference: string }, signal: AbortSignal) => ({
  method: payout.method,
  phone: payout.phone,
  amount: payout.amount,
  reference: payout.reference,
  signal,
});

/**
 * The provider, once, bounded in time. A throw or no answer in time is "not known yet"
 * (pending), never "failed": the money may have left.
 */
export async function sendPayout(ctx: GatewayContext, intent: Pick<PayoutIntent, 'payoutId' | 'method' | 'phone' | 'amount'>): Promise<ProviderAnswer> {
  const outcome = await callProviderOnce(
    ctx,
    (signal) => ctx.provider.payout(payoutRequestOf({ ...intent, reference: intent.payoutId }, signal)),
    { payoutId: intent.payoutId },
    'payout call to the provider failed; the reconciler will ask what became of it',
  );
  return answerOrPending(outcome);
}

/**
 * Phase 2, by the request, the operator's approval or the reconciler, whichever comes first (on
 * `ctx.db`, or in the transaction that completes an Idempotency-Key): only a `pending` payout is
 * settled; a later settlement finds it settled and returns it as it is. `answer` null: not sent
 * (awaiting review), nothing to record. `lease`, when given, is released by the same statement.
 * Returns the payout after settling.
 */
export async function settlePayout(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  payoutId: string,
  answer: ProviderAnswer | null,
  lease: PayoutLease | null = null,
  recorded: PayoutRecord | null = null,
): Promise<PayoutRecord> {
  const completed = answer?.status === 'succeeded' && recorded ? await completeAsRecorded(ctx, db, recorded, answer, lease) : null;
  if (completed) return completed;
  // The settlement and its payout_status outbox rows commit together (one transaction). In a
  // transaction of its own, the lease is released once that commits, not inside it: a payout
  // requested meanwhile must find it held (409 at once), not wait on its row and then take it.
  const ownTransaction = db === ctx.db;
  const { statusBefore, payout } = await withinTransaction(ctx, db, async (tx) => {
    const applied = await applyPayoutAnswer(ctx, tx, payoutId, answer, ownTransaction ? null : lease);
    if (applied.statusBefore === 'pending' && applied.payout.status !== 'pending') await announcePayoutStatus(ctx, tx, applied.payout);
    return applied;
  });
  if (ownTransaction) await releasePayoutLease(ctx, lease);
  const settledAs = statusBefore === 'completed' ? 'succeeded' : statusBefore;
  if (statusBefore !== 'pending' && answer && answer.status !== 'pending' && answer.status !== settledAs) {
    ctx.log.error(
      { payoutId, recorded: statusBefore, provider: answer.status },
      'the provider answered a payout differently from how it was settled: check it with the provider',
    );
  }
  return payout;
}

/**
 * The request's common case, sent and completed, with the payout as phase 1 recorded it in hand:
 * ONE statement completes it, releases the lease and writes its payout_status outbox rows, whose
 * body is projected from `recorded` (a pending payout changes only by its settlement, which the
 * lease and the status condition make this one). As phase 1 and phase 2 were before events
 * existed: the bench's payout row (one statement each) pays for no extra round trip. Null when the
 * payout was no longer pending (settled meanwhile): the general path reads it.
 */
async function completeAsRecorded(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  recorded: PayoutRecord,
  answer: ProviderAnswer,
  lease: PayoutLease | null,
): Promise<PayoutRecord | null> {
  let projected: PayoutRecord | null = null;
  const completed = await completePendingPayout(ctx, db, recorded.id, answer, lease, (completedAt) => {
    projected = { ...recorded, status: 'completed', paidAt: completedAt, providerReference: answer.providerReference ?? '', updatedAt: completedAt };
    return payoutStatusBody(projected);
  });
  if (!completed) return null;
  const differingFields = projected ? differingBodyFields(payoutStatusBody(projected), payoutStatusBody(completed)) : [];
  if (differingFields.length > 0)
    ctx.log.error({ payoutId: completed.id, differingFields }, 'payout_status webhook body differs from the completed payout: fix completeAsRecorded');
  announceStatusChange(ctx, db, 'payout', completed);
  return completed;
}

/**
 * A payout's status changed (settled, rejected): its `payout_status` outbox rows in `tx`, the
 * change's own transaction, and the live update once that commits.
 */
export async function announcePayoutStatus(ctx: GatewayContext, tx: DbTransaction, payout: PayoutRecord): Promise<void> {
  await enqueueEvent(tx, { organizationId: payout.organizationId, event: 'payout_status', body: payoutStatusBody(payout) }, ctx.clock.now());
  announceStatusChange(ctx, tx, 'payout', payout);
}

/**
 * Whether the payout's method runs on a real provider whose payouts are resumed by re-sending
 * (Wave): its open payout answers a keyed retry with its current state, and its refusal says why.
 * On the sandbox both stay as they were (409 while open; the spec's message alone).
 */
export const resumesPayouts = (ctx: GatewayContext, method: PaymentMethod): boolean => resendsSafely(ctx.provider, 'payout', method);
const explainsRefusals = (ctx: GatewayContext, method: PaymentMethod): boolean => !isSandboxed(ctx, method);

/**
 * How a settled payout answers the request that created it: `failed` is the spec's 500, kept
 * under the Idempotency-Key (final) so that a retry replays it instead of sending a new payout.
 */
export function settlementOf(ctx: GatewayContext, payout: PayoutRecord, answer?: ProviderAnswer | null): Settlement<PayoutRecord> {
  // The provider could not take it (unreachable): the spec's 503, use the other method; the funds are back.
  if (payout.status === 'failed' && answer?.status === 'failed' && answer.unavailable)
    return { refusal: new DomainError('payout_method_unavailable', payout.selectedPaymentMethod), final: true };
  if (payout.status === 'failed') return { refusal: payoutFailed(payout, explainsRefusals(ctx, payout.selectedPaymentMethod)), final: true };
  // Sent and being resumed: the key stays bound to the payout, so a retry reads what it is now.
  return { answer: payout, open: payout.status === 'pending' && payout.sentAt !== null && resumesPayouts(ctx, payout.selectedPaymentMethod) };
}

/**
 * The spec's 500 `Failed to withdraw ...`, followed by why (the provider's refusal as
 * the connector words it for the merchant: the recipient's limit, an invalid number, or a cause only
 * the operator can fix, said as such). The same reason is the payout's `failureReason` (GraphQL,
 * dashboard).
 */
function payoutFailed(payout: PayoutRecord, explain: boolean): DomainError {
  const base = new DomainError('payout_failed', paymentMethodRow(payout.selectedPaymentMethod).payoutProviderName);
  const reason = explain ? payout.failureReason?.trim() : undefined;
  return reason ? new DomainError('payout_failed', '', { message: `${base.message} Reason: ${reason.slice(0, 300)}.` }) : base;
}

/** A payout handed to the provider whose outcome it has not told us yet. */
type OpenPayout = OpenProviderCall & { method: PaymentMethod; phone: string; amount: bigint };

/**
 * The store side of the payout reconciler (providerFlow.ts): payouts sent but left `pending` (a
 * provider timeout, or a crash between the phases) are asked about. One the provider says it never
 * received is sent again under the same reference when the provider de-duplicates payouts (Wave's
 * idempotency-key: askOrResend), and otherwise stays pending: unknown is not failed (it may yet
 * appear, or the process died before sending it); an operator decides a stuck one
 * (settleOpenPayout). Payouts awaiting review (never sent) are not its business.
 */
export const openPayouts = (ctx: GatewayContext): OpenCallStore<OpenPayout> => ({
  kind: 'payout',
  listDue: async (now, openedBefore, limit) => (await listDuePayouts(ctx.db, now, openedBefore, limit)).map(openPayoutOf),
  listOpen: async (minChecks, limit) => (await listOpenPayouts(ctx.db, minChecks, limit)).map(openPayoutOf),
  findOpen: async (id) => {
    const row = await findOpenPayout(ctx.db, id);
    return row && openPayoutOf(row);
  },
  // Asked; re-sent with the same reference when the provider de-duplicates payouts and does not know it.
  ask: (call, questionEnds) =>
    askOrResend(
      ctx,
      { kind: 'payout', id: call.id, method: call.method },
      () => ctx.provider.payoutStatus(call.reference, call.method),
      (signal) => ctx.provider.payout(payoutRequestOf(call, signal)),
      questionEnds,
    ),
  claim: (call, now, until) => claimPayoutCheck(ctx.db, call.id, now, until),
  settle: async (call, answer) => {
    await settleOpenPayout(ctx, call.organizationId, call.id, answer);
  },
  postpone: (call, nextCheckAt) => postponePayoutCheck(ctx.db, call.id, nextCheckAt),
  countOpen: (stuckAfterChecks) => countOpenPayouts(ctx.db, stuckAfterChecks),
});

const openPayoutOf = (row: OpenPayoutRow): OpenPayout => ({
  kind: 'payout',
  id: row.id,
  organizationId: row.organizationId,
  reference: row.id,
  providerChecks: row.providerChecks,
  openedAt: row.sentAt,
  method: row.method,
  phone: row.recipientPhone,
  amount: BigInt(row.amount),
});

/**
 * Applies a final outcome to a sent pending payout, by the reconciler or an operator: the same
 * settlement as the request's (it also completes an Idempotency-Key waiting on it). A no-op when
 * someone settled it first. Returns the payout after it.
 */
async function settleOpenPayout(ctx: GatewayContext, organizationId: string, payoutId: string, answer: ProviderAnswer): Promise<PayoutRecord> {
  let settled: PayoutRecord | undefined;
  try {
    await settleIntent(ctx, organizationId, payoutIntentName(payoutId), async (tx) => {
      settled = await settlePayout(ctx, tx, payoutId, answer);
      return settlementOf(ctx, settled);
    });
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'payout_failed')) throw error;
  }
  return settled ?? findPayout(ctx.db, payoutId);
}

/** The reconciler's run over payouts (background.ts); safe in several instances at once. */
export function settlePendingPayouts(ctx: GatewayContext, options: { olderThanMs?: number; limit?: number } = {}): Promise<ReconcileTally> {
  return reconcileOpenCalls(ctx, openPayouts(ctx), options);
}
