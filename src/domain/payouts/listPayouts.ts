/** GET /payouts: the caller's payouts, newest first, filtered and paginated. */
import type { Prisma } from '../../generated/prisma/client.js';
import type { PaymentMethod, PayoutStatus } from '../../generated/prisma/enums.js';
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { rangeConditions } from '../listFilters.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import type { PayoutRecord } from './payouts.js';
import { compactPhone } from '../phones.js';
import { MAX_SEARCH_LENGTH, escapeLike, filterText } from '../text.js';
import { isUuid } from '../ids.js';

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
}

/** Newest first. Operators reading every organisation (organizationId null) see them all. */
export async function listPayouts(ctx: GatewayContext, access: ReadAccess<'listPayouts'>, input: ListPayoutsInput): Promise<Page<PayoutRecord>> {
  const { page, limit, skip } = resolvePage(input);
  const where = payoutFilter(access.organizationId, input);
  const [items, totalCount] = await Promise.all([
    ctx.db.payout.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take: limit }),
    ctx.db.payout.count({ where }),
  ]);
  return toPage(items, totalCount, page, limit);
}

function payoutFilter(organizationId: string | null, input: ListPayoutsInput): Prisma.PayoutWhereInput {
  const search = filterText('search', input.search?.trim(), MAX_SEARCH_LENGTH);
  const recipientPhone = filterText('recipient_phone', input.recipientPhone === undefined ? undefined : compactPhone(input.recipientPhone), MAX_SEARCH_LENGTH);
  const ranges = rangeConditions(input);
  if (input.startDate && input.endDate && input.startDate > input.endDate) throw new DomainError('invalid_query', 'start_date is after end_date');
  return {
    ...(organizationId !== null && { organizationId }),
    ...(!input.includeDeleted && { isDeleted: false }),
    ...(input.status && { status: input.status }),
    ...(input.paymentMethod && { selectedPaymentMethod: input.paymentMethod }),
    ...(recipientPhone && { recipientPhone }),
    ...ranges,
    ...(search && { OR: searchConditions(search) }),
  };
}

/** Free text: order id, recipient name or phone, reason. */
function searchConditions(search: string): Prisma.PayoutWhereInput[] {
  const contains = { contains: escapeLike(search), mode: 'insensitive' as const };
  return [
    ...(isUuid(search) ? [{ id: search }] : []),
    { recipientFirstName: contains },
    { recipientLastName: contains },
    { recipientPhone: { contains: escapeLike(compactPhone(search)) } },
    { reason: contains },
  ];
}
