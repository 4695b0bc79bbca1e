/** GET /payouts: the caller's payouts, newest first, filtered and paginated. */
import type { PaymentMethod, PayoutStatus } from '../../generated/prisma/enums.js';
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { rangeConditions } from '../listFilters.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import type { PayoutRecord } from './store.js';
import { keysetPageOf, type KeysetSlice } from '../cursors.js';
import { listPayoutSlicesOfOrganizations, listPayoutsPage, listPayoutsSlice, type PayoutListFilter } from './store.js';
import { compactPhone } from '../phones.js';
import { MAX_SEARCH_LENGTH, filterText } from '../text.js';

export interface ListPayoutsInput extends PageRequest {
  status?: PayoutStatus;
  /** The method the payout was sent with. */
  paymentMethod?: PaymentMethod;
  /** Exact match: how a caller finds a payout after a timeout or a 5xx (spec). */
  recipientPhone?: string;
  minAmount?: number;
  maxAmount?: number;
  startDate?: Date;
  endDate?: Date;
  /** Archived payouts (is_deleted) are hidden unless asked for. */
  includeDeleted?: boolean;
  search?: string;
  /** A keyset slice instead of a page (GraphQL's Relay connections): `page` and `limit` are then ignored. */
  slice?: KeysetSlice;
}

/** A page, or a keyset slice; `hasMore`: rows follow this one in the direction it was read. */
export type PayoutList = Page<PayoutRecord> & { hasMore: boolean };

/** Newest first. Operators reading every organisation (organizationId null) see them all. */
export async function listPayouts(ctx: GatewayContext, access: ReadAccess<'listPayouts'>, input: ListPayoutsInput): Promise<PayoutList> {
  if (input.slice) {
    const { items, totalCount } = await listPayoutsSlice(laggingReads(ctx), payoutFilter(access.organizationId, input), input.slice);
    return sliceListOf(items, totalCount, input.slice);
  }
  const { page, limit, skip } = resolvePage(input);
  const { items, totalCount } = await listPayoutsPage(laggingReads(ctx), payoutFilter(access.organizationId, input), { skip, take: limit });
  return { ...toPage(items, totalCount, page, limit), hasMore: page * limit < totalCount };
}

/**
 * The same keyset slice of each of several organisations' payouts, read together (GraphQL's
 * Organization.payouts under a list of organisations): one statement for all of them, not two per
 * organisation. Each access names its organisation (authorizeRead with an id); the answer holds one
 * list per access, in their order, each as listPayouts would answer it alone.
 */
export async function listPayoutsOfOrganizations(
  ctx: GatewayContext,
  accesses: readonly ReadAccess<'listPayouts'>[],
  input: ListPayoutsInput & { slice: KeysetSlice },
): Promise<PayoutList[]> {
  const organizationIds = accesses.map(({ organizationId }) => {
    if (organizationId === null) throw new Error('listPayoutsOfOrganizations: each access names one organisation');
    return organizationId;
  });
  const slices = await listPayoutSlicesOfOrganizations(laggingReads(ctx), organizationIds, payoutFilter(null, input), input.slice);
  return organizationIds.map((id) => {
    const { items, totalCount } = slices.get(id)!;
    return sliceListOf(items, totalCount, input.slice);
  });
}

/** A slice read one row past its limit (keysetPageOf), as the list's answer. */
function sliceListOf(rows: PayoutRecord[], totalCount: number, slice: KeysetSlice): PayoutList {
  const { items, hasMore } = keysetPageOf(rows, slice);
  return { ...toPage(items, totalCount, 1, slice.limit), hasMore };
}

/** The filters, validated: the first bad one answers 400. */
export function payoutFilter(organizationId: string | null, input: ListPayoutsInput): PayoutListFilter {
  const search = filterText('search', input.search?.trim(), MAX_SEARCH_LENGTH);
  const recipientPhone = filterText('recipient_phone', input.recipientPhone === undefined ? undefined : compactPhone(input.recipientPhone), MAX_SEARCH_LENGTH);
  const ranges = rangeConditions(input);
  if (input.startDate && input.endDate && input.startDate > input.endDate) throw new DomainError('invalid_query', 'start_date is after end_date');
  return { organizationId, status: input.status, paymentMethod: input.paymentMethod, recipientPhone, ranges, includeDeleted: input.includeDeleted, search };
}
