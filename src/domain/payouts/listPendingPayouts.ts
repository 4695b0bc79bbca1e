/**
 * Operator: the review queue, payouts above the review threshold waiting for approval or
 * rejection, across organisations (or one), oldest first (the longest waiting comes first).
 */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import type { PayoutRecord } from './store.js';
import { listAwaitingReviewPage } from './store.js';
import { isUuid } from '../ids.js';

export interface ListPendingPayoutsInput extends PageRequest {
  /** Only this organisation's queue. */
  organizationId?: string | null;
}

export async function listPendingPayouts(ctx: GatewayContext, caller: Caller, input: ListPendingPayoutsInput = {}): Promise<Page<PayoutRecord>> {
  authorize(caller, 'listPendingPayouts');
  const { page, limit, skip } = resolvePage(input);
  const organizationId = input.organizationId || undefined;
  // A malformed organisation id matches nothing, like an unknown one.
  if (organizationId !== undefined && !isUuid(organizationId)) return toPage([], 0, page, limit);
  const { items, totalCount } = await listAwaitingReviewPage(ctx.db, organizationId, { skip, take: limit });
  return toPage(items, totalCount, page, limit);
}
