/**
 * REST v2 and GraphQL as two "surfaces" of the same transaction operations, for parity tests:
 * each call returns an Outcome in one canonical vocabulary (GraphQL's names, null for absent), so
 * a scenario is written once and run through both. Later capabilities (refunds, payouts) add
 * their calls here.
 *
 * For errors: REST status == GraphQL extensions.status, REST body.error == GraphQL message, and
 * GraphQL extensions.code is the catalogue's graphqlCode.
 */
import { expect } from 'vitest';
import type { MerchantOptions, TestGateway } from './gateway.js';

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
export type CreatedView = Pick<CanonicalTransaction, 'orderId' | 'amount' | 'methodOfPayment' | 'currency' | 'status' | 'isEscrow' | 'isMerchant' | 'createdAt'> & {
  customer: CanonicalTransaction['customer'];
};

export interface Created {
  orderId: string;
  checkoutUrl: string;
  view: CreatedView;
}

export interface Pagination {
  page: number;
  limit: number;
  totalCount: number;
  totalPages: number;
}

export interface Listed {
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

const emptyToNull = (value: string | null | undefined): string | null => (value === '' || value === undefined ? null : value);

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

function restFailure(response: { status: number; body: any }): Failure {
  expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
  // The v2 error shape is exactly { error }.
  expect(Object.keys(response.body ?? {}), JSON.stringify(response.body)).toEqual(['error']);
  return { status: response.status, message: response.body.error };
}


const TRANSACTION_FIELDS = `
  orderId amount fees methodOfPayment selectedPaymentMethod currency status
  customer { firstName lastName phone createdAt }
  products { name price quantity description }
  isEscrow isMerchant feesCustomerSide successUrl errorUrl isDeleted createdAt updatedAt paidAt
`;

const CREATE = `mutation Create($input: CreateTransactionInput!) {
  createTransaction(input: $input) { checkoutUrl transaction { ${TRANSACTION_FIELDS} } }
}`;
const GET = `query Get($orderId: ID!) { transaction(orderId: $orderId) { ${TRANSACTION_FIELDS} } }`;
const CANCEL = `mutation Cancel($orderId: ID!) { cancelTransaction(orderId: $orderId) { ${TRANSACTION_FIELDS} } }`;
const LIST = `query List($filter: TransactionFilter, $page: Int, $limit: Int) {
  transactions(filter: $filter, page: $page, limit: $limit) {
    transactions { ${TRANSACTION_FIELDS} }
    pagination { page limit totalCount totalPages }
  }
}`;

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
function graphqlFailure(response: { status: number; body: any }, field: string): Failure {
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

  async function graphqlCall(field: string, query: string, variables: Record<string, unknown>, key: string): Promise<Outcome<any>> {
    const response = await gateway.graphql(query, variables, key);
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

// ---------------------------------------------------------------------------------------------
// REST v1 beside REST v2 and GraphQL (test/parity/rest-v1.parity.test.ts). v1's vocabulary is the
// narrowest (one method, no customer, a delete that cancels or refunds), so scenarios are written
// in it and each surface spells them its own way.
// ---------------------------------------------------------------------------------------------

/** A transaction request every surface can express. */
export interface PortableTransaction {
  method: 'wave' | 'orange_money';
  products: { name: string; price: number; quantity: number; description?: string }[];
  successUrl?: string;
  errorUrl?: string;
  feesCustomerSide?: boolean;
  isEscrow?: boolean;
  isMerchant?: boolean;
}

/** A payout request every surface can express (v1: `full_name` = first + last name). */
export interface PortablePayout {
  method: 'wave' | 'orange_money';
  amount: number;
  firstName: string;
  lastName: string;
  phone: string;
}

/** What v1's delete does to this transaction in v2's words: cancel it (pending) or refund it (paid). */
export type DeleteTwin = 'cancel' | 'refund';

/**
 * A transaction as every surface reads it back, in the vocabulary all three share (v1's): ONE
 * method (lowercase here), no customer, products priced by unit (v1 `amount` = v2 `price`), and
 * null for "absent" (v1 and v2 write it as '').
 */
export type PortableTransactionRead = Omit<CanonicalTransaction, 'methodOfPayment' | 'selectedPaymentMethod' | 'customer'> & {
  method: PortableTransaction['method'];
};

/** The list filters of v1's get-transactions, in the domain's names; each surface spells them its own way. */
export interface PortableListFilter {
  status?: string;
  /** Exactly this amount: v1 `amount`, v2 and GraphQL a range whose two ends are this amount. */
  amount?: number;
  createdAtStart?: string;
  createdAtEnd?: string;
  page?: number;
  limit?: number;
  /**
   * The method paid with: v2 and GraphQL only. v1 has no such filter, so its `list` refuses one
   * instead of answering an unfiltered list a parity test would mistake for a filtered one.
   */
  paymentMethod?: PortableTransaction['method'];
}

export interface MoneySurface {
  name: 'v1' | 'v2' | 'graphql';
  create(key: string, request: PortableTransaction, idempotencyKey?: string): Promise<Outcome<{ orderId: string; amount: number; status: string }>>;
  /** v1: GET /transaction/get-one-transaction?order_id=; v2: GET /transactions/{order_id}; GraphQL: transaction. */
  getOne(key: string, orderId: string): Promise<Outcome<PortableTransactionRead>>;
  /** One page, newest first. v1: GET /transaction/get-transactions; v2: GET /transactions; GraphQL: transactions. */
  list(key: string, filter: PortableListFilter): Promise<Outcome<PortableTransactionRead[]>>;
  /** v1: DELETE /transaction/delete-transaction; v2 and GraphQL: the twin operation. */
  remove(key: string, orderId: string, twin: DeleteTwin): Promise<Outcome<void>>;
  payout(key: string, request: PortablePayout, idempotencyKey?: string): Promise<Outcome<{ amount: number; status: string; phone: string }>>;
  /** The main account: its id and balance. */
  mainAccount(key: string): Promise<Outcome<{ id: string; balance: number }>>;
}

function v1Failure(response: { status: number; body: any }): Failure {
  expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
  // The v1 error shape is exactly { Detail }.
  expect(Object.keys(response.body ?? {}), JSON.stringify(response.body)).toEqual(['Detail']);
  return { status: response.status, message: response.body.Detail };
}

/** The fields v1 and v2 spell alike (snake_case). */
const restOptionsOf = (request: PortableTransaction) => ({
  success_url: request.successUrl,
  error_url: request.errorUrl,
  fees_customer_side: request.feesCustomerSide,
  is_escrow: request.isEscrow,
  is_merchant: request.isMerchant,
});

/**
 * A GraphQL call as an Outcome (the same steps as transactionSurfaces' own graphqlCall, which
 * could call this one).
 */
async function graphqlOutcome(gateway: TestGateway, field: string, query: string, variables: Record<string, unknown>, key: string): Promise<Outcome<any>> {
  const response = await gateway.graphql(query, variables, key);
  if (response.body?.errors) return { ok: false, failure: graphqlFailure(response, field) };
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { ok: true, value: response.body.data[field] };
}

const idempotencyHeader = (idempotencyKey?: string): Record<string, string> => (idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});

/** v1's uppercase method names (openapi/v1.yaml); anything else is a v1 answer this layer does not understand. */
const FROM_V1_METHOD: Record<string, PortableTransaction['method']> = { WAVE: 'wave', ORANGE_MONEY: 'orange_money' };

function fromV1Method(name: string): PortableTransaction['method'] {
  const method = FROM_V1_METHOD[name];
  if (!method) throw new Error(`unknown v1 method_of_payment ${JSON.stringify(name)}`);
  return method;
}

/** A v1 get-one-transaction answer or get-transactions item. */
function fromV1Read(t: any): PortableTransactionRead {
  // is_done has no v2 or GraphQL field to compare with: check it against the status it stands for.
  expect(t.is_done, `is_done of a ${t.transaction_status} transaction`).toBe(t.transaction_status !== 'pending');
  return {
    orderId: t.order_id,
    amount: t.amount,
    fees: t.fees,
    currency: t.currency,
    status: t.transaction_status,
    method: fromV1Method(t.method_of_payment),
    products: t.products.map((p: any) => ({ name: p.name, price: p.amount, quantity: p.quantity, description: emptyToNull(p.description) })),
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

/**
 * v2's and GraphQL's view in v1's words. v1 shows one method: the one paid with, else the first
 * offered (openapi/v1.yaml, "Differences from v2").
 */
function portableReadOf(t: CanonicalTransaction): PortableTransactionRead {
  const { customer: _customer, methodOfPayment, selectedPaymentMethod, ...common } = t;
  return { ...common, method: (selectedPaymentMethod ?? methodOfPayment[0]) as PortableTransaction['method'] };
}

/** The same filter in the words of transactionSurfaces' ListFilter (v2 and GraphQL). */
const listFilterOf = (filter: PortableListFilter): ListFilter =>
  defined({
    status: filter.status,
    paymentMethod: filter.paymentMethod,
    minAmount: filter.amount,
    maxAmount: filter.amount,
    startDate: filter.createdAtStart,
    endDate: filter.createdAtEnd,
    page: filter.page,
    limit: filter.limit,
  });

const mapOutcome = <T, U>(outcome: Outcome<T>, map: (value: T) => U): Outcome<U> => (outcome.ok ? { ok: true, value: map(outcome.value) } : outcome);

/** REST v1, REST v2 and GraphQL over one running gateway, for the operations v1 has. */
export function moneySurfaces(gateway: TestGateway) {
  // v2's and GraphQL's reads are transactionSurfaces' own, seen through PortableTransactionRead.
  const { rest: restReads, graphql: graphqlReads } = transactionSurfaces(gateway);

  const v1: MoneySurface = {
    name: 'v1',
    async create(key, request, idempotencyKey) {
      const body = defined({
        method_of_payment: request.method.toUpperCase(),
        products: request.products.map((p) => defined({ name: p.name, amount: p.price, quantity: p.quantity, description: p.description })),
        ...restOptionsOf(request),
      });
      const response = await gateway.rest('POST', '/api/v1/transaction/create-transaction', { key, body, headers: idempotencyHeader(idempotencyKey) });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      return { ok: true, value: { orderId: response.body.order_id, amount: response.body.amount, status: response.body.transaction_status } };
    },
    async remove(key, orderId, twin) {
      const response = await gateway.rest('DELETE', '/api/v1/transaction/delete-transaction', { key, body: { order_id: orderId } });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      expect(response.body).toEqual({ order_id: orderId, message: twin === 'cancel' ? 'Transaction cancelled successfully' : 'Transaction refunded successfully' });
      return { ok: true, value: undefined };
    },
    async payout(key, request, idempotencyKey) {
      const route = request.method === 'wave' ? 'wave' : 'orange-money';
      const body = { full_name: `${request.firstName} ${request.lastName}`, amount: request.amount, phone_number: request.phone };
      const response = await gateway.rest('POST', `/api/v1/cashout/${route}`, { key, body, headers: idempotencyHeader(idempotencyKey) });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      expect(response.body.full_name).toBe(body.full_name);
      return { ok: true, value: { amount: response.body.amount, status: response.body.status, phone: response.body.phone_number } };
    },
    async getOne(key, orderId) {
      const response = await gateway.rest('GET', `/api/v1/transaction/get-one-transaction?${new URLSearchParams({ order_id: orderId })}`, { key });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      return { ok: true, value: fromV1Read(response.body) };
    },
    async list(key, filter) {
      if (filter.paymentMethod !== undefined) throw new Error('v1 get-transactions has no payment-method filter');
      const names: Record<Exclude<keyof PortableListFilter, 'paymentMethod'>, string> = {
        status: 'transaction_status',
        amount: 'amount',
        createdAtStart: 'created_at_start',
        createdAtEnd: 'created_at_end',
        page: 'page',
        limit: 'limit',
      };
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(filter)) {
        if (value !== undefined) query.set(names[name as keyof typeof names], String(value));
      }
      const qs = query.toString();
      const response = await gateway.rest('GET', `/api/v1/transaction/get-transactions${qs ? `?${qs}` : ''}`, { key });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      // v1's list is exactly {transactions}: no pagination object (openapi/v1.yaml TransactionList).
      expect(Object.keys(response.body)).toEqual(['transactions']);
      return { ok: true, value: response.body.transactions.map(fromV1Read) };
    },
    async mainAccount(key) {
      const response = await gateway.rest('GET', '/api/v1/account', { key });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      return { ok: true, value: { id: response.body.account_number, balance: response.body.balance } };
    },
  };

  const v2: MoneySurface = {
    name: 'v2',
    async create(key, request, idempotencyKey) {
      const body = defined({ method_of_payment: [request.method], products: request.products, ...restOptionsOf(request) });
      const response = await gateway.rest('POST', '/api/v2/transactions', { key, body, headers: idempotencyHeader(idempotencyKey) });
      if (response.status !== 200) return { ok: false, failure: restFailure(response) };
      return { ok: true, value: { orderId: response.body.order_id, amount: response.body.amount, status: response.body.transaction_status } };
    },
    async remove(key, orderId, twin) {
      const response =
        twin === 'cancel' ? await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key }) : await gateway.rest('GET', `/api/v2/refund/${orderId}`, { key });
      return response.status === 200 ? { ok: true, value: undefined } : { ok: false, failure: restFailure(response) };
    },
    async payout(key, request, idempotencyKey) {
      const body = { selected_payment_method: request.method, amount: request.amount, recipient: { first_name: request.firstName, last_name: request.lastName, phone: request.phone } };
      const response = await gateway.rest('POST', '/api/v2/payouts', { key, body, headers: idempotencyHeader(idempotencyKey) });
      if (response.status !== 200) return { ok: false, failure: restFailure(response) };
      return { ok: true, value: { amount: response.body.amount, status: response.body.payout_status, phone: response.body.recipient.phone } };
    },
    getOne: async (key, orderId) => mapOutcome(await restReads.get(key, orderId), portableReadOf),
    list: async (key, filter) => mapOutcome(await restReads.list(key, listFilterOf(filter)), (listed) => listed.transactions.map(portableReadOf)),
    async mainAccount(key) {
      const response = await gateway.rest('GET', '/api/v2/accounts', { key });
      if (response.status !== 200) return { ok: false, failure: restFailure(response) };
      const main = response.body.find((account: any) => account.name === 'main');
      return { ok: true, value: { id: main.id, balance: main.balance } };
    },
  };

  const graphqlCall = (field: string, query: string, variables: Record<string, unknown>, key: string) => graphqlOutcome(gateway, field, query, variables, key);

  const graphql: MoneySurface = {
    name: 'graphql',
    async create(key, request, idempotencyKey) {
      const input = defined({
        methodOfPayment: [request.method],
        products: request.products.map((p) => defined({ ...p })),
        successUrl: request.successUrl,
        errorUrl: request.errorUrl,
        feesCustomerSide: request.feesCustomerSide,
        isEscrow: request.isEscrow,
        isMerchant: request.isMerchant,
      });
      const mutation = `mutation ($input: CreateTransactionInput!, $key: String) { createTransaction(input: $input, idempotencyKey: $key) { transaction { orderId amount status } } }`;
      const outcome = await graphqlCall('createTransaction', mutation, defined({ input, key: idempotencyKey }), key);
      return outcome.ok ? { ok: true, value: outcome.value.transaction } : outcome;
    },
    async remove(key, orderId, twin) {
      const field = twin === 'cancel' ? 'cancelTransaction' : 'refundTransaction';
      const outcome = await graphqlCall(field, `mutation ($orderId: ID!) { ${field}(orderId: $orderId) { orderId } }`, { orderId }, key);
      return outcome.ok ? { ok: true, value: undefined } : outcome;
    },
    async payout(key, request, idempotencyKey) {
      const input = { selectedPaymentMethod: request.method, amount: request.amount, recipient: { firstName: request.firstName, lastName: request.lastName, phone: request.phone } };
      const mutation = `mutation ($input: CreatePayoutInput!, $key: String) { createPayout(input: $input, idempotencyKey: $key) { amount status recipient { phone } } }`;
      const outcome = await graphqlCall('createPayout', mutation, defined({ input, key: idempotencyKey }), key);
      return outcome.ok ? { ok: true, value: { amount: outcome.value.amount, status: outcome.value.status, phone: outcome.value.recipient.phone } } : outcome;
    },
    getOne: async (key, orderId) => mapOutcome(await graphqlReads.get(key, orderId), portableReadOf),
    list: async (key, filter) => mapOutcome(await graphqlReads.list(key, listFilterOf(filter)), (listed) => listed.transactions.map(portableReadOf)),
    async mainAccount(key) {
      const outcome = await graphqlCall('accounts', `{ accounts { id name balance } }`, {}, key);
      if (!outcome.ok) return outcome;
      const main = outcome.value.find((account: any) => account.name === 'main');
      return { ok: true, value: { id: main.id, balance: main.balance } };
    },
  };

  return { surfaces: [v1, v2, graphql] as const, v1, v2, graphql };
}

/**
 * An organisation's rows, without what differs between two organisations (ids, instants, its own
 * order ids in URLs): transactions with their products, ledger entries (by account name), refunds
 * and payouts, and the balances. Two organisations that lived the same scenario have equal ones.
 */
export async function organizationRows(gateway: TestGateway, organizationId: string) {
  const db = gateway.ctx.db;
  const transactions = await db.transaction.findMany({ where: { organizationId }, include: { products: { orderBy: { position: 'asc' } } }, orderBy: [{ amount: 'asc' }, { createdAt: 'asc' }] });
  const payouts = await db.payout.findMany({ where: { organizationId }, orderBy: [{ amount: 'asc' }, { createdAt: 'asc' }] });
  const accounts = await db.account.findMany({ where: { organizationId }, orderBy: { name: 'asc' } });
  const entries = await db.ledgerEntry.findMany({ where: { account: { organizationId } }, include: { account: true }, orderBy: [{ createdAt: 'asc' }, { amount: 'asc' }] });
  const refunds = await db.refund.findMany({ where: { organizationId }, orderBy: { amount: 'asc' } });
  const set = (value: Date | null) => value !== null;
  return {
    transactions: transactions.map((t) => ({
      amount: t.amount,
      fees: t.fees,
      methodOfPayment: t.methodOfPayment,
      selectedPaymentMethod: t.selectedPaymentMethod,
      status: t.status,
      isDeleted: t.isDeleted,
      customer: [t.customerFirstName, t.customerLastName, t.customerPhone],
      flags: [t.isEscrow, t.isMerchant, t.feesCustomerSide],
      urls: [t.successUrl, t.errorUrl].map((url) => url?.split(t.id).join(':order_id') ?? null),
      instants: { paid: set(t.paidAt), refunded: set(t.refundedAt), cancelled: set(t.cancelledAt) },
      products: t.products.map((p) => ({ name: p.name, price: p.price, quantity: p.quantity, description: p.description })),
    })),
    payouts: payouts.map((p) => ({
      method: p.selectedPaymentMethod,
      amount: p.amount,
      fees: p.fees,
      recipient: [p.recipientFirstName, p.recipientLastName, p.recipientPhone],
      status: p.status,
      reason: p.reason,
      sent: set(p.sentAt),
      paid: set(p.paidAt),
    })),
    refunds: refunds.map((r) => ({ amount: r.amount, method: r.method, status: r.status })),
    ledger: entries.map((e) => ({ account: e.account?.name, kind: e.kind, amount: e.amount, balanceAfter: e.balanceAfter, onTransaction: e.transactionId !== null, onPayout: e.payoutId !== null })),
    balances: Object.fromEntries(accounts.map((account) => [account.name, account.balance])),
  };
}
