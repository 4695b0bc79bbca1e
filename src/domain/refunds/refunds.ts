/**
 * Refunds (docs/architecture.md#refund and #idempotency): the full `amount` goes back to the wallet
 * that paid, debited from `main` (fees are not returned). A refund calls a wallet provider, so it
 * runs in two phases around the call:
 *
 *   1. record: ONE statement (store.ts recordRefund) locks the transaction row, checks the rules,
 *      returns a held (paid_and_blocked) transaction's proceeds from `escrow` to `main`, debits
 *      `main` by the amount (the provider's clearing account owes it back), and writes the Refund
 *      row `pending`. Nothing is sent before this commits.
 *   2. the provider is called once, with our reference for this attempt.
 *   3. settle: a second statement (store.ts applyRefundAnswer) records the answer: `succeeded` -> the transaction is
 *      `refunded`; `failed` -> the phase-1 postings are reversed (the escrow goes back to escrow)
 *      and the Refund is `failed` (it may be asked again: a new attempt); no answer (timeout) ->
 *      everything stays as phase 1 left it, and the reconciler below settles it later by ASKING the
 *      provider what became of it (never by sending it again).
 *
 * Exactly one refund of a transaction ever succeeds: the Refund row is unique per transaction and
 * a new attempt is only recorded while the previous one is `failed`; phase 1 of two concurrent
 * requests is serialised by a transaction-scoped advisory lock (the loser answers 409 at once,
 * without waiting) and by the transaction row's lock.
 *
 * The same statements run with or without an Idempotency-Key (with one, inside the key's
 * transaction), and for the reconciler and an operator's decision.
 */
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { settleIntent, type Settlement } from '../idempotency.js';
import {
  answerOrPending,
  askOrResend,
  callProviderOnce,
  reconcileOpenCalls,
  type OpenCallStore,
  type OpenProviderCall,
  type ReconcileTally,
} from '../providerFlow.js';
import { resendsSafely, type Db, type DbTransaction, type ProviderAnswer } from '../ports.js';
import { isSandboxed } from '../providerCalls/providerHealth.js';
import { readTransaction, type TransactionRecord } from '../transactions/store.js';
import {
  applyRefundAnswer,
  claimRefundCheck,
  countOpenRefunds,
  findOpenRefund,
  findRefund,
  listDueRefunds,
  listOpenRefunds,
  postponeRefundCheck,
  type OpenRefundRow,
  type RefundAnswerApplied,
  type RefundIntent,
} from './store.js';
import { announceStatusChange } from '../liveUpdates/events.js';
import { withinTransaction } from '../afterCommit.js';
import { differingBodyFields, refundStatusBody } from '../webhooks/bodies.js';
import { enqueueEvent } from '../webhooks/store.js';

export const refundIntentName = (intent: Pick<RefundIntent, 'refundId' | 'attempt'>): string => `refundTransaction:${intent.refundId}:${intent.attempt}`;

/**
 * Our reference for an attempt, the provider's de-duplication key: the refund id for the first
 * attempt; a later attempt (after a failure) gets its own, so a provider that de-duplicates does
 * not answer it with the earlier failure.
 */
const providerReferenceOf = (intent: Pick<RefundIntent, 'refundId' | 'attempt'>): string =>
  intent.attempt === 1 ? intent.refundId : `${intent.refundId}:${intent.attempt}`;

/** The refund call of an attempt: the same on the first send and on a re-send (same reference). */
const refundRequestOf = (intent: RefundIntent, signal: AbortSignal) => ({
  method: intent.method,
  phone: intent.phone,
  amount: intent.amount,
  reference: providerReferenceOf(intent),
  paymentReference: intent.paymentReference,
  signal,
});

/**
 * Phase 2's call: the provider, once, bounded in time. A throw or no answer in time is "not
 * known yet" (pending), never "failed": the money may have left.
 */
export async function sendRefund(ctx: GatewayContext, intent: RefundIntent): Promise<ProviderAnswer> {
  const outcome = await callProviderOnce(
    ctx,
    (signal) => ctx.provider.refund(refundRequestOf(intent, signal)),
    { refundId: intent.refundId },
    'refund call to the provider failed; the reconciler will ask what became of it',
  );
  return answerOrPending(outcome);
}

/**
 * Phase 2's settlement, by the request, the reconciler or an operator, whichever comes first (on
 * `ctx.db`, or in the transaction that completes an Idempotency-Key): only a `pending` refund of
 * this attempt is settled; a later settler finds it settled and answers what it became.
 */
export async function settleRefund(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  intent: RefundIntent,
  answer: ProviderAnswer,
): Promise<Settlement<TransactionRecord>> {
  // The settlement and its refund_status outbox rows commit together: in ONE statement when the
  // paid transaction is in hand (the request's common case), else in one transaction.
  const applied =
    answer.status === 'succeeded' && intent.paidTransaction
      ? await applyAsProjected(ctx, db, intent, intent.paidTransaction, answer)
      : await withinTransaction(ctx, db, async (tx) => {
          const result = await applyRefundAnswer(ctx, tx, intent, answer);
          if (settledHere(result, intent) && answer.status === 'succeeded') await announceRefund(ctx, tx, result.transaction);
          return result;
        });
  const { transaction } = applied;
  if (!settledHere(applied, intent)) return settledAlready(ctx, intent, applied, answer);
  // A final answer settled it here: the transaction is refunded, or (failed) back to what it was.
  if (answer.status === 'succeeded') {
    if (transaction.status !== 'refunded') throw new Error(`refund ${intent.refundId} succeeded but transaction ${intent.transactionId} was no longer paid`);
    return { answer: transaction };
  }
  if (answer.status === 'failed') return { refusal: refundFailed(isSandboxed(ctx, intent.method) ? undefined : answer.reason) };
  return { unsettled: new DomainError('refund_unconfirmed') };
}

/**
 * What the refund attempt an intent name (refundIntentName) stands for is now: the refunded
 * transaction, `refund_failed`, or `refund_unconfirmed` while its call is open (the amount stays
 * debited; the spec's "read the transaction before trying again"). Null for an unknown intent.
 */
export async function currentRefundOfIntent(ctx: GatewayContext, intentName: string): Promise<Settlement<TransactionRecord> | null> {
  const match = /^refundTransaction:([0-9a-f-]{36}):(\d+)$/.exec(intentName);
  if (!match) return null;
  const refund = await findRefund(ctx.db, match[1]!);
  // Only a refund being resumed (its provider de-duplicates refunds); otherwise the retry waits (409).
  if (!refund || !resendsSafely(ctx.provider, 'refund', refund.method)) return null;
  if (refund.attempts !== Number(match[2])) return { refusal: new DomainError('refund_in_progress') };
  if (refund.status === 'pending') return { unsettled: new DomainError('refund_unconfirmed') };
  // The same answer the request that settled it gave: the refusal with the provider's reason.
  if (refund.status === 'failed') return { refusal: refundFailed(isSandboxed(ctx, refund.method) ? undefined : (refund.failureReason ?? undefined)) };
  const transaction = await readTransaction(ctx.db, refund.transactionId, refund.organizationId);
  return transaction ? { answer: transaction } : null;
}

/** The spec's 500 for a refund the provider refused, followed by why (also the refund's failureReason). */
function refundFailed(reason: string | undefined): DomainError {
  const base = new DomainError('refund_failed');
  return reason?.trim() ? new DomainError('refund_failed', '', { message: `${base.message} Reason: ${reason.trim().slice(0, 300)}.` }) : base;
}

/** This attempt was still pending when `applied` was recorded: the answer settled it (or left it pending). */
const settledHere = ({ refund }: RefundAnswerApplied, intent: RefundIntent): boolean => refund.status === 'pending' && refund.attempts === intent.attempt;

/** A refund succeeded: the `refund_status` outbox rows in its own transaction `tx`, the live update once that commits. */
async function announceRefund(ctx: GatewayContext, tx: DbTransaction, transaction: TransactionRecord): Promise<void> {
  await enqueueEvent(
    tx,
    { organizationId: transaction.organizationId, event: 'refund_status', body: refundStatusBody(transaction), transactionId: transaction.id },
    ctx.clock.now(),
  );
  announceStatusChange(ctx, tx, 'transaction', transaction);
}

/**
 * A success with the transaction as phase 1 found it, paid: ONE statement refunds it and writes its
 * refund_status outbox rows, whose body is projected from `paid` (the refund's gate and the paid
 * condition leave the settlement the only change to it meanwhile). The bench's refunds pay no round
 * trip for the event, as before events existed. The projection is checked against the row written.
 */
async function applyAsProjected(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  intent: RefundIntent,
  paid: TransactionRecord,
  answer: ProviderAnswer,
): Promise<RefundAnswerApplied> {
  let projected: TransactionRecord | null = null;
  const applied = await applyRefundAnswer(ctx, db, intent, answer, (refundedAt) => {
    projected = { ...paid, status: 'refunded', refundedAt, updatedAt: refundedAt };
    return refundStatusBody(projected);
  });
  if (!settledHere(applied, intent)) return applied;
  const differingFields = projected ? differingBodyFields(refundStatusBody(projected), refundStatusBody(applied.transaction)) : [];
  if (differingFields.length > 0)
    ctx.log.error({ transactionId: paid.id, differingFields }, 'refund_status webhook body differs from the refunded transaction: fix applyAsProjected');
  announceStatusChange(ctx, db, 'transaction', applied.transaction);
  return applied;
}

/** Someone settled this attempt first: answer what it became (and say so if the provider disagrees). */
function settledAlready(
  ctx: GatewayContext,
  intent: RefundIntent,
  { refund, transaction }: RefundAnswerApplied,
  answer: ProviderAnswer,
): Settlement<TransactionRecord> {
  if (refund.attempts !== intent.attempt) return { refusal: new DomainError('refund_in_progress') };
  if (answer.status !== 'pending' && answer.status !== refund.status) {
    ctx.log.error(
      { refundId: intent.refundId, recorded: refund.status, provider: answer.status },
      'the provider answered a refund differently from how it was settled: check it with the provider',
    );
  }
  if (refund.status === 'succeeded') return { answer: transaction };
  return { refusal: new DomainError('refund_failed') };
}

/** A refund recorded (and maybe sent) whose outcome the provider has not told us yet. */
interface OpenRefund extends OpenProviderCall {
  intent: RefundIntent;
}

/**
 * The store side of the refund reconciler (providerFlow.ts): pending refunds are asked about; one
 * the provider does not know is sent again when its API de-duplicates refunds (Wave: a session is
 * refunded once), else it stays pending (unknown is not failed: it may yet appear, or the process
 * crashed before sending it); after STUCK_AFTER_CHECKS questions an operator is told, and decides
 * (settleOpenRefund).
 */
export const openRefunds = (ctx: GatewayContext): OpenCallStore<OpenRefund> => ({
  kind: 'refund',
  listDue: async (now, openedBefore, limit) => (await listDueRefunds(ctx.db, now, openedBefore, limit)).map(openRefundOf),
  listOpen: async (minChecks, limit) => (await listOpenRefunds(ctx.db, minChecks, limit)).map(openRefundOf),
  findOpen: async (id) => {
    const row = await findOpenRefund(ctx.db, id);
    return row && openRefundOf(row);
  },
  // Asked; re-sent with the same reference when the provider de-duplicates refunds and does not know it.
  ask: (call, questionEnds) =>
    askOrResend(
      ctx,
      { kind: 'refund', id: call.id, method: call.intent.method },
      () => ctx.provider.refundStatus(call.reference, call.intent.method, call.intent.paymentReference),
      (signal) => ctx.provider.refund(refundRequestOf(call.intent, signal)),
      questionEnds,
    ),
  claim: (call, now, until) => claimRefundCheck(ctx.db, call.id, call.intent.attempt, now, until),
  settle: (call, answer) => settleOpenRefund(ctx, call.intent, answer),
  postpone: (call, nextCheckAt) => postponeRefundCheck(ctx.db, call.id, call.intent.attempt, nextCheckAt),
  countOpen: (stuckAfterChecks) => countOpenRefunds(ctx.db, stuckAfterChecks),
});

function openRefundOf(row: OpenRefundRow): OpenRefund {
  const intent: RefundIntent = {
    refundId: row.id,
    attempt: row.attempts,
    organizationId: row.organizationId,
    transactionId: row.transactionId,
    method: row.method,
    phone: row.payerPhone ?? '',
    amount: BigInt(row.amount),
    paymentReference: row.paymentReference,
  };
  return {
    kind: 'refund',
    id: row.id,
    organizationId: row.organizationId,
    reference: providerReferenceOf(intent),
    providerChecks: row.providerChecks,
    openedAt: row.updatedAt,
    intent,
  };
}

/**
 * Applies a final outcome to a pending refund, by the reconciler or an operator: the same
 * settlement as the request's (it also completes an Idempotency-Key waiting on it). A no-op when
 * it was settled first; a refusal of the settled outcome (failed) is not an error here.
 */
async function settleOpenRefund(ctx: GatewayContext, intent: RefundIntent, answer: ProviderAnswer): Promise<void> {
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
