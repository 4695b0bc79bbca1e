/**
 * REST v2 and GraphQL as two "surfaces" of the same transaction operations, for parity tests:
 * each call returns an Outcome in one canonical vocabulary (GraphQL's names, null for absent), so
 * a scenario is written once and run through both. Later capabilities (refunds, payouts) add
 * their calls here. REST v1 beside both is in ./money.ts.
 *
 * For errors: REST status == GraphQL extensions.status, REST body.error == GraphQL message, and
 * GraphQL extensions.code is the catalogue's graphqlCode.
 */
import { expect } from 'vitest';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { MerchantOptions, TestGateway } from '../gateway.js';
import {
  SurfaceCancelTransactionDocument as CANCEL,
  SurfaceCreateTransactionDocument as CREATE,
  SurfaceTransactionDocument as GET,
  SurfaceTransactionsDocument as LIST,
} from '../graphql/generated.js';
import { graphqlTyped } from '../graphql/typed.js';

// ---------------------------------------------------------------------------------------------
// The normalised view of a transaction: GraphQL's names, nulls for "absent".
// ---------------------------------------------------------------------------------------------

export interface CanonicalTransaction {
  orderId: string;
  amount: number;
  fees: number;
  methodOfPayment: string[];
  selectedPaymentMethod: string | null;
  currency: string;
  status: string;
  customer: { firstName: string | null; lastName: string | null; phone: string | null; createdAt: string };
  products: { name: string; price: number; quantity: number; description: string | null }[];
  isEscrow: boolean;
  isMerchant: boolean;
  feesCustomerSide: boolean;
  successUrl: string | null;
  errorUrl: string | null;
  createdAt: string;
  updatedAt: string;
  paidAt: string | null;
}

/** The fields the create answer carries on both surfaces. */
export type CreatedView = Pick<
  CanonicalTransaction,
  'orderId' | 'amount' | 'methodOfPayment' | 'currency' | 'status' | 'isEscrow' | 'isMerchant' | 'createdAt'
> & {
  customer: CanonicalTransaction['customer'];
};

export interface Created {
  orderId: string;
  checkoutUrl: string;
  view: CreatedView;
}

interface Pagination {
  page: number;
  limit: number;
  totalCount: number;
  totalPages: number;
}

interface Listed {
  transactions: CanonicalTransaction[];
  pagination: Pagination;
}

/** A refusal as each surface reports it. */
export interface Failure {
  /** REST: the HTTP status. GraphQL: extensions.status. */
  status: number;
  message: string;
  /** GraphQL only: extensions.code. */
  code?: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; failure: Failure };

/** Filters in the domain's (camelCase) names; each surface spells them its own way. */
export interface ListFilter {
  status?: string;
  paymentMethod?: string;
  customerPhone?: string;
  minAmount?: number;
  maxAmount?: number;
  startDate?: string;
  endDate?: string;
  isEscrow?: boolean;
  isMerchant?: boolean;
  includeDeleted?: boolean;
  search?: string;
  page?: number;
  limit?: number;
}

export interface Surface {
  name: 'rest' | 'graphql';
  /** `body` is a REST v2 body; the GraphQL surface translates it to CreateTransactionInput. */
  create(key: string, body: Record<string, unknown>): Promise<Outcome<Created>>;
  get(key: string, orderId: string): Promise<Outcome<CanonicalTransaction>>;
  cancel(key: string, orderId: string): Promise<Outcome<void>>;
  list(key: string, filter: ListFilter): Promise<Outcome<Listed>>;
}

export const emptyToNull = (value: string | null | undefined): string | null => (value === '' || value === undefined ? null : value);

function fromRestFull(t: any): CanonicalTransaction {
  return {
    orderId: t.order_id,
    amount: t.amount,
    fees: t.fees,
    methodOfPayment: t.method_of_payment,
    selectedPaymentMethod: emptyToNull(t.selected_payment_method),
    currency: t.currency,
    status: t.transaction_status,
    customer: fromRestCustomer(t.customer),
    products: t.products.map((p: any) => ({ name: p.name, price: p.price, quantity: p.quantity, description: emptyToNull(p.description) })),
    isEscrow: t.is_escrow,
    isMerchant: t.is_merchant,
    feesCustomerSide: t.fees_customer_side,
    successUrl: emptyToNull(t.success_url),
    errorUrl: emptyToNull(t.error_url),
    createdAt: t.created_at,
    updatedAt: t.updated_at,
    paidAt: t.paid_at,
  };
}

function fromRestCustomer(c: any): CanonicalTransaction['customer'] {
  return { firstName: emptyToNull(c.first_name), lastName: emptyToNull(c.last_name), phone: emptyToNull(c.phone), createdAt: c.created_at };
}

function fromRestCreated(t: any): Created {
  return {
    orderId: t.order_id,
    checkoutUrl: t.checkout_url,
    view: {
      orderId: t.order_id,
      amount: t.amount,
      methodOfPayment: t.method_of_payment,
      currency: t.currency,
      status: t.transaction_status,
      isEscrow: t.is_escrow,
      isMerchant: t.is_merchant,
      createdAt: t.created_at,
      customer: fromRestCustomer(t.customer),
    },
  };
}

/** GraphQL already uses the canonical names; drop what REST has no field for. */
function fromGraphqlFull(t: any): CanonicalTransaction {
  const { isDeleted: _isDeleted, ...rest } = t;
  return rest;
}

export function createdViewOf(t: CanonicalTransaction): CreatedView {
  const { orderId, amount, methodOfPayment, currency, status, isEscrow, isMerchant, createdAt, customer } = t;
  return { orderId, amount, methodOfPayment, currency, status, isEscrow, isMerchant, createdAt, customer };
}

// ---------------------------------------------------------------------------------------------
// The two surfaces.
// ---------------------------------------------------------------------------------------------

export function restFailure(response: { status: number; body: any }): Failure {
  expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
  // The v2 error shape is exactly { error }.
  expect(Object.keys(response.body ?? {}), JSON.stringify(response.body)).toEqual(['error']);
  return { status: response.status, message: response.body.error };
}

export const defined = <T extends Record<string, unknown>>(object: T): T =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;

/** The same request, in CreateTransactionInput's words. */
function graphqlInputOf(body: Record<string, any>): Record<string, unknown> {
  return defined({
    methodOfPayment: body.method_of_payment,
    products: body.products?.map((p: any) => defined({ name: p.name, price: p.price, quantity: p.quantity, description: p.description })),
    customer: body.customer && defined({ firstName: body.customer.first_name, lastName: body.customer.last_name, phone: body.customer.phone }),
    successUrl: body.success_url,
    errorUrl: body.error_url,
    feesCustomerSide: body.fees_customer_side,
    isEscrow: body.is_escrow,
    isMerchant: body.is_merchant,
  });
}

/** A GraphQL answer with errors: exactly one error, no data, the field's path, and HTTP 200 (401 for authentication). */
export function graphqlFailure(response: { status: number; body: any }, field: string): Failure {
  const { body } = response;
  expect(body.errors, JSON.stringify(body)).toHaveLength(1);
  const [error] = body.errors;
  expect(body.data ?? null, JSON.stringify(body)).toBeNull();
  const authentication = error.extensions?.code === 'UNAUTHENTICATED';
  expect(response.status, JSON.stringify(body)).toBe(authentication ? 401 : 200);
  if (!authentication) expect(error.path, JSON.stringify(body)).toEqual([field]);
  return { status: error.extensions?.status, message: error.message, code: error.extensions?.code };
}

export function must<T>(outcome: Outcome<T>, what: string): T {
  if (!outcome.ok) throw new Error(`${what} failed: ${JSON.stringify(outcome.failure)}`);
  return outcome.value;
}

export function failureOf(outcome: Outcome<unknown>, surface: string): Failure {
  if (outcome.ok) throw new Error(`${surface}: expected a refusal, got success: ${JSON.stringify(outcome.value)}`);
  return outcome.failure;
}

export interface Merchant {
  organizationId: string;
  key: string;
}

/** What cannot be equal between two transactions of two organisations: ids and instants. */
export function comparable(t: CanonicalTransaction) {
  const { orderId, createdAt: _c, updatedAt: _u, paidAt, customer, ...rest } = t;
  const url = (value: string | null) => value?.split(orderId).join(':order_id') ?? null;
  return {
    ...rest,
    paid: paidAt !== null,
    customer: { firstName: customer.firstName, lastName: customer.lastName, phone: customer.phone },
    successUrl: url(t.successUrl),
    errorUrl: url(t.errorUrl),
  };
}

export const product = (name: string, price: number, quantity = 1, description?: string) => defined({ name, price, quantity, description });

/** The two surfaces over one running gateway, and a way to make a fresh merchant on it. */
export function transactionSurfaces(gateway: TestGateway) {
  const restSurface: Surface = {
    name: 'rest',
    async create(key, body) {
      const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
      if (response.status !== 200) return { ok: false, failure: restFailure(response) };
      return { ok: true, value: fromRestCreated(response.body) };
    },
    async get(key, orderId) {
      const response = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });
      if (response.status !== 200) return { ok: false, failure: restFailure(response) };
      return { ok: true, value: fromRestFull(response.body) };
    },
    async cancel(key, orderId) {
      const response = await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key });
      if (response.status !== 200) return { ok: false, failure: restFailure(response) };
      expect(response.body).toEqual({ message: 'Transaction cancelled successfully' });
      return { ok: true, value: undefined };
    },
    async list(key, filter) {
      const query = new URLSearchParams();
      const names: Record<keyof ListFilter, string> = {
        status: 'status',
        paymentMethod: 'payment_method',
        customerPhone: 'customer_phone',
        minAmount: 'min_amount',
        maxAmount: 'max_amount',
        startDate: 'start_date',
        endDate: 'end_date',
        isEscrow: 'is_escrow',
        isMerchant: 'is_merchant',
        includeDeleted: 'include_deleted',
        search: 'search',
        page: 'page',
        limit: 'limit',
      };
      for (const [name, value] of Object.entries(filter)) {
        if (value !== undefined) query.set(names[name as keyof ListFilter], String(value));
      }
      const qs = query.toString();
      const response = await gateway.rest('GET', `/api/v2/transactions${qs ? `?${qs}` : ''}`, { key });
      if (response.status !== 200) return { ok: false, failure: restFailure(response) };
      const p = response.body.pagination;
      return {
        ok: true,
        value: {
          transactions: response.body.transactions.map(fromRestFull),
          pagination: { page: p.page, limit: p.limit, totalCount: p.total_count, totalPages: p.total_pages },
        },
      };
    },
  };

  // The answer stays `any`: the surfaces map every operation's field the same way, by its name.
  async function graphqlCall(field: string, document: TypedDocumentNode<any, any>, variables: Record<string, unknown>, key: string): Promise<Outcome<any>> {
    const response = await graphqlTyped(gateway, document, variables, key);
    if (response.body?.errors) return { ok: false, failure: graphqlFailure(response, field) };
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return { ok: true, value: response.body.data[field] };
  }

  const graphqlSurface: Surface = {
    name: 'graphql',
    async create(key, body) {
      const outcome = await graphqlCall('createTransaction', CREATE, { input: graphqlInputOf(body) }, key);
      if (!outcome.ok) return outcome;
      const transaction = fromGraphqlFull(outcome.value.transaction);
      return { ok: true, value: { orderId: transaction.orderId, checkoutUrl: outcome.value.checkoutUrl, view: createdViewOf(transaction) } };
    },
    async get(key, orderId) {
      const outcome = await graphqlCall('transaction', GET, { orderId }, key);
      return outcome.ok ? { ok: true, value: fromGraphqlFull(outcome.value) } : outcome;
    },
    async cancel(key, orderId) {
      const outcome = await graphqlCall('cancelTransaction', CANCEL, { orderId }, key);
      if (!outcome.ok) return outcome;
      expect(outcome.value).toMatchObject({ orderId, status: 'cancelled', isDeleted: true });
      return { ok: true, value: undefined };
    },
    async list(key, { page, limit, ...filter }) {
      const outcome = await graphqlCall('transactions', LIST, defined({ filter, page, limit }), key);
      if (!outcome.ok) return outcome;
      return { ok: true, value: { transactions: outcome.value.transactions.map(fromGraphqlFull), pagination: outcome.value.pagination } };
    },
  };

  const newMerchant = async (options: MerchantOptions = {}): Promise<Merchant> => {
    const { organization, key } = await gateway.merchant(options);
    return { organizationId: organization.id, key };
  };

  return { surfaces: [restSurface, graphqlSurface] as const, rest: restSurface, graphql: graphqlSurface, newMerchant };
}
