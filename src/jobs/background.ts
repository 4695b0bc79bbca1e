/**
 * The process's periodic jobs: purging expired idempotency keys and the reconcilers that settle
 * what a crash or a provider timeout left half-done. Each job runs at most once at a time (a slow
 * provider must not stack runs up), and every job is safe to run from several instances at once
 * because the operations it calls are conditional in PostgreSQL.
 *
 * A new job is one line in JOBS.
 */
import type { GatewayContext } from '../domain/context.js';
import { refreshTransactionRollup } from '../domain/analytics/rollup.js';
import { purgeExpiredIdempotencyKeys } from '../domain/idempotency.js';
import { settleStalePaymentAttempts } from '../domain/payments/attempts.js';
import { settleOpenLateReturns } from '../domain/payments/latePayments.js';
import { settlePendingPayouts } from '../domain/payouts/payouts.js';
import { logProvidersDown, purgeOldProviderHealthReports, SHARE_HEALTH_EVERY_MS, shareProviderHealth } from '../domain/providerCalls/providerHealth.js';
import { settlePendingRefunds } from '../domain/refunds/refunds.js';
import { runPayoutBatches } from '../domain/payoutBatches/runPayoutBatches.js';
import { randomUUID } from 'node:crypto';
import { purgeOldDeliveries, rescheduleOverdueDeliveries, webhookSweepEveryMs } from '../domain/webhooks/schedule.js';
import { startWebhookDispatcher } from '../webhooks/dispatcher.js';

interface Job {
  name: string;
  /** A number, or read from the settings (the reconcilers' pace is configurable). */
  everyMs: number | ((ctx: GatewayContext) => number);
  run(ctx: GatewayContext): Promise<unknown>;
}

const reconcilePace = (ctx: GatewayContext): number => ctx.settings.reconcileIntervalMs ?? 30_000;

/** This process, as a payout batch runner (a batch is held by one runner at a time: payoutBatches/store.ts). */
const BATCH_RUNNER_ID = randomUUID();

const JOBS: Job[] = [
  // Running payout batches: one batch per run, item after item; a quarter second after one is
  // started (or given back while a single payout holds the slot) it goes on.
  { name: 'run payout batches', everyMs: 250, run: (ctx) => runPayoutBatches(ctx, BATCH_RUNNER_ID) },
  // Keys live 24 h; purging hourly keeps the table to about a day of keys.
  { name: 'purge expired idempotency keys', everyMs: 60 * 60 * 1000, run: purgeExpiredIdempotencyKeys },
  // The provider flow's last step (providerFlow.ts): calls left open by a timeout, an unknown answer
  // or a crash between the phases are asked about with backoff; one the provider de-duplicates and
  // does not know is sent again with the same reference (providerFlow.ts askOrResend).
  { name: 'reconcile pending refunds', everyMs: reconcilePace, run: (ctx) => settlePendingRefunds(ctx) },
  { name: 'reconcile stale payment attempts', everyMs: reconcilePace, run: (ctx) => settleStalePaymentAttempts(ctx) },
  { name: 'reconcile pending payouts', everyMs: reconcilePace, run: (ctx) => settlePendingPayouts(ctx) },
  { name: 'reconcile late payment returns', everyMs: reconcilePace, run: (ctx) => settleOpenLateReturns(ctx) },
  // What this instance learnt of each real provider's health, shared with the others through
  // PostgreSQL (and theirs read): an outage one instance met keeps every checkout's customers out.
  { name: 'share provider health', everyMs: SHARE_HEALTH_EVERY_MS, run: shareProviderHealth },
  { name: 'purge old provider health reports', everyMs: 60 * 60 * 1000, run: purgeOldProviderHealthReports },
  // A provider refusing our key or unreachable is an operator's problem: said once a minute while it lasts.
  { name: 'log providers down', everyMs: 15 * 1000, run: logProvidersDown },
  // Webhook retries the scheduler lost (Redis flushed) or an instance died sending: back from the outbox.
  { name: 'reschedule overdue webhook deliveries', everyMs: webhookSweepEveryMs, run: (ctx) => rescheduleOverdueDeliveries(ctx) },
  // The delivery log is kept 30 days.
  { name: 'purge old webhook deliveries', everyMs: 60 * 60 * 1000, run: (ctx) => purgeOldDeliveries(ctx) },
  // The analytics rollup's change log (a row per transaction change) folded in every 10 s: the log
  // stays small between analysts' visits, and their answers need not fold a day of changes first.
  { name: 'refresh the analytics rollup', everyMs: 10 * 1000, run: (ctx) => refreshTransactionRollup(ctx) },
];

/**
 * Starts every job, and the webhook dispatcher when webhooks are configured; the returned function
 * stops them (on shutdown).
 */
export function startBackgroundJobs(ctx: GatewayContext): () => Promise<void> {
  const dispatcher = ctx.settings.webhooks ? startWebhookDispatcher(ctx) : null;
  const timers = JOBS.map((job) => {
    let running = false;
    const timer = setInterval(
      () => {
        if (running) return;
        running = true;
        job
          .run(ctx)
          .catch((err: unknown) => ctx.log.warn({ err, job: job.name }, 'a background job failed; it runs again at its next interval'))
          .finally(() => {
            running = false;
          });
      },
      typeof job.everyMs === 'number' ? job.everyMs : job.everyMs(ctx),
    );
    timer.unref();
    return timer;
  });
  return async () => {
    timers.forEach(clearInterval);
    // Attempts in flight finish (each within WEBHOOK_TIMEOUT_MS) and are recorded before the
    // database closes; queued ones are left to their claims' expiry.
    await dispatcher?.stop();
  };
}
