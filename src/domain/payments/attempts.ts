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
import type { PaymentAttempt } from '../../generated/prisma/client.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { closesCollections, type ProviderAnswer } from '../ports.js';
import { callProviderOnce, reconcileOpenCalls, settleDurably, type OpenCallStore, type OpenProviderCall, type ReconcileTally } from '../providerFlow.js';
import { differingBodyFields, paymentStatusBodyV1, paymentStatusBodyV2 } from '../webhooks/bodies.js';
import { isUuid } from '../ids.js';
import { announceStatusChange } from '../liveUpdates/events.js';
import type { TransactionRecord } from '../transactions/store.js';
import {
  attemptStateOf,
  attemptSummaryOf,
  attemptsCheckedAtLeast,
  claimForPayment,
  claimStateOf,
  collectingAttempt,
  countCollectingAttempts,
  dueAttempts,
  postponeAttemptCheck,
  readTransactionIfNotified,
  writeSettlement,
  type CollectingAttempt,
} from './store.js';

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
async function recordAttempt(ctx: GatewayContext, transactionId: string, terms: AttemptTerms): Promise<PaymentAttempt> {
  const attempt = await claimForPayment(ctx.db, { id: randomUUID(), transactionId, ...terms, createdAt: ctx.clock.now() });
  if (attempt) return attempt;
  throw await whyNotClaimable(ctx, transactionId);
}

/** Why a transaction could not be claimed: paid or cancelled meanwhile, or a wallet is being asked. */
async function whyNotClaimable(ctx: GatewayContext, transactionId: string): Promise<DomainError> {
  const now = await claimStateOf(ctx.db, transactionId);
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
  const transaction = await writeSettlement(ctx.db, { attempt, state, answer, now, notified: paid });
  if (transaction) {
    if (paid) checkProjection(ctx, paid, transaction);
    // Committed (one statement on ctx.db): live subscribers are told of a payment, not of a decline.
    if (state === 'succeeded') announceStatusChange(ctx, ctx.db, 'transaction', transaction);
    return { state, transaction };
  }
  // Settled by someone else first (a reconciler): their answer stands. Still collecting means the
  // claim was lost, which the rules forbid: fail loudly, leaving the attempt to the reconciler.
  const settled = await attemptStateOf(ctx.db, attempt.id);
  if (settled === 'collecting')
    throw new Error(`payment attempt ${attempt.id} could not be settled: transaction ${attempt.transactionId} is no longer pending under it`);
  return { state: settled };
}

/** The attempt's state after settling, and the transaction as the settlement left it (when this settlement closed it). */
export interface Settled {
  state: PaymentAttempt['state'];
  transaction?: TransactionRecord;
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
async function paidProjectionIfNotified(
  ctx: GatewayContext,
  attempt: PaymentAttempt,
  now: Date,
  claimed?: ClaimedTransaction,
): Promise<TransactionRecord | null> {
  const before = claimed ? (claimed.hasActiveWebhooks ? claimed.transaction : null) : await readTransactionIfNotified(ctx.db, attempt.transactionId);
  if (!before) return null;
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

/**
 * The bodies were built from the projection: if the settled row ever differs from it (a column
 * the settlement sets and the projection forgot), say so loudly; the test suite compares them too.
 */
function checkProjection(ctx: GatewayContext, projected: TransactionRecord, settled: TransactionRecord): void {
  if (paymentStatusBodyV2(projected) === paymentStatusBodyV2(settled) && paymentStatusBodyV1(projected) === paymentStatusBodyV1(settled)) return;
  // The names of the fields that differ, never their values: the bodies hold the customer's phone.
  ctx.log.error(
    { transactionId: settled.id, differingFields: differingFields(projected, settled) },
    'payment_status webhook body differs from the settled transaction: fix paidProjectionIfNotified',
  );
}

function differingFields(projected: TransactionRecord, settled: TransactionRecord): string[] {
  const fields = [paymentStatusBodyV2, paymentStatusBodyV1].flatMap((body) => differingBodyFields(body(projected), body(settled)));
  return [...new Set(fields)];
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
 * operator decides (settleProviderCall, providerCalls.ts).
 */
export const openAttempts = (ctx: GatewayContext): OpenCallStore<OpenAttempt> => ({
  kind: 'payment',
  finalStatuses: ['succeeded', 'failed', 'pending'],
  listDue: async (now, openedBefore, limit) => (await dueAttempts(ctx.db, now, openedBefore, limit)).map(openAttemptOf),
  listOpen: async (minChecks, limit) => (await attemptsCheckedAtLeast(ctx.db, minChecks, limit)).map(openAttemptOf),
  findOpen: async (id) => {
    const attempt = isUuid(id) ? await collectingAttempt(ctx.db, id) : null;
    return attempt && openAttemptOf(attempt);
  },
  ask: (call) => ctx.provider.collectStatus(call.reference, call.attempt.method, call.attempt.createdAt),
  settle: async (call, answer) => {
    await settleAttempt(ctx, call.attempt, answer);
  },
  postpone: (call, nextCheckAt) => postponeAttemptCheck(ctx.db, call.id, nextCheckAt),
  countOpen: (stuckAfterChecks) => countCollectingAttempts(ctx.db, stuckAfterChecks),
});

/** A collecting attempt as an open provider call (its reference with the provider is its id). */
function openAttemptOf({ organizationId, ...attempt }: CollectingAttempt): OpenAttempt {
  return {
    kind: 'payment',
    id: attempt.id,
    organizationId,
    reference: attempt.id,
    providerChecks: attempt.providerChecks,
    openedAt: attempt.createdAt,
    attempt,
  };
}

/** The reconciler's run over payment attempts (background.ts); safe in several instances at once. */
export function settleStalePaymentAttempts(ctx: GatewayContext, options: { olderThanMs?: number; limit?: number } = {}): Promise<ReconcileTally> {
  return reconcileOpenCalls(ctx, openAttempts(ctx), options);
}

/**
 * Settles a collecting attempt now by asking its provider (the checkout's return page, after the
 * provider sent the customer back): the reconciler's question, for one attempt, at once. Returns
 * the attempt's state after it (`collecting` while the provider has no final word), or null when
 * the attempt is not `transactionId`'s.
 */
export async function settleAttemptByQuestion(
  ctx: GatewayContext,
  transactionId: string,
  attemptId: string,
): Promise<Pick<PaymentAttempt, 'state' | 'method'> | null> {
  const open = isUuid(attemptId) ? await collectingAttempt(ctx.db, attemptId) : null;
  if (open && open.transactionId !== transactionId) return null;
  if (!open) {
    const summary = isUuid(attemptId) ? await attemptSummaryOf(ctx.db, attemptId) : null;
    return summary && summary.transactionId === transactionId ? { state: summary.state, method: summary.method } : null;
  }
  const { organizationId: _organizationId, ...attempt } = open;
  const outcome = await callProviderOnce(
    ctx,
    () => ctx.provider.collectStatus(attempt.id, attempt.method, attempt.createdAt),
    { attemptId },
    'asking the provider about a returning customer failed; the reconciler will ask again',
  );
  const status = 'answered' in outcome ? outcome.answered : null;
  if (!status || status.status === 'not_found' || status.status === 'processing') return { state: 'collecting', method: attempt.method };
  const settled = await settleDurably(ctx, { attemptId }, () =>
    settleAttempt(ctx, attempt, { status: status.status as ProviderAnswer['status'], providerReference: status.providerReference, reason: status.reason }),
  );
  return { state: settled.state, method: attempt.method };
}

/**
 * Records a new attempt; when an earlier one still holds the transaction on a provider's page (a
 * Wave session the customer left to pay another way), the provider is first asked to close it
 * (never the gateway alone: it may have been paid meanwhile), that attempt is settled with what it
 * became, and the new one is recorded. When it cannot be closed (the sandbox, a session not
 * created yet, the provider unsure), 409 as before.
 */
export async function recordAttemptClosingAbandoned(ctx: GatewayContext, transactionId: string, terms: AttemptTerms): Promise<PaymentAttempt> {
  try {
    return await recordAttempt(ctx, transactionId, terms);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'payment_in_progress')) throw error;
    if (!(await closeAbandonedAttempt(ctx, transactionId))) throw error;
    return recordAttempt(ctx, transactionId, terms);
  }
}

/**
 * True when the attempt holding `transactionId` was closed by its provider and settled here (with
 * what it became: closed unpaid, or paid first, and then the payment is recorded). False when
 * nothing holds it, or its provider cannot close it or is unsure (the attempt stays open).
 * Used before a new attempt (recordAttemptClosingAbandoned) and before a cancel (cancelTransaction.ts).
 */
export async function closeAbandonedAttempt(ctx: GatewayContext, transactionId: string): Promise<boolean> {
  const provider = ctx.provider;
  const cancel = closesCollections(provider) ? provider.cancelCollection.bind(provider) : null;
  const claim = cancel ? await claimStateOf(ctx.db, transactionId) : null;
  const open = claim?.collectingAttemptId ? await collectingAttempt(ctx.db, claim.collectingAttemptId) : null;
  if (!cancel || !open) return false;
  const outcome = await callProviderOnce(
    ctx,
    () => cancel(open.id, open.method),
    { attemptId: open.id },
    'closing a collection the customer left failed; it stays open',
  );
  const status = 'answered' in outcome ? outcome.answered : null;
  if (!status || status.status === 'processing' || status.status === 'not_found') return false;
  const { organizationId: _organizationId, ...attempt } = open;
  const answer = { status: status.status, providerReference: status.providerReference, reason: status.reason ?? 'the customer left it to pay again' };
  await settleDurably(ctx, { attemptId: open.id }, () => settleAttempt(ctx, attempt, answer));
  return true;
}
