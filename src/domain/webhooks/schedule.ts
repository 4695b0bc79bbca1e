/**
 * Rebuilding the retry schedule from the outbox. Retries are kept in the coordination scheduler
 * (Redis, or in-process when embedded); if Redis loses them (flushed, restarted without
 * persistence) or an instance died mid-attempt, the outbox still says which deliveries are pending
 * and overdue, and this sweep puts them back. Scheduling an id twice is harmless: the scheduler
 * keeps one entry per id and the claim in PostgreSQL lets one instance send each attempt.
 */
import type { GatewayContext } from '../context.js';
import { DEFAULT_WEBHOOK_SWEEP_MS } from './settings.js';
import { deleteFinishedDeliveries, overdueRetries } from './store.js';

/**
 * How often the sweep runs, and how overdue a retry must be before it steps in (the scheduler
 * normally runs them on time): WEBHOOK_SWEEP_MS.
 */
export const webhookSweepEveryMs = (ctx: Pick<GatewayContext, 'settings'>): number => ctx.settings.webhooks?.sweepEveryMs ?? DEFAULT_WEBHOOK_SWEEP_MS;
/** Most deliveries one sweep reschedules (the next sweep takes the rest). */
const SWEEP_BATCH = 1_000;
const SCHEDULE_CHUNK = 50;

export async function rescheduleOverdueDeliveries(ctx: GatewayContext, options: { graceMs?: number } = {}): Promise<number> {
  if (!ctx.settings.webhooks) return 0;
  const now = ctx.clock.now();
  const ids = (await overdueRetries(ctx.db, now, options.graceMs ?? webhookSweepEveryMs(ctx), SWEEP_BATCH)).map((due) => due.id);
  for (let start = 0; start < ids.length; start += SCHEDULE_CHUNK) {
    await Promise.all(ids.slice(start, start + SCHEDULE_CHUNK).map((id) => ctx.coordination.scheduler.schedule({ id, dueAt: now.getTime() })));
  }
  if (ids.length) ctx.log.info({ count: ids.length }, 'overdue webhook deliveries scheduled again from the outbox');
  return ids.length;
}

/** Finished deliveries (delivered or dropped) and their attempts are kept this long in the log. */
const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const PURGE_BATCH = 5_000;
/** Batches per run: a bounded run; a backlog of old rows goes over several runs. */
const PURGE_BATCHES_PER_RUN = 20;

/** Deletes finished deliveries older than the retention (their attempts go with them). */
export async function purgeOldDeliveries(ctx: GatewayContext, retentionMs = DELIVERY_RETENTION_MS): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - retentionMs);
  let purged = 0;
  for (let batch = 0; batch < PURGE_BATCHES_PER_RUN; batch++) {
    const count = await deleteFinishedDeliveries(ctx.db, cutoff, PURGE_BATCH);
    purged += count;
    if (count < PURGE_BATCH) break;
  }
  return purged;
}
