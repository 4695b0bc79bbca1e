/**
 * REST v1 transaction routes. Each converts the v1 shape and calls the operation of its v2 twin:
 * create-transaction -> createTransaction, get-transactions -> listTransactions,
 * get-one-transaction -> getTransaction, delete-transaction -> cancelTransaction for a pending
 * transaction and refundTransaction for a paid one.
 */
import { DomainError } from '../../domain/errors.js';
import type { CreateTransactionInput, ProductInput } from '../../domain/operations/createTransaction.js';
import type { ListTransactionsInput } from '../../domain/operations/listTransactions.js';
import { cancelOrRefundTransaction, createTransaction, getTransaction, listTransactions } from '../../domain/operations/index.js';
import { parseTransactionStatus } from '../../domain/transactions.js';
import {
  objectItems,
  optionalArray,
  optionalBoolean,
  optionalString,
  parseJsonObject,
  requiredInteger,
  requiredString,
  type JsonObject,
} from '../body.js';
import { bind } from '../pipeline.js';
import { queryDate, queryEnum, queryInteger, queryString, type Query } from '../query.js';
import { REFUNDED_MESSAGE } from '../v2/refunds.js';
import { CANCELLED_MESSAGE } from '../v2/transactions.js';
import { parseV1MethodName } from '../../domain/paymentMethods.js';
import { v1Created, v1Transaction } from './shapes.js';

/** A v1 product: `amount` is the unit price (v2's `price`); `category` is stored with it. */
const v1Product = (product: JsonObject, index: number): ProductInput => ({
  name: requiredString(product, 'name', `products[${index}].name`),
  price: requiredInteger(product, 'amount', `products[${index}].amount`),
  quantity: requiredInteger(product, 'quantity', `products[${index}].quantity`),
  description: optionalString(product, 'description', `products[${index}].description`),
  category: optionalString(product, 'category', `products[${index}].category`),
});

export function parseV1CreateBody(raw: unknown): CreateTransactionInput {
  const body = parseJsonObject(raw);
  const method = optionalString(body, 'method_of_payment');
  return {
    // No method: the domain's "Add minimum one payment method".
    methodOfPayment: method === undefined ? [] : [parseV1MethodName(method)],
    products: objectItems(optionalArray(body, 'products') ?? [], 'products').map(v1Product),
    successUrl: optionalString(body, 'success_url'),
    errorUrl: optionalString(body, 'error_url'),
    feesCustomerSide: optionalBoolean(body, 'fees_customer_side'),
    isEscrow: optionalBoolean(body, 'is_escrow'),
    isMerchant: optionalBoolean(body, 'is_merchant'),
  };
}

/** v1's filters in the domain's terms: an exact `amount` is the range [amount, amount]. */
export function parseV1ListQuery(query: Query): ListTransactionsInput {
  const amount = queryInteger(query, 'amount');
  return {
    limit: queryInteger(query, 'limit'),
    page: queryInteger(query, 'page'),
    minAmount: amount,
    maxAmount: amount,
    status: queryEnum(query, 'transaction_status', parseTransactionStatus),
    startDate: queryDate(query, 'created_at_start'),
    endDate: queryDate(query, 'created_at_end'),
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

export const transactionRoutes = {
  createTransaction: bind({
    operation: 'createTransaction',
    handle: async (ctx, access, request) => {
      const input = parseV1CreateBody(request.body);
      const outcome = await createTransaction(ctx, access, input, { idempotencyKey: request.idempotencyKey });
      return { body: v1Created(outcome.value, access.organization), replayed: outcome.replayed };
    },
  }),

  listTransactions: bind({
    operation: 'listTransactions',
    handle: async (ctx, access, request) => {
      const { items } = await listTransactions(ctx, access, parseV1ListQuery(request.query));
      return { body: { transactions: items.map((transaction) => v1Transaction(transaction, access.organization)) } };
    },
  }),

  getTransaction: bind({
    operation: 'getTransaction',
    handle: async (ctx, access, request) => ({ body: v1Transaction(await getTransaction(ctx, access, requiredOrderIdIn(request.query)), access.organization) }),
  }),

  /** v1's delete: v2's cancel for a pending transaction, its refund for a paid one (the domain decides, under each one's scopes). */
  deleteTransaction: bind({
    operation: 'refundTransaction',
    handle: async (ctx, access, request) => {
      const taken = await cancelOrRefundTransaction(ctx, access, deletedOrderId(request.body, request.query), { idempotencyKey: request.idempotencyKey });
      return { body: { order_id: taken.value.id, message: taken.outcome === 'cancelled' ? CANCELLED_MESSAGE : REFUNDED_MESSAGE }, replayed: taken.replayed };
    },
  }),
};
