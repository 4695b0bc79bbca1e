/**
 * POST /transactions: a merchant asks a customer to pay for products. Creates a `pending`
 * transaction and returns it with the checkout address the customer is sent to. An admin operator
 * may create one in an organisation's place (GraphQL, naming it) to try an integration end to end
 * (`gateway trigger`): the same rules apply, as if the organisation's own key asked.
 */
import { randomUUID } from 'node:crypto';
import type { Organization } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { OrganizationAccess } from '../access/auth.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { runIdempotently, type IdempotentOutcome } from '../idempotency.js';
import type { OperationOptions, PersonInput } from '../inputs.js';
import { MAXIMUM_AMOUNT, MINIMUM_AMOUNT_EXCLUSIVE, UNVERIFIED_MONTHLY_LIMIT, startOfUtcMonth } from '../money.js';
import { ensureAccounts } from '../organizations/organizations.js';
import { parsePaymentMethod } from '../paymentMethods.js';
import { isTransientDatabaseError } from '../providerFlow.js';
import { normalizePhone } from '../phones.js';
import { switchStates, type SwitchStates } from '../organizations/switches.js';
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, optionalBoundedText } from '../text.js';
import { MAX_PRODUCTS, MAX_QUANTITY, checkoutUrlOf, defaultErrorUrlOf, defaultSuccessUrlOf } from './transactions.js';
import type { TransactionRecord } from './store.js';
import { amountCreatedSince, insertTransaction, lockOrganization, type NewTransaction } from './store.js';
import { validateRedirectUrl } from '../urls.js';

export interface ProductInput {
  name: string;
  /** Unit price, XOF. */
  price: number;
  quantity: number;
  description?: string | null;
  /** v1 clients send one; v2 has none. */
  category?: string | null;
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

/**
 * The input as an Idempotency-Key compares it: a field sent with its default (false, an empty
 * text) is the same request as one that leaves it out, as it creates the same transaction (a v1
 * SDK always sends the three booleans, a v2 client may not).
 */
function comparedInput(input: CreateTransactionInput): CreateTransactionInput {
  const trueOrAbsent = (value: boolean | null | undefined) => (value ? true : undefined);
  const textOrAbsent = (value: string | null | undefined) => (value ? value : undefined);
  return {
    ...input,
    feesCustomerSide: trueOrAbsent(input.feesCustomerSide),
    isEscrow: trueOrAbsent(input.isEscrow),
    isMerchant: trueOrAbsent(input.isMerchant),
    products: input.products.map((product) => ({ ...product, description: textOrAbsent(product.description), category: textOrAbsent(product.category) })),
  };
}

/**
 * Every check and the insert run inside one database transaction with the Idempotency-Key row,
 * so a retry with the key replays this answer (a refusal included) instead of running again.
 */
export async function createTransaction(
  ctx: GatewayContext,
  access: OrganizationAccess<'createTransaction'>,
  input: CreateTransactionInput,
  options: OperationOptions = {},
): Promise<IdempotentOutcome<CreatedTransaction>> {
  const { organization } = access;
  // The compared input only matters under a key (it is hashed with it).
  const compared = options.idempotencyKey === undefined ? input : comparedInput(input);
  const scope = { organizationId: organization.id, key: options.idempotencyKey, operation: 'createTransaction', input: compared };
  // An unverified organisation's monthly limit is a check and an insert under a row lock: a
  // transaction. Otherwise the insert is the only write: one statement, no transaction needed.
  const withoutKey = organization.verified ? 'one-statement' : 'transaction';
  return runIdempotently(ctx, scope, (tx) => createTransactionOf(ctx, tx, organization, input), { withoutKey });
}

/**
 * THE rule that makes a transaction, whoever asks: the merchant's API (above) or a customer on
 * one of the merchant's payment links (paymentLinks/payPaymentLink.ts, in the database
 * transaction that claims the link). `tx` is a database transaction, or the pool when the insert
 * is the only write (a verified organisation without a key).
 */
export async function createTransactionOf(
  ctx: GatewayContext,
  tx: DbTransaction,
  organization: Organization,
  input: CreateTransactionInput,
  origin: { paymentLinkId?: string } = {},
): Promise<CreatedTransaction> {
  const switches = await switchStates(ctx, tx);
  if (!switches.get('transactions')) throw new DomainError('transactions_disabled');
  if (!organization.businessSector) throw new DomainError('business_profile_incomplete');
  const data = { ...validTransaction(ctx, organization, input), paymentLinkId: origin.paymentLinkId ?? null };
  refuseIfNoMethodIsOn(switches, data.methodOfPayment);
  await prepareAccounts(ctx, tx, organization.id);
  if (!organization.verified) await checkMonthlyLimit(ctx, tx, organization.id, data.amount);
  const transaction = await insertTransaction(tx, data);
  return { transaction, checkoutUrl: checkoutUrlOf(ctx.settings, transaction.id) };
}

/**
 * A method the operator switched off cannot be paid with. While another offered method is on the
 * transaction is created (the checkout page offers only the methods that are on); when none is,
 * the customer could not pay at all, so the merchant is told now (503: the switch is temporary).
 */
function refuseIfNoMethodIsOn(switches: SwitchStates, methods: PaymentMethod[]): void {
  if (methods.every((method) => !switches.get(method))) throw new DomainError('payment_method_unavailable', methods.join(' and '));
}

/**
 * The rules a transaction's input meets, checked without making one: a payment link checks the
 * transaction it will make when the merchant creates it, so a bad template is a 400 then, not a
 * refusal in front of the customer. The same function the creation runs.
 */
export function checkTransactionInput(ctx: GatewayContext, organization: Organization, input: CreateTransactionInput): void {
  validTransaction(ctx, organization, input);
}

/** The row to insert, or the first rule the request breaks. */
function validTransaction(ctx: GatewayContext, organization: Organization, input: CreateTransactionInput): NewTransaction {
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
  return {
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
    products: products.map((product) => ({
      name: product.name,
      price: product.price,
      quantity: product.quantity,
      description: product.description ?? null,
      category: product.category ?? null,
    })),
  };
}

async function prepareAccounts(ctx: GatewayContext, tx: DbTransaction, organizationId: string): Promise<void> {
  await ensureAccounts(tx, organizationId).catch((error: unknown) => {
    // The database link failing under the request (a session terminated, a failover) is not the
    // accounts' fault: it stays the retryable 503 with Retry-After every surface gives it
    // (rest/errors.ts), which a client retries with its key. Seen in faults/postgres-terminated.
    if (isTransientDatabaseError(error)) throw error;
    ctx.log.error({ err: error, organizationId }, 'could not prepare merchant accounts');
    throw new DomainError('merchant_account_unavailable');
  });
}

/**
 * Serialises creations of an unverified organisation so two concurrent requests cannot both fit
 * under the monthly limit: the row lock is held until the database transaction ends.
 */
async function checkMonthlyLimit(ctx: GatewayContext, tx: DbTransaction, organizationId: string, amount: bigint): Promise<void> {
  await lockOrganization(tx, organizationId);
  const createdThisMonth = await amountCreatedSince(tx, organizationId, startOfUtcMonth(ctx.clock.now()));
  if (createdThisMonth + amount > BigInt(UNVERIFIED_MONTHLY_LIMIT)) throw new DomainError('monthly_limit_reached');
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
    optionalBoundedText(`products[${index}].name`, product.name, MAX_NAME_LENGTH);
    optionalBoundedText(`products[${index}].description`, product.description, MAX_DESCRIPTION_LENGTH);
    optionalBoundedText(`products[${index}].category`, product.category, MAX_NAME_LENGTH);
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
    firstName: optionalBoundedText('customer.first_name', customer?.firstName, MAX_NAME_LENGTH),
    lastName: optionalBoundedText('customer.last_name', customer?.lastName, MAX_NAME_LENGTH),
    phone: customer?.phone ? normalizePhone(customer.phone) : null,
  };
}

function checkOrganizationLimits(organization: Organization, amount: number): void {
  const { minTransactionAmount: min, maxTransactionAmount: max } = organization;
  if (min !== null && BigInt(amount) < min) throw new DomainError('amount_out_of_limits', `the minimum is ${min} XOF`);
  if (max !== null && BigInt(amount) > max) throw new DomainError('amount_out_of_limits', `the maximum is ${max} XOF`);
}
