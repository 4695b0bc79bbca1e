/** GET /api/v2/payment-links: the caller's links, newest first, by status, paginated. */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { viewOf, type PaymentLinkStatus, type PaymentLinkView } from './paymentLinks.js';
import { listPaymentLinksPage } from './store.js';

export const PAYMENT_LINK_STATUSES = ['active', 'expired', 'used', 'deactivated'] as const satisfies readonly PaymentLinkStatus[];

export interface ListPaymentLinksInput extends PageRequest {
  status?: PaymentLinkStatus;
}

export function parsePaymentLinkStatus(value: string): PaymentLinkStatus {
  if (!(PAYMENT_LINK_STATUSES as readonly string[]).includes(value)) throw new DomainError('invalid_query', `status must be one of ${PAYMENT_LINK_STATUSES.join(', ')}`);
  return value as PaymentLinkStatus;
}

export async function listPaymentLinks(ctx: GatewayContext, access: ReadAccess<'listPaymentLinks'>, input: ListPaymentLinksInput): Promise<Page<PaymentLinkView>> {
  const { page, limit, skip } = resolvePage(input);
  const { links, total } = await listPaymentLinksPage(ctx.db, { organizationId: access.organizationId, status: input.status }, { limit, skip }, ctx.clock.now());
  return toPage(
    links.map((link) => viewOf(ctx.settings, link)),
    total,
    page,
    limit,
  );
}
