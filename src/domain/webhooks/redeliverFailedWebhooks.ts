/**
 * Sends again every failed event since a time (after a receiver outage, say): for each event and
 * active endpoint whose latest delivery was dropped (every attempt failed) and has no delivery
 * pending or delivered, one redelivery, as redeliverWebhook makes it (same body and event id,
 * signed with the current secret); and every delivery still being retried after a failed attempt
 * (a receiver that is down) is tried again now rather than at its next backoff time. Answers how
 * many were queued or retried: before, a receiver that was down answered "0 sent" because its
 * deliveries were still pending (retrying), not yet dropped.
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { webhookScope } from './access.js';
import { findWebhook } from './endpoints.js';
import { insertFailedRedeliveries, retryWaitingDeliveriesNow } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

/**
 * Redeliveries queued by one call at most. It bounds the statement (its time and the rows it
 * locks), and the burst sent to a receiver that has just come back: 1,000 events at the
 * dispatcher's 16 in flight per endpoint is about a minute of sending. The oldest go first and
 * a queued event no longer counts as failed, so calling again takes the next 1,000.
 */
export const MAX_FAILED_REDELIVERIES = 1_000;

export interface RedeliverFailedWebhooksInput {
  /** Failed deliveries created at or after this time. */
  since: Date;
  /** One endpoint only; omitted: every endpoint of the organisation. */
  webhookId?: string | null;
  /** Operators: one organisation (omitted: every organisation's). */
  organizationId?: string | null;
}

export async function redeliverFailedWebhooks(ctx: GatewayContext, caller: Caller, input: RedeliverFailedWebhooksInput): Promise<number> {
  const organizationId = webhookScope(caller, 'redeliverFailedWebhooks', input.organizationId);
  if (!(input.since instanceof Date) || Number.isNaN(input.since.getTime())) throw new DomainError('invalid_input', 'since must be a date-time');
  if (input.webhookId != null && !isUuid(input.webhookId)) throw new DomainError('webhook_not_found');
  const webhookId = input.webhookId == null ? null : (await findWebhook(ctx.db, organizationId, input.webhookId)).id;
  const now = ctx.clock.now();
  const filter = { organizationId, webhookId, since: input.since };
  const { total, retried } = await ctx.db.$transaction(async (tx) => {
    const queued = await insertFailedRedeliveries(tx, filter, now, MAX_FAILED_REDELIVERIES);
    const retried = await retryWaitingDeliveriesNow(tx, filter, now, MAX_FAILED_REDELIVERIES);
    // One entry per organisation whose events were queued or retried (an operator's call may span several).
    const counts = new Map<string, { count: number; retried: number }>();
    for (const { organizationId: owner, count } of queued) counts.set(owner, { count, retried: 0 });
    for (const { organizationId: owner } of retried) {
      const entry = counts.get(owner) ?? { count: 0, retried: 0 };
      entry.retried += 1;
      counts.set(owner, entry);
    }
    for (const [owner, { count, retried: retriedCount }] of counts) {
      const details = { count, retried: retriedCount, since: input.since.toISOString(), webhookId };
      await recordAuditEvent(tx, { organizationId: owner, actor: caller, action: 'webhook.redelivered', target: webhookId, details });
    }
    return { total: queued.reduce((sum, { count }) => sum + count, 0) + retried.length, retried };
  });
  // The retries are timed by the scheduler: tell it they are due now (after the commit, so the
  // attempt's claim sees the new time). If the scheduler cannot be reached, the outbox sweep
  // (schedule.ts) finds them overdue and schedules them: a late retry, never a lost one.
  await Promise.allSettled(retried.map(({ id }) => ctx.coordination.scheduler.schedule({ id, dueAt: now.getTime() })));
  return total;
}
