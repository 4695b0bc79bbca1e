/** GET /api/v2/payment-links: the caller's links, newest first, by status, paginated. */
import type { ReadAccess } from '../access/auth.js';
import { mayRun } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { MAX_PAGE_SIZE, resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { MAX_SEARCH_LENGTH, filterText } from '../text.js';
import { viewOf, type PaymentLinkStatus, type PaymentLinkView } from './paymentLinks.js';
import { listPaymentLinksPage } from './store.js';

export const PAYMENT_LINK_STATUSES = ['active', 'expired', 'used', 'deactivated'] as const satisfies readonly PaymentLinkStatus[];

export interface ListPaymentLinksInput extends PageRequest {
  status?: PaymentLinkStatus;
}

export function parsePaymentLinkStatus(value: string): PaymentLinkStatus {
  if (!(PAYMENT_LINK_STATUSES as readonly string[]).includes(value))
    throw new DomainError('invalid_query', `status must be one of ${PAYMENT_LINK_STATUSES.join(', ')}`);
  return value as PaymentLinkStatus;
}

export async function listPaymentLinks(
  ctx: GatewayContext,
  access: ReadAccess<'listPaymentLinks'>,
  input: ListPaymentLinksInput,
): Promise<Page<PaymentLinkView>> {
  const { page, limit, skip } = resolvePage(input);
  const { links, total } = await listPaymentLinksPage(
    ctx.db,
    { organizationId: access.organizationId, status: input.status },
    { limit, skip },
    ctx.clock.now(),
  );
  return toPage(
    links.map((link) => viewOf(ctx.settings, link)),
    total,
    page,
    limit,
  );
}

/**
 * The same list by offset (GraphQL's paymentLinks connection): `limit` rows from `offset`, at most
 * one more than a page (the connection asks one past its size to know whether more follow).
 */
export async function listPaymentLinksWindow(
  ctx: GatewayContext,
  access: ReadAccess<'listPaymentLinks'>,
  input: { status?: PaymentLinkStatus; search?: string; offset: number; limit: number },
): Promise<{ items: PaymentLinkView[]; totalCount: number }> {
  if (!Number.isSafeInteger(input.offset) || input.offset < 0) throw new DomainError('invalid_query', 'the cursor is not one of this list');
  const limit = Math.min(Math.max(input.limit, 1), MAX_PAGE_SIZE + 1);
  // The dashboard's search (issue 30): the same text, the same limits as the transactions' search.
  const search = filterText('search', input.search?.trim(), MAX_SEARCH_LENGTH);
  const { links, total } = await listPaymentLinksPage(
    ctx.db,
    // Through the links' transactions (a customer's phone, an order id) only for a caller who may
    // read transactions: a `write` key reads links, not who paid them.
    { organizationId: access.organizationId, status: input.status, search, searchTransactions: mayRun(access.caller, 'listTransactions') },
    { limit, skip: input.offset },
    ctx.clock.now(),
  );
  return { items: links.map((link) => viewOf(ctx.settings, link)), totalCount: total };
}
