/**
 * The link page's view (GET /pay/{id} on the checkout origin): what the customer is asked to pay,
 * by whom, and whether the link still takes a payment. No credential: the customer holds only the
 * unguessable link id, and sees only what a payer needs.
 */
import { authorize, type Principal } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { viewOf, type PaymentLinkView } from './paymentLinks.js';
import { readLinkForPage } from './store.js';

export interface PaymentLinkPage {
  link: PaymentLinkView;
  organizationName: string;
}

export async function getPaymentLinkPage(ctx: GatewayContext, viewer: Principal, linkId: string): Promise<PaymentLinkPage> {
  authorize(viewer, 'getPaymentLinkPage');
  const found = isUuid(linkId) ? await readLinkForPage(ctx.db, linkId, ctx.clock.now()) : null;
  if (!found) throw new DomainError('payment_link_not_found');
  const { organizationName, ...link } = found;
  return { link: viewOf(ctx.settings, link), organizationName };
}
