/**
 * Late payments: a real provider confirms a payment after the gateway closed its attempt (the
 * customer left the provider's page and the session expired, or the return page found it still
 * unpaid, and only then did the customer pay). The money is not lost:
 *
 *   - the order can still be paid by it (pending, no other payment under way): the attempt is
 *     reopened and settled as paid by the ordinary settlement (ledger, webhooks), noted `recorded`;
 *   - it cannot (paid by another attempt, cancelled, refunded, or another payment under way): the
 *     money goes back to the payer through the provider flow: the return is recorded first
 *     (`returning`, once per attempt), sent with its own reference as the provider's idempotency
 *     key, settled (`returned` / `return_failed`), and left open to the reconciler when the answer
 *     is unknown (an open provider call of kind `late_payment_return`, which an operator sees and
 *     may decide like any other). A return is a refund at the provider, resumed as refunds are
 *     (providerFlow.ts askOrResend): asked about, and sent again with the same reference when the
 *     provider does not know it and its refunds are de-duplicated (Wave: a checkout session is
 *     refunded at most once); only asked about otherwise (Orange Money: a cash in is never re-sent).
 *
 * Either way it is logged for operators and listed by GraphQL `latePayments`.
 */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { isUuid } from '../ids.js';
import type { ProviderAnswer } from '../ports.js';
import {
  answerOrPending,
  askOrResend,
  callProviderOnce,
  reconcileOpenCalls,
  settleDurably,
  type OpenCallStore,
  type OpenProviderCall,
  type ReconcileTally,
} from '../providerFlow.js';
import { settleAttempt } from './attempts.js';
import {
  claimLateReturnCheck,
  claimStateOf,
  collectingAttempt,
  countLateReturns,
  dueLateReturns,
  lateAttemptOf,
  listLatePaymentRows,
  openLateReturn,
  openLateReturns,
  postponeLateReturn,
  recordLateReturn,
  reopenForLatePayment,
  settleLateReturn,
  type LateAttempt,
  type LatePaymentRow,
} from './store.js';

export type LatePaymentOutcome = LatePaymentRow['outcome'];

/** Our reference for returning the late payment of `attemptId` (the provider's idempotency key for it). */
const lateReturnReferenceOf = (attemptId: string): string => `${attemptId}:return`;

/** Most late payments one listing returns. */
const MAX_LISTED = 100;

/** A closed attempt the provider says was paid: recorded on the order, or returned to the payer. */
export async function acceptLatePayment(ctx: GatewayContext, attempt: LateAttempt, providerReference: string): Promise<LatePaymentOutcome> {
  const about = { attemptId: attempt.id, transactionId: attempt.transactionId, organizationId: attempt.organizationId, method: attempt.method };
  if (await reopenForLatePayment(ctx.db, attempt, providerReference)) {
    const open = await collectingAttempt(ctx.db, attempt.id);
    if (open) {
      const { organizationId: _organizationId, ...reopened } = open;
      await settleDurably(ctx, about, () => settleAttempt(ctx, reopened, { status: 'succeeded', providerReference }));
    }
    ctx.log.warn(about, 'a payment the provider confirmed after its attempt was closed is recorded on its order');
    return 'recorded';
  }
  const why = await whyNotPayable(ctx, attempt);
  const { row, inserted } = await recordLateReturn(ctx.db, attempt, providerReference, lateReturnReferenceOf(attempt.id), why);
  // Only the first notification sends the return; a duplicate finds it recorded (sent, or open to the reconciler).
  if (!inserted) return row.outcome;
  ctx.log.warn({ ...about, reason: why }, 'a payment the provider confirmed after its attempt was closed cannot be recorded: returning it to the payer');
  return sendLateReturn(ctx, row, attempt.phone);
}

async function whyNotPayable(ctx: GatewayContext, attempt: LateAttempt): Promise<string> {
  const now = await claimStateOf(ctx.db, attempt.transactionId);
  if (!now) return 'the order no longer exists';
  if (now.status !== 'pending') return `the order is ${now.status}`;
  if (now.collectingAttemptId) return 'another payment of the order is under way';
  return 'the attempt was settled meanwhile';
}

/** The return as the provider is asked to do it (the same request whenever it is sent). */
const returnRequestOf = (row: LatePaymentRow, phone: string, signal: AbortSignal) => ({
  method: row.method,
  phone,
  amount: row.amount,
  reference: row.returnReference,
  paymentReference: row.providerReference,
  signal,
});

/** The return, once, bounded; a final answer settles it, anything else leaves it to the reconciler. */
async function sendLateReturn(ctx: GatewayContext, row: LatePaymentRow, phone: string): Promise<LatePaymentOutcome> {
  const outcome = await callProviderOnce(
    ctx,
    (signal) => ctx.provider.refund(returnRequestOf(row, phone, signal)),
    { attemptId: row.attemptId },
    'returning a late payment to the provider failed; the reconciler will ask what became of it',
  );
  const answer = answerOrPending(outcome);
  if (answer.status === 'pending') return 'returning';
  return settleReturn(ctx, row, answer);
}

async function settleReturn(
  ctx: GatewayContext,
  row: Pick<LatePaymentRow, 'attemptId' | 'organizationId'>,
  answer: ProviderAnswer,
): Promise<LatePaymentOutcome> {
  const outcome = answer.status === 'succeeded' ? 'returned' : 'return_failed';
  await settleLateReturn(ctx.db, row.attemptId, outcome, answer.reason ?? null, ctx.clock.now());
  if (outcome === 'return_failed')
    ctx.log.error(
      { attemptId: row.attemptId, organizationId: row.organizationId, reason: answer.reason },
      'a late payment could not be returned to the payer: an operator must act',
    );
  return outcome;
}

interface OpenLateReturn extends OpenProviderCall {
  row: LatePaymentRow;
}

const openLateReturnOf = (row: LatePaymentRow): OpenLateReturn => ({
  kind: 'late_payment_return',
  id: row.attemptId,
  organizationId: row.organizationId,
  reference: row.returnReference,
  providerChecks: row.providerChecks,
  openedAt: row.createdAt,
  row,
});

/**
 * The store side of the late returns' reconciler (providerFlow.ts): asked about; sent again with
 * the same reference when the provider does not know it and de-duplicates refunds (askOrResend),
 * under a claim in PostgreSQL so that two instances never send it at once.
 */
export const openLateReturnCalls = (ctx: GatewayContext): OpenCallStore<OpenLateReturn> => ({
  kind: 'late_payment_return',
  listDue: async (now, openedBefore, limit) => (await dueLateReturns(ctx.db, now, openedBefore, limit)).map(openLateReturnOf),
  listOpen: async (minChecks, limit) => (await openLateReturns(ctx.db, minChecks, limit)).map(openLateReturnOf),
  findOpen: async (id) => {
    const row = isUuid(id) ? await openLateReturn(ctx.db, id) : null;
    return row && openLateReturnOf(row);
  },
  ask: (call, questionEnds) =>
    askOrResend(
      ctx,
      { kind: 'late_payment_return', id: call.id, method: call.row.method },
      () => ctx.provider.refundStatus(call.reference, call.row.method, call.row.providerReference),
      async (signal) => ctx.provider.refund(returnRequestOf(call.row, (await lateAttemptOf(ctx.db, call.id))?.phone ?? '', signal)),
      questionEnds,
    ),
  claim: (call, now, until) => claimLateReturnCheck(ctx.db, call.id, now, until),
  settle: async (call, answer) => {
    await settleReturn(ctx, call.row, answer);
  },
  postpone: (call, nextCheckAt) => postponeLateReturn(ctx.db, call.id, nextCheckAt),
  countOpen: (stuckAfterChecks) => countLateReturns(ctx.db, stuckAfterChecks),
});

/** The reconciler's run over late returns (background.ts). */
export function settleOpenLateReturns(ctx: GatewayContext, options: { olderThanMs?: number; limit?: number } = {}): Promise<ReconcileTally> {
  return reconcileOpenCalls(ctx, openLateReturnCalls(ctx), options);
}

/** Operators: the late payments, newest first (recorded on their order, or returned to the payer). */
export async function listLatePayments(ctx: GatewayContext, caller: Caller): Promise<LatePaymentRow[]> {
  authorize(caller, 'listLatePayments');
  return listLatePaymentRows(ctx.db, MAX_LISTED);
}
