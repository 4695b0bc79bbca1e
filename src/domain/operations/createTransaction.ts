/**
 * POST /transactions: a merchant asks a customer to pay for products. Creates a `pending`
 * transaction and returns it with the checkout address the customer is sent to.
 */
import { randomUUID } from 'node:crypto';
import type { Organization } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { authorizeMerchant, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import {
  MAXIMUM_AMOUNT,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PRODUCTS,
  MAX_QUANTITY,
  MINIMUM_AMOUNT_EXCLUSIVE,
  UNVERIFIED_MONTHLY_LIMIT,
  isSwitchOn,
  normalizePhone,
  parsePaymentMethod,
  requireText,
  startOfUtcMonth,
  validateRedirectUrl,
} from '../rules.js';
import { ensureAccounts } from '../organizations.js';
import { checkoutUrlOf, defaultErrorUrlOf, defaultSuccessUrlOf, type TransactionRecord } from '../transactions.js';

export interface ProductInput {
  name: string;
  /** Unit price, XOF. */
  price: number;
  quantity: number;
  description?: string | null;
  /** v1 clients send one; v2 has none. */
  category?: string | null;
}

export interface PersonInput {
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
}

export interface CreateTransactionInput {
  methodOfPayment: string[];
  products: ProductInput[];
  customer?: PersonInput | null;
  successUrl?: string | null;
  errorUrl?: string | null;
  feesCustomerSide?: boolean | null;
  isEscrow?: boolean | null;
  isMerchant?: boolean | null;
}

export interface CreatedTransaction {
  transaction: TransactionRecord;
  checkoutUrl: string;
}

export async function createTransaction(ctx: GatewayContext, caller: Caller, input: CreateTransactionInput): Promise<CreatedTransaction> {
  const organization = authorizeMerchant(caller, 'createTransaction');
  if (!(await isSwitchOn(ctx.db, 'transactions'))) throw new DomainError('transactions_disabled');
  if (!organization.businessSector) throw new DomainError('business_profile_incomplete');

  const methods = allowedMethods(organization, input.methodOfPayment);
  const products = validProducts(input.products);
  const amount = totalOf(products);
  const id = randomUUID();
  // Omitted redirect URLs default to pages of the service (spec), stored so every surface agrees.
  const successUrl = input.successUrl ? validateRedirectUrl(input.successUrl) : defaultSuccessUrlOf(ctx.settings, id);
  const errorUrl = input.errorUrl ? validateRedirectUrl(input.errorUrl) : defaultErrorUrlOf(ctx.settings, id);
  const customer = validCustomer(input.customer);
  if (input.isEscrow && !organization.escrowEnabled) throw new DomainError('escrow_not_enabled');
  checkOrganizationLimits(organization, amount);

  await ensureAccounts(ctx.db, organization.id).catch((error: unknown) => {
    ctx.log.error({ err: error, organizationId: organization.id }, 'could not prepare merchant accounts');
    throw new DomainError('merchant_account_unavailable');
  });
  const transaction = await ctx.db.$transaction(async (tx) => {
    if (!organization.verified) {
      // Serialise creations of this organisation so two concurrent requests cannot both fit
      // under the monthly limit: the row lock is held until this database transaction ends.
      await tx.$queryRaw`SELECT id FROM "Organization" WHERE id = ${organization.id}::uuid FOR UPDATE`;
      const monthStart = startOfUtcMonth(ctx.clock.now());
      const { _sum } = await tx.transaction.aggregate({
        _sum: { amount: true },
        where: { organizationId: organization.id, status: { not: 'cancelled' }, createdAt: { gte: monthStart } },
      });
      if (Number(_sum.amount ?? 0n) + amount > UNVERIFIED_MONTHLY_LIMIT) throw new DomainError('monthly_limit_reached');
    }
    return tx.transaction.create({
      data: {
        id,
        organizationId: organization.id,
        amount: BigInt(amount),
        methodOfPayment: methods,
        customerFirstName: customer.firstName,
        customerLastName: customer.lastName,
        customerPhone: customer.phone,
        successUrl,
        errorUrl,
        feesCustomerSide: input.feesCustomerSide ?? false,
        isEscrow: input.isEscrow ?? false,
        isMerchant: input.isMerchant ?? false,
        products: {
          create: products.map((product, position) => ({
            position,
            name: product.name,
            price: BigInt(product.price),
            quantity: product.quantity,
            description: product.description ?? null,
            category: product.category ?? null,
          })),
        },
      },
      include: { products: { orderBy: { position: 'asc' } } },
    });
  });
  return { transaction, checkoutUrl: checkoutUrlOf(ctx.settings, transaction.id) };
}

function allowedMethods(organization: Organization, requested: string[]): PaymentMethod[] {
  if (requested.length === 0) throw new DomainError('no_payment_method');
  const methods = [...new Set(requested.map(parsePaymentMethod))];
  for (const method of methods) {
    if (!organization.allowedMethods.includes(method)) throw new DomainError('method_not_allowed', method);
  }
  return methods;
}

function validProducts(products: ProductInput[]): ProductInput[] {
  if (products.length === 0) throw new DomainError('no_product');
  if (products.length > MAX_PRODUCTS) throw new DomainError('invalid_request_body', `at most ${MAX_PRODUCTS} products`);
  products.forEach((product, index) => {
    if (!product.name.trim()) throw new DomainError('invalid_request_body', `products[${index}].name is required`);
    requireText(`products[${index}].name`, product.name, MAX_NAME_LENGTH);
    requireText(`products[${index}].description`, product.description, MAX_DESCRIPTION_LENGTH);
    requireText(`products[${index}].category`, product.category, MAX_NAME_LENGTH);
    if (!Number.isSafeInteger(product.price) || product.price < 0 || product.price > MAXIMUM_AMOUNT) {
      throw new DomainError('invalid_request_body', `products[${index}].price must be a non-negative integer`);
    }
    if (!Number.isSafeInteger(product.quantity)) throw new DomainError('invalid_request_body', `products[${index}].quantity must be an integer`);
    if (product.quantity > MAX_QUANTITY) throw new DomainError('invalid_request_body', `products[${index}].quantity is more than ${MAX_QUANTITY}`);
    // A negative quantity is no more meaningful than zero on a bill.
    if (product.quantity <= 0) throw new DomainError('invalid_total');
  });
  return products;
}

/** Sum of price x quantity, computed exactly (bigint) before it is bounded to a safe number. */
function totalOf(products: ProductInput[]): number {
  const total = products.reduce((sum, product) => sum + BigInt(product.price) * BigInt(product.quantity), 0n);
  if (total <= BigInt(MINIMUM_AMOUNT_EXCLUSIVE)) throw new DomainError('invalid_total');
  if (total > BigInt(MAXIMUM_AMOUNT)) throw new DomainError('amount_out_of_limits', `the maximum is ${MAXIMUM_AMOUNT} XOF`);
  return Number(total);
}

function validCustomer(customer: PersonInput | null | undefined) {
  return {
    firstName: requireText('customer.first_name', customer?.firstName, MAX_NAME_LENGTH),
    lastName: requireText('customer.last_name', customer?.lastName, MAX_NAME_LENGTH),
    phone: customer?.phone ? normalizePhone(customer.phone) : null,
  };
}

function checkOrganizationLimits(organization: Organization, amount: number): void {
  const { minTransactionAmount: min, maxTransactionAmount: max } = organization;
  if (min !== null && BigInt(amount) < min) throw new DomainError('amount_out_of_limits', `the minimum is ${min} XOF`);
  if (max !== null && BigInt(amount) > max) throw new DomainError('amount_out_of_limits', `the maximum is ${max} XOF`);
}
