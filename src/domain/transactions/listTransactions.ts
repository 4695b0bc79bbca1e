/** GET /transactions: the caller's transactions, newest first, filtered and paginated. */
import type { PaymentMethod, TransactionStatus } from '../../generated/prisma/enums.js';
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { rangeConditions } from '../listFilters.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { compactPhone } from '../phones.js';
import { MAX_SEARCH_LENGTH, filterText } from '../text.js';
import { keysetPageOf, type KeysetSlice } from '../cursors.js';
import { listTransactionSlicesOfOrganizations, listTransactionsPage, listTransactionsSlice, type TransactionFilter } from './store.js';
import type { TransactionRecord } from './store.js';

export interface ListTransactionsInput extends PageRequest {
  status?: TransactionStatus;
  /** Any of these statuses (REST v1's `done` = cancelled or refunded); an empty list matches nothing. */
  statuses?: TransactionStatus[];
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
  /**
   * A keyset slice instead of a page (GraphQL's Relay connections): `page` and `limit` are then
   * ignored, the answer is the rows past the cursor, and `hasMore` says whether more follow.
   */
  slice?: KeysetSlice;
}

/** A page, or a keyset slice; `hasMore`: rows follow this one in the direction it was read. */
export type TransactionList = Page<TransactionRecord> & { hasMore: boolean };

/** Newest first. Operators reading every organisation (organizationId null) see them all. */
export async function listTransactions(ctx: GatewayContext, access: ReadAccess<'listTransactions'>, input: ListTransactionsInput): Promise<TransactionList> {
  if (input.slice) {
    const { transactions, total } = await listTransactionsSlice(laggingReads(ctx), transactionFilter(access.organizationId, input), input.slice);
    return sliceListOf(transactions, total, input.slice);
  }
  const { page, limit, skip } = resolvePage(input);
  const { transactions, total } = await listTransactionsPage(laggingReads(ctx), transactionFilter(access.organizationId, input), { limit, skip });
  return { ...toPage(transactions, total, page, limit), hasMore: page * limit < total };
}

/**
 * The same keyset slice of each of several organisations' transactions, read together (GraphQL's
 * Organization.transactions under a list of organisations): one statement for all of them, not
 * two per organisation. Each access names its organisation (authorizeRead with an id); the answer
 * holds one list per access, in their order, each as listTransactions would answer it alone.
 */
export async function listTransactionsOfOrganizations(
  ctx: GatewayContext,
  accesses: readonly ReadAccess<'listTransactions'>[],
  input: ListTransactionsInput & { slice: KeysetSlice },
): Promise<TransactionList[]> {
  const organizationIds = accesses.map(({ organizationId }) => {
    if (organizationId === null) throw new Error('listTransactionsOfOrganizations: each access names one organisation');
    return organizationId;
  });
  const slices = await listTransactionSlicesOfOrganizations(laggingReads(ctx), organizationIds, transactionFilter(null, input), input.slice);
  return organizationIds.map((id) => {
    const { transactions, total } = slices.get(id)!;
    return sliceListOf(transactions, total, input.slice);
  });
}

/** A slice read one row past its limit (keysetPageOf), as the list's answer. */
function sliceListOf(rows: TransactionRecord[], total: number, slice: KeysetSlice): TransactionList {
  const { items, hasMore } = keysetPageOf(rows, slice);
  return { ...toPage(items, total, 1, slice.limit), hasMore };
}

/** The input as a filter, or the first of its values a list refuses. */
export function transactionFilter(organizationId: string | null, input: ListTransactionsInput): TransactionFilter {
  const search = filterText('search', input.search?.trim(), MAX_SEARCH_LENGTH);
  const customerPhone = filterText('customer_phone', input.customerPhone === undefined ? undefined : compactPhone(input.customerPhone), MAX_SEARCH_LENGTH);
  const { amount, createdAt } = rangeConditions(input);
  return {
    organizationId,
    // Cancelled transactions are soft-deleted: hidden unless asked for, either with
    // include_deleted=true or by filtering on status=cancelled explicitly.
    includeDeleted: Boolean(input.includeDeleted || input.status === 'cancelled' || input.statuses?.includes('cancelled')),
    status: input.status,
    statuses: input.statuses,
    paymentMethod: input.paymentMethod,
    customerPhone,
    isEscrow: input.isEscrow,
    isMerchant: input.isMerchant,
    amount,
    createdAt,
    search,
  };
}
