/**
 * REST v1 transaction routes. Each converts the v1 shape and calls the operation of its v2 twin:
 * create-transaction -> createTransaction, get-transactions -> listTransactions,
 * get-one-transaction -> getTransaction, delete-transaction -> cancelTransaction for a pending
 * transaction and refundTransaction for a paid one.
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { DomainError } from '../../domain/errors.js';
import type { CreateTransactionInput, ProductInput } from '../../domain/transactions/createTransaction.js';
import type { ListTransactionsInput } from '../../domain/transactions/listTransactions.js';
import { cancelOrRefundTransaction, createTransaction, getTransaction, listTransactions } from '../../domain/operations.js';
import {
  objectItems,
  optionalArray,
  optionalBoolean,
  optionalString,
  parseJsonObject,
  requiredInteger,
  requiredString,
  stringItems,
  type JsonObject,
} from '../body.js';
import { bind } from '../pipeline.js';
import { queryDate, queryEnum, queryInteger, queryString, type Query } from '../query.js';
import { REFUNDED_MESSAGE } from '../v2/refunds.js';
import { CANCELLED_MESSAGE } from '../v2/transactions.js';
import { parseV1MethodName } from '../../domain/paymentMethods.js';
import { v1Created, v1Transaction, v2StatusesOfV1Filter } from './shapes.js';

/** A v1 product: `amount` is the unit price (v2's `price`); `category` is stored with it. */
const v1Product = (product: JsonObject, index: number): ProductInput => ({
  name: requiredString(product, 'name', `products[${index}].name`),
  price: requiredInteger(product, 'amount', `products[${index}].amount`),
  quantity: requiredInteger(product, 'quantity', `products[${index}].quantity`),
  description: optionalString(product, 'description', `products[${index}].description`),
  category: optionalString(product, 'category', `products[${index}].category`),
});

/**
 * `method_of_payment`: every v1 client sends an array of uppercase methods (`["WAVE"]`); a single
 * string is read as an array of one. Each is checked (FREE_MONEY and BANK: 400 with the reason).
 */
function v1Methods(body: JsonObject): PaymentMethod[] {
  const value = body.method_of_payment;
  if (value === undefined || value === null) return [];
  const names = typeof value === 'string' ? [value] : stringItems(optionalArray(body, 'method_of_payment') ?? [], 'method_of_payment');
  return [...new Set(names.map(parseV1MethodName))];
}

function parseV1CreateBody(raw: unknown): CreateTransactionInput {
  const body = parseJsonObject(raw);
  return {
    // No method: the domain's "Add minimum one payment method".
    methodOfPayment: v1Methods(body),
    products: objectItems(optionalArray(body, 'products') ?? [], 'products').map(v1Product),
    successUrl: optionalString(body, 'success_url'),
    errorUrl: optionalString(body, 'error_url'),
    // The v1 SDKs' request models default it to true, and the Python SDK sends only the fields a
    // merchant set: absent means what the merchant's model said, true (v2's default is false).
    feesCustomerSide: optionalBoolean(body, 'fees_customer_side') ?? true,
    isEscrow: optionalBoolean(body, 'is_escrow'),
    isMerchant: optionalBoolean(body, 'is_merchant'),
  };
}

/**
 * `created_at_start` / `created_at_end`: RFC 3339, or a bare date `YYYY-MM-DD` meaning that whole
 * UTC day (query.ts queryDate), as the SDKs' examples send.
 */
function v1QueryDate(query: Query, name: string, edge: 'start' | 'end'): Date | undefined {
  const value = queryString(query, name);
  // The Node SDK (axios) leaves "+" unescaped in query strings, so an offset like +00:00 arrives
  // as a space: read it back as the "+" it was.
  const offsetAsSpace = value === undefined ? null : /^(.+T[\d:.]+) (\d{2}:\d{2})$/.exec(value);
  return queryDate(offsetAsSpace ? { [name]: `${offsetAsSpace[1]}+${offsetAsSpace[2]}` } : query, name, edge);
}

/** v1's filters in the domain's terms: an exact `amount` is the range [amount, amount]. */
function parseV1ListQuery(query: Query): ListTransactionsInput {
  const amount = queryInteger(query, 'amount');
  return {
    limit: queryInteger(query, 'limit'),
    page: queryInteger(query, 'page'),
    minAmount: amount,
    maxAmount: amount,
    statuses: queryEnum(query, 'transaction_status', v2StatusesOfV1Filter),
    startDate: v1QueryDate(query, 'created_at_start', 'start'),
    endDate: v1QueryDate(query, 'created_at_end', 'end'),
  };
}

function requiredOrderIdIn(query: Query): string {
  const orderId = queryString(query, 'order_id');
  if (orderId === undefined) throw new DomainError('invalid_query', 'order_id is required');
  return orderId;
}

/** delete-transaction names its transaction in a JSON body `{order_id}`, or else in `?order_id=`. */
function deletedOrderId(rawBody: unknown, query: Query): string {
  const hasBody = typeof rawBody === 'string' ? rawBody.trim() !== '' : rawBody !== undefined && rawBody !== null;
  const fromBody = hasBody ? optionalString(parseJsonObject(rawBody), 'order_id') : undefined;
  const orderId = fromBody ?? queryString(query, 'order_id');
  if (orderId === undefined) throw new DomainError('invalid_request_body', 'order_id is required (in the JSON body or the query string)');
  return orderId;
}

const createRoute = bind({
  operation: 'createTransaction',
  handle: async (ctx, access, request) => {
    const input = parseV1CreateBody(request.body);
    const outcome = await createTransaction(ctx, access, input, { idempotencyKey: request.idempotencyKey });
    return { body: v1Created(outcome.value, access.organization), replayed: outcome.replayed };
  },
});

export const transactionRoutes = {
  createTransaction: createRoute,
  // NabooPay's generated client (naboo-python) creates with PUT: the same operation.
  createTransactionWithPut: createRoute,

  listTransactions: bind({
    operation: 'listTransactions',
    handle: async (ctx, access, request) => {
      const { items } = await listTransactions(ctx, access, parseV1ListQuery(request.query));
      return { body: { transactions: items.map((transaction) => v1Transaction(transaction, access.organization, ctx.settings)) } };
    },
  }),

  getTransaction: bind({
    operation: 'getTransaction',
    handle: async (ctx, access, request) => ({
      body: v1Transaction(await getTransaction(ctx, access, requiredOrderIdIn(request.query)), access.organization, ctx.settings),
    }),
  }),

  /** v1's delete: v2's cancel for a pending transaction, its refund for a paid one (the domain decides, under each one's scopes). */
  deleteTransaction: bind({
    operation: 'cancelOrRefundTransaction',
    handle: async (ctx, access, request) => {
      const taken = await cancelOrRefundTransaction(ctx, access, deletedOrderId(request.body, request.query), { idempotencyKey: request.idempotencyKey });
      return { body: { order_id: taken.value.id, message: taken.outcome === 'cancelled' ? CANCELLED_MESSAGE : REFUNDED_MESSAGE }, replayed: taken.replayed };
    },
  }),
};
