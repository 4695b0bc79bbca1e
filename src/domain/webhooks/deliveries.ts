/**
 * What becomes of a delivery after an attempt: delivered, due again, or dropped. The statements
 * that claim attempts and record them, conditionally so that several instances never send one
 * attempt twice, are in store.ts.
 */
import type { Db, WebhookSettings } from '../context.js';
import { recordAttemptRows, type AttemptRecord, type ClaimedDelivery } from './store.js';

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The start of the receiver's answer (already truncated). */
  response: string | null;
}

/** Where an attempt leaves its delivery. */
type NextState = { status: 'delivered' } | { status: 'retry'; dueAt: Date } | { status: 'dropped' };
export type AttemptResult = NextState | { status: 'superseded' };

/** 2xx is success; anything else (3xx included: redirects are not followed) is a failure. */
const isSuccess = (outcome: AttemptOutcome): boolean => outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;

/** An attempt's outcome to record, with the claimed attempt number it belongs to. */
export interface FinishedAttempt {
  delivery: Pick<ClaimedDelivery, 'id' | 'attempt'>;
  outcome: AttemptOutcome;
  startedAt: Date;
  /** The X-Signature header sent (the delivery log shows it); absent when nothing was sent. */
  signature?: string | null;
}

type DeliveryRules = Pick<WebhookSettings, 'retryDelayMs' | 'maxRetries'>;

/** What becomes of a delivery after an attempt: delivered on 2xx; else due again while retries remain (1 + maxRetries), else dropped. */
function nextStateOf(attempt: number, outcome: AttemptOutcome, rules: DeliveryRules, now: Date): NextState {
  if (isSuccess(outcome)) return { status: 'delivered' };
  if (attempt <= rules.maxRetries) return { status: 'retry', dueAt: new Date(now.getTime() + rules.retryDelayMs) };
  return { status: 'dropped' };
}

/**
 * Logs attempts and moves their deliveries on, many in ONE statement (the dispatcher batches
 * what finished together). A delivery no longer at its claimed attempt comes back `superseded`.
 */
export async function recordAttempts(db: Pick<Db, '$queryRaw'>, finished: FinishedAttempt[], rules: DeliveryRules, now: Date): Promise<AttemptResult[]> {
  if (finished.length === 0) return [];
  const results = finished.map((item) => nextStateOf(item.delivery.attempt, item.outcome, rules, now));
  const updated = await recordAttemptRows(
    db,
    finished.map((item, index) => attemptRecordOf(item, results[index]!, now)),
    now,
  );
  return results.map((result, index) => (updated.has(finished[index]!.delivery.id) ? result : { status: 'superseded' }));
}

function attemptRecordOf(item: FinishedAttempt, result: NextState, now: Date): AttemptRecord {
  return {
    deliveryId: item.delivery.id,
    attempt: item.delivery.attempt,
    ...item.outcome,
    signature: item.signature ?? null,
    startedAt: item.startedAt,
    status: result.status === 'retry' ? 'pending' : result.status,
    nextAttemptAt: result.status === 'retry' ? result.dueAt : null,
    deliveredAt: result.status === 'delivered' ? now : null,
  };
}
