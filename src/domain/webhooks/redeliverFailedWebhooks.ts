/**
 * Sends again every failed event since a time (after a receiver outage, say): for each event and
 * active endpoint whose latest delivery was dropped (every attempt failed) and has no delivery
 * pending or delivered, one redelivery, as redeliverWebhook makes it (same body and event id,
 * signed with the current secret). Answers how many were queued.
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { webhookScope } from './access.js';
import { findWebhook } from './endpoints.js';
import { insertFailedRedeliveries } from './store.js';
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
  return ctx.db.$transaction(async (tx) => {
    const queued = await insertFailedRedeliveries(tx, { organizationId, webhookId, since: input.since }, now, MAX_FAILED_REDELIVERIES);
    // One entry per organisation whose events were queued (an operator's call may span several).
    for (const { organizationId: owner, count } of queued) {
      const details = { count, since: input.since.toISOString(), webhookId };
      await recordAuditEvent(tx, { organizationId: owner, actor: caller, action: 'webhook.redelivered', target: webhookId, details });
    }
    return queued.reduce((total, { count }) => total + count, 0);
  });
}
