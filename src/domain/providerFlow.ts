/**
 * The one way the gateway calls a wallet provider (docs/architecture.md#the-provider-flow). Payment,
 * refund, payout and payout approval all go through these steps:
 *
 *   1. record the intent (its row, its debit, its Idempotency-Key row) in ONE database transaction,
 *      before anything is sent (each capability's `record...`);
 *   2. call the provider ONCE, bounded in time and cancelled at the deadline (`callProviderOnce`);
 *   3. settle the answer, retried on a transient database failure (`settleDurably`): settling is
 *      conditional on the intent still being open, so applying an outcome twice changes nothing;
 *   4. reconcile what stayed open (`reconcileOpenCalls`): ask the provider what became of the
 *      call, with backoff, until it says succeeded or failed, or an operator decides (GraphQL
 *      `settleProviderCall`, CLI `gateway provider-call settle`); a call the provider de-duplicates
 *      and does not know is sent again with the same reference (`askOrResend`), any other is only asked.
 *
 * "Unknown" is never "failed": a timeout, a thrown call, a provider that answers "pending" or
 * "not found" (a real provider may not see an accepted call for a while; a crash may have come
 * before the call) all leave the call open. Money may have left; only the provider or an operator
 * can say it did not. A call open for STUCK_AFTER_CHECKS questions is "stuck": it is logged and
 * counted in /metrics (`gateway_provider_calls_stuck`) for an operator to decide.
 */
import type { PaymentMethod } from '../generated/prisma/enums.js';
import type { GatewayContext } from './context.js';
import { DomainError } from './errors.js';
import { resendsSafely, type ProviderAnswer, type ProviderStatusAnswer } from './ports.js';

/** Longest a request waits for the provider (the reconcilers take over after). Settings may shorten it. */
const PROVIDER_TIMEOUT_MS = 30_000;

export type ProviderCallOutcome<T> = { answered: T } | { unknown: 'no answer from the provider in time' | 'the provider call failed' };

/**
 * `call`, once, bounded by the provider timeout, and by `within` when given (an enclosing call's
 * deadline: a re-send inside the reconciler's question must not outlive the question's claim). At
 * the deadline its signal is aborted (a real provider stops its HTTP request) and the outcome is
 * unknown; a throw is logged with `logFields` and is unknown too: the request may have reached the wallet.
 */
export async function callProviderOnce<T>(
  ctx: GatewayContext,
  call: (signal: AbortSignal) => Promise<T>,
  logFields: Record<string, unknown>,
  logMessage: string,
  within?: AbortSignal,
): Promise<ProviderCallOutcome<T>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let endedOutside: (() => void) | undefined;
  const deadline = new Promise<ProviderCallOutcome<T>>((resolve) => {
    const stop = () => {
      controller.abort();
      resolve({ unknown: 'no answer from the provider in time' });
    };
    timer = setTimeout(stop, ctx.settings.providerTimeoutMs ?? PROVIDER_TIMEOUT_MS);
    timer.unref();
    if (within?.aborted) stop();
    endedOutside = stop;
    within?.addEventListener('abort', stop, { once: true });
  });
  const answered = call(controller.signal).then((answer): ProviderCallOutcome<T> => ({ answered: answer }));
  // After the deadline the call's own fate no longer matters (an abort rejects it): not unhandled.
  answered.catch(() => undefined);
  try {
    return await Promise.race([answered, deadline]);
  } catch (error) {
    ctx.log.warn({ err: error, ...logFields }, logMessage);
    return { unknown: 'the provider call failed' };
  } finally {
    clearTimeout(timer);
    if (endedOutside) within?.removeEventListener('abort', endedOutside);
  }
}

/** A provider call's outcome as the settlement reads it: anything but an answer is still open. */
export function answerOrPending(outcome: ProviderCallOutcome<ProviderAnswer>): ProviderAnswer {
  return 'answered' in outcome ? outcome.answered : { status: 'pending', providerReference: '', reason: outcome.unknown };
}

// ---------------------------------------------------------------------------------------------
// Settling durably

/** Tries of one settlement before giving up to the reconciler (the call stays open, nothing is lost). */
const SETTLE_TRIES = 5;
/** Pauses between tries (ms): a deadlock victim or a dropped connection usually clears at once. */
const SETTLE_BACKOFF_MS = [20, 80, 250, 600];

/** SQLSTATEs after which the same statement may simply be run again. */
const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '57P01', // admin_shutdown (pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006',
  '08001',
  '08004', // connection exceptions
]);
/** Prisma's codes for the same (P1001 unreachable, P1017 closed, P2034 write conflict or deadlock). */
const TRANSIENT_PRISMA_CODES = new Set(['P1001', 'P1017', 'P2034']);

/** A failure of the database link or of a lock wait, not of the statement's meaning. */
export function isTransientDatabaseError(error: unknown): boolean {
  const failure = error as { code?: unknown; meta?: { code?: unknown }; message?: unknown; cause?: unknown } | null;
  if (!failure) return false;
  const code = typeof failure.code === 'string' ? failure.code : '';
  if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_PRISMA_CODES.has(code)) return true;
  if (code === 'P2010' && typeof failure.meta?.code === 'string' && TRANSIENT_SQLSTATES.has(failure.meta.code)) return true;
  if (['ECONNRESET', 'ECONNREFUSED', 'EPIPE'].includes(code)) return true;
  const message = typeof failure.message === 'string' ? failure.message : '';
  // pg-pool's wait for a free connection ran out (every one busy): the request ran nothing.
  if (
    /Connection terminated|terminating connection|deadlock detected|server closed the connection|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
      message,
    )
  )
    return true;
  return failure.cause !== undefined && failure.cause !== error && isTransientDatabaseError(failure.cause);
}

/**
 * What a request answers when its database link failed under it (a session terminated, a
 * failover): the retryable 503, not a bug's 500. Nothing of the request committed (or its
 * Idempotency-Key replays what did), so the client sends it again. Null for any other error.
 */
export function unavailableIfDatabaseFailed(error: unknown): DomainError | null {
  return isTransientDatabaseError(error) ? new DomainError('database_unavailable') : null;
}

/**
 * Runs a settlement, again after a transient database failure. Only for work that is safe to run
 * twice: every settlement is conditional on the intent still being open. When every try fails the
 * error is thrown; the intent stays open and the reconciler settles it later.
 */
export async function settleDurably<T>(ctx: GatewayContext, what: Record<string, unknown>, settle: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await settle();
    } catch (error) {
      if (attempt >= SETTLE_TRIES || !isTransientDatabaseError(error)) throw error;
      ctx.log.warn({ err: error, ...what, attempt }, 'settling a provider answer hit a transient database failure; trying again');
      await new Promise((resolve) => setTimeout(resolve, SETTLE_BACKOFF_MS[attempt - 1] ?? 600));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reconciling open calls

/** `late_payment_return`: a payment confirmed after its attempt closed, going back to the payer (payments/latePayments.ts). */
export type ProviderCallKind = 'payment' | 'refund' | 'payout' | 'late_payment_return';

/** A call recorded, maybe sent, whose outcome is not known yet. */
export interface OpenProviderCall {
  kind: ProviderCallKind;
  /** The intent's id (attempt, refund or payout). */
  id: string;
  organizationId: string;
  /** Our reference sent to the provider. */
  reference: string;
  /** Times the provider was asked already. */
  providerChecks: number;
  /** When the call was opened (sent, or recorded). */
  openedAt: Date;
}

/** How a capability plugs into the reconciler: list what is due, ask, settle, or note it still open. */
export interface OpenCallStore<Call extends OpenProviderCall> {
  kind: ProviderCallKind;
  /**
   * Provider statuses that close the call (default succeeded and failed). A collection also closes
   * on `pending`: the customer has not confirmed, which the request itself already answered as
   * "not confirmed" (the customer may pay again).
   */
  finalStatuses?: readonly ProviderAnswer['status'][];
  /** Open calls due for a question: first once older than `openedBefore`, then at their next check time. */
  listDue(now: Date, openedBefore: Date, limit: number): Promise<Call[]>;
  /** Asks the provider (never sends). */
  /** `signal`: the question's deadline; a re-send made while asking (askOrResend) ends with it. */
  ask(call: Call, signal: AbortSignal): Promise<ProviderStatusAnswer>;
  /** Applies a final answer (succeeded / failed); a no-op when someone settled it first. */
  settle(call: Call, answer: ProviderAnswer): Promise<void>;
  /** Still open: counts the question and sets when to ask next. */
  postpone(call: Call, nextCheckAt: Date): Promise<void>;
  /**
   * Claims the call for one question (PostgreSQL decides, across instances): false when another
   * instance claimed it first. The claim lapses at `until`, so a process killed while asking never
   * holds it for ever. Absent: every instance may ask (asking twice is harmless; re-sending is
   * only done under a claim).
   */
  claim?(call: Call, now: Date, until: Date): Promise<boolean>;
  /** Open calls right now, and how many of them are stuck (for /metrics). */
  countOpen(stuckAfterChecks: number): Promise<{ open: number; stuck: number }>;
  /** Open calls for an operator, oldest first (at most `limit`); only stuck ones when `minChecks` > 0. */
  listOpen(minChecks: number, limit: number): Promise<Call[]>;
  /** The open call with this id, or null (settled, or never existed). */
  findOpen(id: string): Promise<Call | null>;
}

/** A call is first asked about once older than this: well past the request's own provider timeout. */
const RECONCILE_AFTER_MS = 60_000;
/** Most calls one reconciler run looks at. */
const RECONCILE_BATCH = 100;
/** Backoff between questions: doubles from the first (RECONCILE_AFTER_MS), capped (a provider outage must not be hammered). */
export const MAX_RECHECK_MS = 60 * 60 * 1000;
/**
 * One instance holds an open call it asks about (or re-sends) for the provider timeout plus this:
 * past its own deadline, so two instances never send it at once, and short, so that the call of an
 * instance killed meanwhile is taken over soon after.
 */
const CLAIM_MARGIN_MS = 5_000;
/** After this many questions without a final answer a call is "stuck": an operator should look. */
export const STUCK_AFTER_CHECKS = 5;

export const recheckDelayMs = (checks: number, firstMs = RECONCILE_AFTER_MS): number => Math.min(firstMs * 2 ** Math.min(checks, 20), MAX_RECHECK_MS);

const FINAL_BY_DEFAULT: readonly ProviderAnswer['status'][] = ['succeeded', 'failed'];

export interface ReconcileTally {
  settled: number;
  stillPending: number;
  errors: number;
}

/** Open and stuck calls per kind, as last counted by this process's reconciler (read by /metrics), per database. */
const openCallCounts = new WeakMap<object, Map<ProviderCallKind, { open: number; stuck: number }>>();

export function openProviderCallCounts(ctx: Pick<GatewayContext, 'db'>): ReadonlyMap<ProviderCallKind, { open: number; stuck: number }> {
  return openCallCounts.get(ctx.db) ?? new Map();
}

/**
 * One reconciler run over one kind of call: every due call is asked what became of it; a final
 * answer is settled (conditionally: another instance may have settled it first), anything else
 * leaves it open and asks again later with backoff. Safe to run in several instances at once.
 */
export async function reconcileOpenCalls<Call extends OpenProviderCall>(
  ctx: GatewayContext,
  store: OpenCallStore<Call>,
  options: { olderThanMs?: number; limit?: number } = {},
): Promise<ReconcileTally> {
  const now = ctx.clock.now();
  const firstAskAfterMs = options.olderThanMs ?? ctx.settings.reconcileAfterMs ?? RECONCILE_AFTER_MS;
  const openedBefore = new Date(now.getTime() - firstAskAfterMs);
  const due = await store.listDue(now, openedBefore, Math.min(options.limit ?? RECONCILE_BATCH, RECONCILE_BATCH));
  const tally: ReconcileTally = { settled: 0, stillPending: 0, errors: 0 };
  const claimMs = (ctx.settings.providerTimeoutMs ?? PROVIDER_TIMEOUT_MS) + CLAIM_MARGIN_MS;
  for (const call of due) {
    try {
      // The claim runs from when it is taken, not from the run's start: a run asks up to
      // RECONCILE_BATCH calls one after another, and a claim dated from the start could lapse
      // before its question (and a re-send in it) ends, letting another instance send it too.
      const claimedAt = ctx.clock.now();
      if (store.claim && !(await store.claim(call, claimedAt, new Date(claimedAt.getTime() + claimMs)))) continue;
      const outcome = await callProviderOnce(
        ctx,
        (signal) => store.ask(call, signal),
        { kind: call.kind, id: call.id },
        'asking the provider about an open call failed; asking again later',
      );
      const status = 'answered' in outcome ? outcome.answered : null;
      const final =
        status && status.status !== 'not_found' && status.status !== 'processing' && (store.finalStatuses ?? FINAL_BY_DEFAULT).includes(status.status)
          ? status.status
          : null;
      if (status && final) {
        await settleDurably(ctx, { kind: call.kind, id: call.id }, () =>
          store.settle(call, { status: final, providerReference: status.providerReference, reason: status.reason }),
        );
        tally.settled += 1;
        continue;
      }
      const checks = call.providerChecks + 1;
      await store.postpone(call, new Date(now.getTime() + recheckDelayMs(checks, firstAskAfterMs)));
      tally.stillPending += 1;
      if (checks === STUCK_AFTER_CHECKS) {
        ctx.log.warn(
          { kind: call.kind, id: call.id, organizationId: call.organizationId, providerChecks: checks, provider: status?.status ?? 'no answer' },
          'a provider call is stuck: the provider has not said what became of it; an operator can settle it (gateway provider-call settle)',
        );
      }
    } catch (error) {
      tally.errors += 1;
      ctx.log.warn({ err: error, kind: call.kind, id: call.id }, 'could not reconcile an open provider call; will try again');
    }
  }
  const counts = openCallCounts.get(ctx.db) ?? new Map();
  openCallCounts.set(ctx.db, counts);
  counts.set(store.kind, await store.countOpen(STUCK_AFTER_CHECKS));
  if (due.length) ctx.log.info({ kind: store.kind, ...tally }, 'open provider calls reconciled');
  return tally;
}

// ---------------------------------------------------------------------------------------------
// Resuming calls the provider de-duplicates

/**
 * The reconciler's question about an open payout or refund (a late payment's return is a refund).
 * A provider whose API de-duplicates the call (ports.ts ResendsSafely: Wave's payout by its
 * idempotency-key, its checkout refund by the session, refunded at most once) and that does not know
 * the call (`not_found`: the first send got a 5xx that
 * created nothing, timed out before arriving, or the gateway died between recording and sending)
 * gets it SENT AGAIN with the same reference: the provider does it once whatever the number of
 * sends, and Wave's payout documentation asks for exactly that (retry with the same key, with
 * exponential backoff, no time limit). The schedule is the reconciler's: first after
 * RECONCILE_AFTER_MS, then doubling, capped at MAX_RECHECK_MS (an hour: a provider down for hours
 * is not hammered, and a call resumes within the hour after it is back); it never gives up (the
 * funds are held for the call), and after STUCK_AFTER_CHECKS an operator is told.
 *
 * Any other provider is only asked: sending a call it does not de-duplicate could pay twice.
 * "Unknown" stays unknown: a re-send that is not answered, or is rate limited, leaves it open.
 */
export async function askOrResend(
  ctx: GatewayContext,
  call: { kind: 'payout' | 'refund' | 'late_payment_return'; id: string; method: PaymentMethod },
  ask: () => Promise<ProviderStatusAnswer>,
  resend: (signal: AbortSignal) => Promise<ProviderAnswer>,
  questionEnds: AbortSignal,
): Promise<ProviderStatusAnswer> {
  const asked = await ask();
  // A late payment's return is a refund at the provider.
  const sentAs = call.kind === 'payout' ? 'payout' : 'refund';
  if (asked.status !== 'not_found' || !resendsSafely(ctx.provider, sentAs, call.method)) return asked;
  ctx.log.info({ kind: call.kind, id: call.id, method: call.method }, 'the provider does not know an open call: sending it again with the same key');
  // Bounded by the question's deadline too: the claim that lets this instance send covers the question, no more.
  const outcome = await callProviderOnce(ctx, resend, { kind: call.kind, id: call.id }, 'sending an open call again failed; it stays open', questionEnds);
  if (!('answered' in outcome)) return { status: 'processing', providerReference: '', reason: outcome.unknown };
  const answer = outcome.answered;
  // Not taken (unreachable, rate limited): nothing was done, it is sent again later; never "failed".
  if (answer.status === 'failed' && answer.unavailable) return { status: 'processing', providerReference: '', reason: answer.reason };
  if (answer.status === 'pending') return { status: 'processing', providerReference: answer.providerReference, reason: answer.reason };
  return { status: answer.status, providerReference: answer.providerReference, reason: answer.reason };
}
