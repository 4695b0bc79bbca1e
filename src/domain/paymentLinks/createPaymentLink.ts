/**
 * POST /api/v2/payment-links (a REST v2 extension), GraphQL createPaymentLink, the dashboard's
 * form: a link that sells products, or a fixed amount, with the methods, the use (single or
 * reusable), the expiry and the redirect URLs the merchant chose. The transaction it will make is
 * checked now by the creation rule itself (checkTransactionInput), so every refusal a customer
 * could meet for a bad template is the merchant's 400 here instead.
 */
import { randomUUID } from 'node:crypto';
import type { MerchantAccess } from '../access/auth.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { MAXIMUM_AMOUNT, toWireAmount } from '../money.js';
import { parsePaymentMethod } from '../paymentMethods.js';
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, optionalBoundedText } from '../text.js';
import { checkTransactionInput, type ProductInput } from '../transactions/createTransaction.js';
import { MAX_PRODUCTS } from '../transactions/transactions.js';
import { type PaymentLinkView, transactionInputOf, viewOf } from './paymentLinks.js';
import { insertPaymentLink, type LinkProduct, type NewPaymentLink } from './store.js';

export interface CreatePaymentLinkInput {
  name: string;
  /** Either products... */
  products?: ProductInput[] | null;
  /** ...or a fixed amount (XOF), never both. */
  amount?: number | null;
  /** Absent: every method the organisation may use (an empty list is refused, as for a transaction). */
  methodOfPayment?: string[] | null;
  singleUse?: boolean | null;
  expiresAt?: Date | null;
  successUrl?: string | null;
  errorUrl?: string | null;
  feesCustomerSide?: boolean | null;
}

export async function createPaymentLink(
  ctx: GatewayContext,
  access: MerchantAccess<'createPaymentLink'>,
  input: CreatePaymentLinkInput,
): Promise<PaymentLinkView> {
  const { organization } = access;
  const now = ctx.clock.now();
  const name = (optionalBoundedText('name', input.name, MAX_NAME_LENGTH) ?? '').trim();
  if (!name) throw new DomainError('payment_link_invalid', 'name is required');
  const products = linkProducts(name, input);
  const methods = input.methodOfPayment ? [...new Set(input.methodOfPayment.map(parsePaymentMethod))] : organization.allowedMethods;
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) throw new DomainError('payment_link_invalid', 'expires_at must be in the future');
  const link: NewPaymentLink = {
    id: randomUUID(),
    organizationId: organization.id,
    name,
    amount: products.reduce((sum, product) => sum + BigInt(product.price) * BigInt(product.quantity), 0n),
    products,
    methodOfPayment: methods,
    singleUse: input.singleUse ?? false,
    expiresAt: input.expiresAt ?? null,
    successUrl: input.successUrl || null,
    errorUrl: input.errorUrl || null,
    feesCustomerSide: input.feesCustomerSide ?? false,
  };
  // The transaction this link will make, through the creation rule's own checks (methods the
  // organisation may use, products, total, the organisation's amount limits, the URLs).
  checkTransactionInput(ctx, organization, transactionInputOf(link, { firstName: name, lastName: null, phone: '' }));
  const made = await ctx.db.$transaction(async (tx) => {
    const record = await insertPaymentLink(tx, link, now);
    await recordAuditEvent(tx, {
      organizationId: organization.id,
      actor: access.caller,
      action: 'payment_link.created',
      target: link.id,
      details: { name, amount: toWireAmount(link.amount), singleUse: link.singleUse },
    });
    return record;
  });
  return viewOf(ctx.settings, made);
}

/** The products each transaction lists: the ones given, or one line of the fixed amount named after the link. */
function linkProducts(name: string, input: CreatePaymentLinkInput): LinkProduct[] {
  const hasProducts = input.products !== undefined && input.products !== null;
  const hasAmount = input.amount !== undefined && input.amount !== null;
  if (hasProducts === hasAmount) throw new DomainError('payment_link_invalid', 'give either products or amount');
  if (hasAmount) {
    const amount = input.amount!;
    if (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAXIMUM_AMOUNT)
      throw new DomainError('payment_link_invalid', 'amount must be a positive integer number of XOF');
    return [{ name, price: amount, quantity: 1, description: null }];
  }
  const products = input.products!;
  if (products.length === 0) throw new DomainError('no_product');
  if (products.length > MAX_PRODUCTS) throw new DomainError('invalid_request_body', `at most ${MAX_PRODUCTS} products`);
  return products.map((product, index) => ({
    name: product.name,
    price: product.price,
    quantity: product.quantity,
    description: optionalBoundedText(`products[${index}].description`, product.description, MAX_DESCRIPTION_LENGTH),
  }));
}
