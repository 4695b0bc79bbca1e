/**
 * REST v2 extension: payment links (issue 30; docs/payment-links.md). Same pipeline as the spec's
 * routes (rate limit, authentication, the one access policy, the v2 error shape); parse the v2
 * shape, call the operation, render the link's shape.
 */
import { createPaymentLink, deactivatePaymentLink, getPaymentLink, listPaymentLinks } from '../../domain/operations.js';
import type { CreatePaymentLinkInput } from '../../domain/paymentLinks/createPaymentLink.js';
import { parsePaymentLinkStatus } from '../../domain/paymentLinks/listPaymentLinks.js';
import type { PaymentLinkView } from '../../domain/paymentLinks/paymentLinks.js';
import { DomainError } from '../../domain/errors.js';
import { toWireAmount } from '../../domain/money.js';
import { wireTimestamp } from '../../domain/wire.js';
import {
  objectItems,
  optionalArray,
  optionalBoolean,
  optionalInteger,
  optionalString,
  parseJsonObject,
  requiredInteger,
  requiredString,
  stringItems,
} from '../body.js';
import { bind } from '../pipeline.js';
import { queryEnum, queryInteger } from '../query.js';
import { pagination } from './shapes.js';

/** RFC 3339 with a time zone: what `expires_at` must be (a date alone names no instant). */
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function parseExpiry(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!RFC_3339.test(value) || Number.isNaN(date.getTime())) throw new DomainError('invalid_request_body', 'expires_at must be an RFC 3339 date-time');
  return date;
}

function parseCreatePaymentLinkBody(raw: unknown): CreatePaymentLinkInput {
  const body = parseJsonObject(raw);
  const products = optionalArray(body, 'products');
  const methods = optionalArray(body, 'method_of_payment');
  return {
    name: requiredString(body, 'name'),
    products: products
      ? objectItems(products, 'products').map((product, index) => ({
          name: requiredString(product, 'name', `products[${index}].name`),
          price: requiredInteger(product, 'price', `products[${index}].price`),
          quantity: requiredInteger(product, 'quantity', `products[${index}].quantity`),
          description: optionalString(product, 'description', `products[${index}].description`),
        }))
      : undefined,
    amount: optionalInteger(body, 'amount'),
    methodOfPayment: methods ? stringItems(methods, 'method_of_payment') : undefined,
    singleUse: optionalBoolean(body, 'single_use'),
    expiresAt: parseExpiry(optionalString(body, 'expires_at')),
    successUrl: optionalString(body, 'success_url'),
    errorUrl: optionalString(body, 'error_url'),
    feesCustomerSide: optionalBoolean(body, 'fees_customer_side'),
  };
}

/** The PaymentLink shape of the extension: exactly these fields. */
function paymentLinkShape(link: PaymentLinkView) {
  return {
    id: link.id,
    name: link.name,
    url: link.url,
    qr_code_url: link.qrCodeUrl,
    status: link.status,
    amount: toWireAmount(link.amount),
    single_use: link.singleUse,
    expires_at: link.expiresAt ? wireTimestamp(link.expiresAt) : null,
    paid_count: link.paidCount,
    paid_amount: toWireAmount(link.paidAmount),
    created_at: wireTimestamp(link.createdAt),
  };
}

export const paymentLinkRoutes = {
  createPaymentLink: bind({
    operation: 'createPaymentLink',
    handle: async (ctx, access, { body }) => ({ body: paymentLinkShape(await createPaymentLink(ctx, access, parseCreatePaymentLinkBody(body))) }),
  }),

  listPaymentLinks: bind({
    operation: 'listPaymentLinks',
    handle: async (ctx, access, { query }) => {
      const page = await listPaymentLinks(ctx, access, {
        page: queryInteger(query, 'page'),
        limit: queryInteger(query, 'limit'),
        status: queryEnum(query, 'status', parsePaymentLinkStatus),
      });
      return { body: { payment_links: page.items.map(paymentLinkShape), pagination: pagination(page) } };
    },
  }),

  getPaymentLink: bind({
    operation: 'getPaymentLink',
    handle: async (ctx, access, { params }) => ({ body: paymentLinkShape(await getPaymentLink(ctx, access, params.id ?? '')) }),
  }),

  deactivatePaymentLink: bind({
    operation: 'deactivatePaymentLink',
    handle: async (ctx, access, { params }) => ({ body: paymentLinkShape(await deactivatePaymentLink(ctx, access, params.id ?? '')) }),
  }),
};
