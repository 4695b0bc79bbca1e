/** GET /transactions: the caller's transactions, newest first, filtered and paginated. */
import type { Prisma } from '../../generated/prisma/client.js';
import type { PaymentMethod, TransactionStatus } from '../../generated/prisma/enums.js';
import type { ReadAccess } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { rangeConditions } from '../listFilters.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { compactPhone } from '../phones.js';
import { MAX_SEARCH_LENGTH, escapeLike, filterText } from '../text.js';
import { isUuid, withOrderedProducts, type TransactionRecord } from '../transactions.js';

export interface ListTransactionsInput extends PageRequest {
  status?: TransactionStatus;
  /** The method the customer paid with. */
  paymentMethod?: PaymentMethod;
  customerPhone?: string;
  minAmount?: number;
  maxAmount?: number;
  startDate?: Date;
  endDate?: Date;
  isEscrow?: boolean;
  isMerchant?: boolean;
  includeDeleted?: boolean;
  search?: string;
}

/** Newest first. Operators reading every organisation (organizationId null) see them all. */
export async function listTransactions(ctx: GatewayContext, access: ReadAccess<'listTransactions'>, input: ListTransactionsInput): Promise<Page<TransactionRecord>> {
  const { page, limit, skip } = resolvePage(input);
  const where = transactionFilter(access.organizationId, input);
  const [items, totalCount] = await Promise.all([
    ctx.db.transaction.findMany({ where, include: withOrderedProducts, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take: limit }),
    ctx.db.transaction.count({ where }),
  ]);
  return toPage(items, totalCount, page, limit);
}

function transactionFilter(organizationId: string | null, input: ListTransactionsInput): Prisma.TransactionWhereInput {
  const search = filterText('search', input.search?.trim(), MAX_SEARCH_LENGTH);
  const customerPhone = filterText('customer_phone', input.customerPhone === undefined ? undefined : compactPhone(input.customerPhone), MAX_SEARCH_LENGTH);
  const ranges = rangeConditions(input);
  return {
    ...(organizationId !== null && { organizationId }),
    // Cancelled transactions are soft-deleted: hidden unless asked for, either with
    // include_deleted=true or by filtering on status=cancelled explicitly.
    ...(input.includeDeleted || input.status === 'cancelled' ? {} : { isDeleted: false }),
    ...(input.status && { status: input.status }),
    ...(input.paymentMethod && { selectedPaymentMethod: input.paymentMethod }),
    ...(customerPhone && { customerPhone }),
    ...(input.isEscrow !== undefined && { isEscrow: input.isEscrow }),
    ...(input.isMerchant !== undefined && { isMerchant: input.isMerchant }),
    ...ranges,
    ...(search && { OR: searchConditions(search) }),
  };
}

/** Free text: order id, customer name or phone, product names. */
function searchConditions(search: string): Prisma.TransactionWhereInput[] {
  const contains = { contains: escapeLike(search), mode: 'insensitive' as const };
  return [
    ...(isUuid(search) ? [{ id: search }] : []),
    { customerFirstName: contains },
    { customerLastName: contains },
    { customerPhone: { contains: escapeLike(search) } },
    { products: { some: { name: contains } } },
  ];
}
