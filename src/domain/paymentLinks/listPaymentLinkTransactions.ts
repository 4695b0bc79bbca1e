/** A link's payments (GraphQL PaymentLink.transactions, the dashboard's link page): its transactions, newest first. */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import type { TransactionRecord } from '../transactions/store.js';
import { findVisiblePaymentLink } from './paymentLinks.js';
import { listLinkTransactions } from './store.js';

export async function listPaymentLinkTransactions(
  ctx: GatewayContext,
  access: ReadAccess<'listTransactions'>,
  linkId: string,
  input: PageRequest,
): Promise<Page<TransactionRecord>> {
  const link = await findVisiblePaymentLink(ctx.db, access.organizationId, linkId, ctx.clock.now(), { stats: false });
  const { page, limit, skip } = resolvePage(input);
  const { transactions, total } = await listLinkTransactions(ctx.db, link.id, { limit, skip });
  return toPage(transactions, total, page, limit);
}
