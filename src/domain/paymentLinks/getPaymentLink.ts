/** GET /api/v2/payment-links/{id}: one link the caller may see (another organisation's answers 404). */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { findVisiblePaymentLink, viewOf, type PaymentLinkView } from './paymentLinks.js';

export async function getPaymentLink(ctx: GatewayContext, access: ReadAccess<'getPaymentLink'>, id: string): Promise<PaymentLinkView> {
  return viewOf(ctx.settings, await findVisiblePaymentLink(ctx.db, access.organizationId, id, ctx.clock.now()));
}
