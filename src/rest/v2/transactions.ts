/** REST v2 transaction routes: parse the v2 shape, call the operation, render the v2 shape. */
import { cancelTransaction, createTransaction, getTransaction, listTransactions } from '../../domain/operations.js';
import type { CreateTransactionInput } from '../../domain/transactions/createTransaction.js';
import type { PersonInput } from '../../domain/inputs.js';
import type { ListTransactionsInput } from '../../domain/transactions/listTransactions.js';
import { parsePaymentMethod } from '../../domain/paymentMethods.js';
import { parseTransactionStatus } from '../../domain/transactions/transactions.js';
import {
  objectItems,
  optionalArray,
  optionalBoolean,
  optionalObject,
  optionalString,
  parseJsonObject,
  requiredInteger,
  requiredString,
  stringItems,
  type JsonObject,
} from '../body.js';
import { bind } from '../pipeline.js';
import { queryBoolean, queryDate, queryEnum, queryInteger, queryString, type Query } from '../query.js';
import { pagination, transactionCreated, transactionRead } from './shapes.js';

/** The spec's answer to a cancel (v1's delete of a pending transaction says the same). */
export const CANCELLED_MESSAGE = 'Transaction cancelled successfully';

function parseCreateTransactionBody(raw: unknown): CreateTransactionInput {
  const body = parseJsonObject(raw);
  const products = objectItems(optionalArray(body, 'products') ?? [], 'products');
  return {
    methodOfPayment: stringItems(optionalArray(body, 'method_of_payment') ?? [], 'method_of_payment'),
    products: products.map((product, index) => ({
      name: requiredString(product, 'name', `products[${index}].name`),
      price: requiredInteger(product, 'price', `products[${index}].price`),
      quantity: requiredInteger(product, 'quantity', `products[${index}].quantity`),
      description: optionalString(product, 'description', `products[${index}].description`),
    })),
    customer: parsePerson(optionalObject(body, 'customer'), 'customer'),
    successUrl: optionalString(body, 'success_url'),
    errorUrl: optionalString(body, 'error_url'),
    feesCustomerSide: optionalBoolean(body, 'fees_customer_side'),
    isEscrow: optionalBoolean(body, 'is_escrow'),
    isMerchant: optionalBoolean(body, 'is_merchant'),
  };
}

function parsePerson(person: JsonObject | undefined, path: string): PersonInput | undefined {
  if (!person) return undefined;
  return {
    firstName: optionalString(person, 'first_name', `${path}.first_name`),
    lastName: optionalString(person, 'last_name', `${path}.last_name`),
    phone: optionalString(person, 'phone', `${path}.phone`),
  };
}

export function parseListTransactionsQuery(query: Query): ListTransactionsInput {
  return {
    page: queryInteger(query, 'page'),
    limit: queryInteger(query, 'limit'),
    status: queryEnum(query, 'status', parseTransactionStatus),
    paymentMethod: queryEnum(query, 'payment_method', parsePaymentMethod),
    customerPhone: queryString(query, 'customer_phone'),
    minAmount: queryInteger(query, 'min_amount'),
    maxAmount: queryInteger(query, 'max_amount'),
    startDate: queryDate(query, 'start_date', 'start'),
    endDate: queryDate(query, 'end_date', 'end'),
    isEscrow: queryBoolean(query, 'is_escrow'),
    isMerchant: queryBoolean(query, 'is_merchant'),
    includeDeleted: queryBoolean(query, 'include_deleted'),
    search: queryString(query, 'search'),
  };
}

export const transactionRoutes = {
  createTransaction: bind({
    operation: 'createTransaction',
    handle: async (ctx, access, { body, idempotencyKey }) => {
      const { value, replayed } = await createTransaction(ctx, access, parseCreateTransactionBody(body), { idempotencyKey });
      return { body: transactionCreated(value), replayed };
    },
  }),

  getTransaction: bind({
    operation: 'getTransaction',
    handle: async (ctx, access, { params }) => ({ body: transactionRead(await getTransaction(ctx, access, params.order_id ?? '')) }),
  }),

  listTransactions: bind({
    operation: 'listTransactions',
    handle: async (ctx, access, { query }) => {
      const page = await listTransactions(ctx, access, parseListTransactionsQuery(query));
      return { body: { transactions: page.items.map(transactionRead), pagination: pagination(page) } };
    },
  }),

  cancelTransaction: bind({
    operation: 'cancelTransaction',
    handle: async (ctx, access, { params }) => {
      await cancelTransaction(ctx, access, params.order_id ?? '');
      return { body: { message: CANCELLED_MESSAGE } };
    },
  }),
};
