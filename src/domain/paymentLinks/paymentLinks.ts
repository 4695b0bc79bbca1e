/**
 * What a payment link is (issue 30): a merchant's page on the checkout origin that makes an
 * ordinary transaction, through the one creation rule (transactions/createTransaction.ts), for
 * each customer who gives a name and a phone. Its addresses, and the transaction input it makes.
 */
import type { GatewaySettings } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Db } from '../ports.js';
import type { CreateTransactionInput } from '../transactions/createTransaction.js';
import { readPaymentLink, type PaymentLinkRecord } from './store.js';

export type { PaymentLinkRecord, PaymentLinkStatus } from './store.js';

/** A link's page, on the checkout origin: what the merchant shares. */
const paymentLinkUrlOf = (settings: GatewaySettings, linkId: string): string => `${settings.checkoutPublicUrl.replace(/\/+$/, '')}/pay/${linkId}`;
/** Its QR code (an SVG the gateway draws), beside the page. */
const paymentLinkQrUrlOf = (settings: GatewaySettings, linkId: string): string => `${paymentLinkUrlOf(settings, linkId)}/qr.svg`;

/** A link as the adapters show it: the record and its two addresses. */
export interface PaymentLinkView extends PaymentLinkRecord {
  url: string;
  qrCodeUrl: string;
}

export const viewOf = (settings: GatewaySettings, link: PaymentLinkRecord): PaymentLinkView => ({
  ...link,
  url: paymentLinkUrlOf(settings, link.id),
  qrCodeUrl: paymentLinkQrUrlOf(settings, link.id),
});

/**
 * A link the caller may see: of `organizationId`, or of any organisation when null. Another
 * organisation's link answers exactly like a missing one; a malformed id is one that does not exist.
 */
export async function findVisiblePaymentLink(
  db: Pick<Db, '$queryRaw'>,
  organizationId: string | null,
  id: string,
  now: Date,
  options: { stats?: boolean } = {},
): Promise<PaymentLinkRecord> {
  const link = isUuid(id) ? await readPaymentLink(db, id, organizationId, now, options) : null;
  if (!link) throw new DomainError('payment_link_not_found');
  return link;
}

/** The transaction a customer's form makes from the link: its template plus who pays. */
export function transactionInputOf(
  link: Pick<PaymentLinkRecord, 'methodOfPayment' | 'products' | 'successUrl' | 'errorUrl' | 'feesCustomerSide'>,
  customer: { firstName: string; lastName: string | null; phone: string },
): CreateTransactionInput {
  return {
    methodOfPayment: link.methodOfPayment,
    products: link.products.map((product) => ({ ...product })),
    customer,
    successUrl: link.successUrl,
    errorUrl: link.errorUrl,
    feesCustomerSide: link.feesCustomerSide,
  };
}
