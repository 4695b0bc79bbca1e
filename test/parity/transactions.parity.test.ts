/**
 * REST v2 and GraphQL are two thin adapters over the same domain operations: the same input must
 * give the same outcome through both. Every scenario below is written once against a `Surface`
 * (create / get / cancel / list) and run through REST and through GraphQL, each on its own fresh
 * organisation; the outcomes are normalised (snake_case REST vs camelCase GraphQL, '' vs null)
 * and compared.
 *
 * For errors: REST status == GraphQL extensions.status, REST body.error == GraphQL message, and
 * GraphQL extensions.code is the catalogue's graphqlCode; both equal what the catalogue says.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError, ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errors.js';
import { setSwitch } from '../../src/domain/operations/index.js';
import { startGateway, transactionBody, type MerchantOptions, type TestGateway } from '../support/gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway?.close());

// ---------------------------------------------------------------------------------------------
// The normalised view of a transaction: GraphQL's names, nulls for "absent".
// ---------------------------------------------------------------------------------------------

interface CanonicalTransaction {
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
type CreatedView = Pick<CanonicalTransaction, 'orderId' | 'amount' | 'methodOfPayment' | 'currency' | 'status' | 'isEscrow' | 'isMerchant' | 'createdAt'> & {
  customer: CanonicalTransaction['customer'];
};

interface Created {
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
interface Failure {
  /** REST: the HTTP status. GraphQL: extensions.status. */
  status: number;
  message: string;
  /** GraphQL only: extensions.code. */
  code?: string;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; failure: Failure };

/** Filters in the domain's (camelCase) names; each surface spells them its own way. */
interface ListFilter {
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

interface Surface {
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

function createdViewOf(t: CanonicalTransaction): CreatedView {
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

const defined = <T extends Record<string, unknown>>(object: T): T =>
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

const SURFACES = [restSurface, graphqlSurface] as const;

function must<T>(outcome: Outcome<T>, what: string): T {
  if (!outcome.ok) throw new Error(`${what} failed: ${JSON.stringify(outcome.failure)}`);
  return outcome.value;
}

function failureOf(outcome: Outcome<unknown>, surface: string): Failure {
  if (outcome.ok) throw new Error(`${surface}: expected a refusal, got success: ${JSON.stringify(outcome.value)}`);
  return outcome.failure;
}

interface Merchant {
  organizationId: string;
  key: string;
}

const newMerchant = async (options: MerchantOptions = {}): Promise<Merchant> => {
  const { organization, key } = await gateway.merchant(options);
  return { organizationId: organization.id, key };
};

/** What cannot be equal between two transactions of two organisations: ids and instants. */
function comparable(t: CanonicalTransaction) {
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

const product = (name: string, price: number, quantity = 1, description?: string) => defined({ name, price, quantity, description });

// ---------------------------------------------------------------------------------------------
// Success: the same request creates the same transaction through both.
// ---------------------------------------------------------------------------------------------

interface SuccessScenario {
  name: string;
  merchant?: MerchantOptions;
  body: Record<string, unknown>;
  /** What the transaction must be (on both surfaces). */
  expected: Partial<ReturnType<typeof comparable>>;
}

const successScenarios: SuccessScenario[] = [
  {
    name: 'the standard request',
    body: transactionBody(),
    expected: {
      amount: 3000,
      fees: 0,
      status: 'pending',
      currency: 'XOF',
      methodOfPayment: ['wave', 'orange_money'],
      selectedPaymentMethod: null,
      customer: { firstName: 'Awa', lastName: 'Diop', phone: '+221771234567' },
      products: [{ name: 'Bissap juice', price: 1500, quantity: 2, description: '1 L bottle' }],
      isEscrow: false,
      isMerchant: false,
      feesCustomerSide: false,
      successUrl: 'https://shop.example.sn/merci',
      errorUrl: 'https://shop.example.sn/erreur',
      paid: false,
    },
  },
  {
    name: 'a minimal request (no customer, no URLs, no description): default redirect pages',
    body: { method_of_payment: ['wave'], products: [product('Ticket', 500)] },
    expected: {
      amount: 500,
      methodOfPayment: ['wave'],
      customer: { firstName: null, lastName: null, phone: null },
      products: [{ name: 'Ticket', price: 500, quantity: 1, description: null }],
      successUrl: `${'CHECKOUT'}/checkout/:order_id/success`,
      errorUrl: `${'CHECKOUT'}/checkout/:order_id/error`,
    },
  },
  {
    name: 'escrow, merchant and customer-side fees on an escrow-enabled organisation',
    merchant: { escrowEnabled: true },
    body: transactionBody({ is_escrow: true, is_merchant: true, fees_customer_side: true }),
    expected: { amount: 3000, isEscrow: true, isMerchant: true, feesCustomerSide: true },
  },
  {
    name: 'several products, repeated methods, a phone with spaces',
    body: transactionBody({
      method_of_payment: ['orange_money', 'wave', 'orange_money'],
      products: [product('Thiakry', 750, 3, 'Pot'), product('Mafé', 4000, 1), product('Eau', 11, 2)],
      customer: { first_name: 'Moussa', last_name: 'Ndiaye', phone: '+221 77 123-45-67' },
    }),
    expected: {
      amount: 750 * 3 + 4000 + 22,
      methodOfPayment: ['orange_money', 'wave'],
      customer: { firstName: 'Moussa', lastName: 'Ndiaye', phone: '+221771234567' },
      products: [
        { name: 'Thiakry', price: 750, quantity: 3, description: 'Pot' },
        { name: 'Mafé', price: 4000, quantity: 1, description: null },
        { name: 'Eau', price: 11, quantity: 2, description: null },
      ],
    },
  },
  {
    name: 'a total of exactly the organisation limits (min = max = total)',
    merchant: { update: { minTransactionAmount: 3000, maxTransactionAmount: 3000 } },
    body: transactionBody(),
    expected: { amount: 3000 },
  },
  {
    name: 'a total of 11 XOF (just above the minimum)',
    body: transactionBody({ products: [product('Bonbon', 11)] }),
    expected: { amount: 11 },
  },
  {
    name: 'an organisation allowed one method, asked for that method',
    merchant: { allowedMethods: ['orange_money'] },
    body: transactionBody({ method_of_payment: ['orange_money'] }),
    expected: { methodOfPayment: ['orange_money'] },
  },
  {
    name: 'a verified organisation above the unverified monthly limit',
    merchant: { verified: true },
    body: transactionBody({ products: [product('Moto', 250_000)] }),
    expected: { amount: 250_000 },
  },
];

describe('success parity: the same request gives the same transaction', () => {
  it.each(successScenarios)('$name', async ({ merchant: merchantOptions, body, expected }) => {
    const results: Record<string, { merchant: Merchant; created: Created; full: CanonicalTransaction }> = {};
    for (const surface of SURFACES) {
      const merchant = await newMerchant(merchantOptions);
      const created = must(await surface.create(merchant.key, body), `${surface.name} create`);
      expect(created.checkoutUrl, surface.name).toBe(`${gateway.checkoutUrl}/checkout/${created.orderId}`);
      const full = must(await surface.get(merchant.key, created.orderId), `${surface.name} get`);
      // The create answer agrees with what is stored.
      expect(created.view, `${surface.name}: create answer vs get`).toEqual(createdViewOf(full));
      results[surface.name] = { merchant, created, full };
    }
    const rest = results.rest!;
    const graphql = results.graphql!;

    // The two transactions are the same (but for ids and instants).
    expect(comparable(graphql.full)).toEqual(comparable(rest.full));
    const withCheckout = JSON.parse(JSON.stringify(expected).split('CHECKOUT').join(gateway.checkoutUrl));
    expect(comparable(rest.full)).toMatchObject(withCheckout);

    // Each transaction reads the same through the other surface too (one record, two renderings).
    for (const { merchant, full } of [rest, graphql]) {
      const viaRest = must(await restSurface.get(merchant.key, full.orderId), 'cross get (rest)');
      const viaGraphql = must(await graphqlSurface.get(merchant.key, full.orderId), 'cross get (graphql)');
      expect(viaGraphql).toEqual(viaRest);
    }
  });

  it('cancelling gives the same cancelled transaction through both', async () => {
    const cancelled: CanonicalTransaction[] = [];
    for (const surface of SURFACES) {
      const merchant = await newMerchant();
      const created = must(await surface.create(merchant.key, transactionBody()), 'create');
      must(await surface.cancel(merchant.key, created.orderId), `${surface.name} cancel`);
      const viaRest = must(await restSurface.get(merchant.key, created.orderId), 'get (rest)');
      const viaGraphql = must(await graphqlSurface.get(merchant.key, created.orderId), 'get (graphql)');
      expect(viaGraphql).toEqual(viaRest);
      cancelled.push(viaRest);
    }
    expect(cancelled[0]!.status).toBe('cancelled');
    expect(comparable(cancelled[1]!)).toEqual(comparable(cancelled[0]!));
  });

  it('an inactive organisation still reads (get and list) through both', async () => {
    const merchant = await newMerchant();
    const created = must(await restSurface.create(merchant.key, transactionBody()), 'create');
    await gateway.ctx.db.organization.update({ where: { id: merchant.organizationId }, data: { status: 'inactive' } });
    const viaRest = must(await restSurface.get(merchant.key, created.orderId), 'get (rest)');
    const viaGraphql = must(await graphqlSurface.get(merchant.key, created.orderId), 'get (graphql)');
    expect(viaGraphql).toEqual(viaRest);
    const listRest = must(await restSurface.list(merchant.key, {}), 'list (rest)');
    const listGraphql = must(await graphqlSurface.list(merchant.key, {}), 'list (graphql)');
    expect(listGraphql).toEqual(listRest);
    expect(listRest.transactions.map((t) => t.orderId)).toEqual([created.orderId]);
  });
});

// ---------------------------------------------------------------------------------------------
// Errors: every refusal is the same refusal through both.
// ---------------------------------------------------------------------------------------------

interface ErrorScenario {
  name: string;
  code: ErrorCode;
  detail?: string;
  merchant?: MerchantOptions;
  /** Prepares what it needs (through the same surface or the database) and makes the refused call. */
  act(surface: Surface, merchant: Merchant): Promise<Outcome<unknown>>;
}

const create = (body: Record<string, unknown>) => (surface: Surface, merchant: Merchant) => surface.create(merchant.key, body);

/** A transaction of this merchant, created through the surface under test, then moved to `status` in the database. */
async function transactionIn(surface: Surface, merchant: Merchant, status?: 'paid' | 'paid_and_blocked' | 'refunded'): Promise<string> {
  const { orderId } = must(await surface.create(merchant.key, transactionBody()), `${surface.name} create`);
  if (status) {
    await gateway.ctx.db.transaction.update({ where: { id: orderId }, data: { status, selectedPaymentMethod: 'wave', paidAt: new Date() } });
  }
  return orderId;
}

/** Another organisation's transaction. */
async function foreignTransaction(surface: Surface): Promise<string> {
  return transactionIn(surface, await newMerchant());
}

const errorScenarios: ErrorScenario[] = [
  // POST /transactions: request rules
  { name: 'no payment method ([])', code: 'no_payment_method', act: create(transactionBody({ method_of_payment: [] })) },
  { name: 'no product ([])', code: 'no_product', act: create(transactionBody({ products: [] })) },
  { name: 'total of 10 (price 10 x 1)', code: 'invalid_total', act: create(transactionBody({ products: [product('Bonbon', 10)] })) },
  { name: 'total of 10 (price 5 x 2)', code: 'invalid_total', act: create(transactionBody({ products: [product('Bonbon', 5, 2)] })) },
  { name: 'total of 0 (free product)', code: 'invalid_total', act: create(transactionBody({ products: [product('Gift', 0)] })) },
  { name: 'zero quantity', code: 'invalid_total', act: create(transactionBody({ products: [product('Mafé', 4000, 0)] })) },
  { name: 'negative quantity', code: 'invalid_total', act: create(transactionBody({ products: [product('Mafé', 4000, 1), product('Refund', 100, -1)] })) },
  { name: 'invalid success url', code: 'invalid_url', act: create(transactionBody({ success_url: 'not a url' })) },
  { name: 'non-http error url', code: 'invalid_url', act: create(transactionBody({ error_url: 'ftp://shop.example.sn/erreur' })) },
  { name: 'percent-encoded url', code: 'encoded_url', act: create(transactionBody({ success_url: 'https://shop.example.sn/merci%20beaucoup' })) },
  { name: 'invalid phone', code: 'invalid_phone', act: create(transactionBody({ customer: { first_name: 'Awa', phone: '77 123' } })) },
  { name: 'blank product name', code: 'invalid_request_body', detail: 'products[0].name is required', act: create(transactionBody({ products: [product('  ', 100)] })) },
  {
    name: 'negative price',
    code: 'invalid_request_body',
    detail: 'products[1].price must be a non-negative integer',
    act: create(transactionBody({ products: [product('Mafé', 4000), product('Discount', -500)] })),
  },
  {
    name: 'too many products',
    code: 'invalid_request_body',
    detail: 'at most 100 products',
    act: create(transactionBody({ products: Array.from({ length: 101 }, (_, i) => product(`Item ${i}`, 100)) })),
  },
  {
    name: 'description too long',
    code: 'invalid_request_body',
    detail: 'products[0].description is longer than 1000 characters',
    act: create(transactionBody({ products: [product('Mafé', 4000, 1, 'x'.repeat(1001))] })),
  },

  // POST /transactions: organisation rules
  { name: 'escrow not enabled', code: 'escrow_not_enabled', act: create(transactionBody({ is_escrow: true })) },
  {
    name: 'method not allowed for the organisation',
    code: 'method_not_allowed',
    detail: 'orange_money',
    merchant: { allowedMethods: ['wave'] },
    act: create(transactionBody({ method_of_payment: ['wave', 'orange_money'] })),
  },
  {
    name: 'amount below the organisation minimum',
    code: 'amount_out_of_limits',
    detail: 'the minimum is 5000 XOF',
    merchant: { update: { minTransactionAmount: 5000 } },
    act: create(transactionBody()),
  },
  {
    name: 'amount above the organisation maximum',
    code: 'amount_out_of_limits',
    detail: 'the maximum is 2999 XOF',
    merchant: { update: { maxTransactionAmount: 2999 } },
    act: create(transactionBody()),
  },
  {
    name: 'amount above the gateway maximum',
    code: 'amount_out_of_limits',
    detail: 'the maximum is 1000000000000 XOF',
    merchant: { verified: true },
    act: create(transactionBody({ products: [product('Airliner', 1_000_000_000_000, 2)] })),
  },
  {
    name: 'monthly limit of an unverified organisation',
    code: 'monthly_limit_reached',
    act: async (surface, merchant) => {
      must(await surface.create(merchant.key, transactionBody({ products: [product('Scooter', 150_000)] })), 'first transaction');
      return surface.create(merchant.key, transactionBody({ products: [product('Helmet', 50_001)] }));
    },
  },
  {
    name: 'business profile incomplete (no sector)',
    code: 'business_profile_incomplete',
    merchant: { businessSector: '' },
    act: create(transactionBody()),
  },
  {
    name: 'transactions switched off by the operator',
    code: 'transactions_disabled',
    act: async (surface, merchant) => {
      await setSwitch(gateway.ctx, gateway.operator, 'transactions', false);
      try {
        return await surface.create(merchant.key, transactionBody());
      } finally {
        await setSwitch(gateway.ctx, gateway.operator, 'transactions', true);
      }
    },
  },

  // GET / DELETE
  { name: 'get: unknown order id', code: 'transaction_not_found', act: (s, m) => s.get(m.key, randomUUID()) },
  { name: 'get: malformed order id', code: 'transaction_not_found', act: (s, m) => s.get(m.key, 'not-a-uuid') },
  { name: "get: another organisation's transaction", code: 'transaction_not_found', act: async (s, m) => s.get(m.key, await foreignTransaction(s)) },
  { name: 'cancel: unknown order id', code: 'transaction_not_found', act: (s, m) => s.cancel(m.key, randomUUID()) },
  { name: "cancel: another organisation's transaction", code: 'transaction_not_found', act: async (s, m) => s.cancel(m.key, await foreignTransaction(s)) },
  {
    name: 'cancel twice',
    code: 'already_deleted',
    act: async (s, m) => {
      const orderId = await transactionIn(s, m);
      must(await s.cancel(m.key, orderId), 'first cancel');
      return s.cancel(m.key, orderId);
    },
  },
  { name: 'cancel a paid transaction', code: 'cannot_delete_paid', act: async (s, m) => s.cancel(m.key, await transactionIn(s, m, 'paid')) },
  { name: 'cancel a transaction held in escrow', code: 'cannot_delete_paid', act: async (s, m) => s.cancel(m.key, await transactionIn(s, m, 'paid_and_blocked')) },
  { name: 'cancel a refunded transaction', code: 'cannot_delete_paid', act: async (s, m) => s.cancel(m.key, await transactionIn(s, m, 'refunded')) },

  // Lists: invalid queries reach the same domain rule
  { name: 'list: min amount above max amount', code: 'invalid_query', detail: 'min_amount is greater than max_amount', act: (s, m) => s.list(m.key, { minAmount: 5000, maxAmount: 100 }) },
  { name: 'list: page 0', code: 'invalid_query', detail: 'page must be an integer from 1 to 100000', act: (s, m) => s.list(m.key, { page: 0 }) },
  { name: 'list: limit 0', code: 'invalid_query', detail: 'limit must be a positive integer', act: (s, m) => s.list(m.key, { limit: 0 }) },
  { name: 'list: search too long', code: 'invalid_query', detail: 'search is longer than 100 characters', act: (s, m) => s.list(m.key, { search: 'a'.repeat(101) }) },

  // Access
  { name: 'permission denied: payout key creates', code: 'permission_denied', merchant: { scope: 'payout' }, act: create(transactionBody()) },
  { name: 'permission denied: read key creates', code: 'permission_denied', merchant: { scope: 'read' }, act: create(transactionBody()) },
  { name: 'permission denied: write key reads one', code: 'permission_denied', merchant: { scope: 'write' }, act: (s, m) => s.get(m.key, randomUUID()) },
  { name: 'permission denied: write key lists', code: 'permission_denied', merchant: { scope: 'write' }, act: (s, m) => s.list(m.key, {}) },
  { name: 'permission denied: read key cancels', code: 'permission_denied', merchant: { scope: 'read' }, act: (s, m) => s.cancel(m.key, randomUUID()) },
  { name: 'permission denied: management key cancels', code: 'permission_denied', merchant: { scope: 'management' }, act: (s, m) => s.cancel(m.key, randomUUID()) },
  {
    name: 'inactive organisation creates',
    code: 'organization_inactive',
    merchant: { update: { status: 'inactive' } },
    act: create(transactionBody()),
  },
  {
    name: 'inactive organisation cancels',
    code: 'organization_inactive',
    act: async (s, m) => {
      const orderId = await transactionIn(s, m);
      await gateway.ctx.db.organization.update({ where: { id: m.organizationId }, data: { status: 'inactive' } });
      return s.cancel(m.key, orderId);
    },
  },
  {
    name: 'inactive organisation with a key of the wrong scope writes (status before scope)',
    code: 'organization_inactive',
    merchant: { scope: 'read', update: { status: 'inactive' } },
    act: create(transactionBody()),
  },
  { name: 'blocked organisation creates', code: 'organization_blocked', merchant: { update: { status: 'blocked' } }, act: create(transactionBody()) },
  { name: 'blocked organisation reads one', code: 'organization_blocked', merchant: { update: { status: 'blocked' } }, act: (s, m) => s.get(m.key, randomUUID()) },
  { name: 'blocked organisation lists', code: 'organization_blocked', merchant: { update: { status: 'blocked' } }, act: (s, m) => s.list(m.key, {}) },
  { name: 'blocked organisation cancels', code: 'organization_blocked', merchant: { update: { status: 'blocked' } }, act: (s, m) => s.cancel(m.key, randomUUID()) },
  { name: 'unknown API key', code: 'invalid_api_key', act: (s) => s.list(`gw_sk_${'x'.repeat(43)}`, {}) },
  {
    name: 'revoked API key',
    code: 'invalid_api_key',
    act: async (s, m) => {
      await gateway.ctx.db.apiKey.updateMany({ where: { organizationId: m.organizationId }, data: { revokedAt: new Date() } });
      return s.create(m.key, transactionBody());
    },
  },
];

describe('error parity: the same refusal through both', () => {
  it('covers every domain error a merchant can meet on transactions', () => {
    const covered = new Set(errorScenarios.map((scenario) => scenario.code));
    const merchantTransactionErrors: ErrorCode[] = [
      'invalid_api_key',
      'organization_inactive',
      'permission_denied',
      'organization_blocked',
      'invalid_request_body',
      'invalid_query',
      'invalid_phone',
      'no_payment_method',
      'no_product',
      'invalid_total',
      'amount_out_of_limits',
      'invalid_url',
      'encoded_url',
      'escrow_not_enabled',
      'method_not_allowed',
      'monthly_limit_reached',
      'business_profile_incomplete',
      'transactions_disabled',
      'transaction_not_found',
      'cannot_delete_paid',
      'already_deleted',
    ];
    expect(merchantTransactionErrors.filter((code) => !covered.has(code))).toEqual([]);
  });

  it.each(errorScenarios)('$name → $code', async (scenario) => {
    const failures: Record<string, Failure> = {};
    for (const surface of SURFACES) {
      const merchant = await newMerchant(scenario.merchant);
      failures[surface.name] = failureOf(await scenario.act(surface, merchant), surface.name);
    }
    const rest = failures.rest!;
    const graphql = failures.graphql!;
    const expected = new DomainError(scenario.code, scenario.detail ?? '');

    expect(rest, 'REST v2').toEqual({ status: expected.status, message: expected.message });
    expect(graphql.status, 'GraphQL extensions.status vs REST status').toBe(rest.status);
    expect(graphql.message, 'GraphQL message vs REST body.error').toBe(rest.message);
    expect(graphql.code, 'GraphQL extensions.code vs catalogue').toBe(ERROR_CATALOGUE[scenario.code].graphqlCode);
  });

  it('a refused create leaves nothing behind on either surface', async () => {
    for (const surface of SURFACES) {
      const merchant = await newMerchant({ update: { minTransactionAmount: 5000 } });
      failureOf(await surface.create(merchant.key, transactionBody()), surface.name);
      expect(await gateway.ctx.db.transaction.count({ where: { organizationId: merchant.organizationId } })).toBe(0);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Lists: the same filters give the same transactions, in the same order.
// ---------------------------------------------------------------------------------------------

describe('list parity: the same filters give the same order ids in the same order', () => {
  let merchant: Merchant;
  /** Every transaction of the organisation, as stored. */
  let stored: { id: string; amount: number; status: string; isDeleted: boolean; isEscrow: boolean; isMerchant: boolean; createdAt: Date; firstName: string | null; lastName: string | null; phone: string | null; productNames: string[]; selected: string | null }[];
  let middle: Date;
  let anOrderId: string;

  beforeAll(async () => {
    merchant = await newMerchant({ verified: true, escrowEnabled: true });
    const bodies: Record<string, unknown>[] = [
      transactionBody(), // Awa Diop, Bissap juice, 3000
      transactionBody({ products: [product('Thiakry', 500)], customer: { first_name: 'Moussa', last_name: 'Ndiaye', phone: '+221781112233' } }),
      transactionBody({ products: [product('Mafé', 12_000)], customer: { first_name: 'Fatou', last_name: 'Sow', phone: '+221701234567' } }),
      transactionBody({ products: [product('Yassa', 8000, 2)], is_merchant: true, customer: { first_name: 'Awa', last_name: 'Fall' } }),
      transactionBody({ products: [product('Bissap syrup', 750, 4)], is_escrow: true, customer: { first_name: 'Ibrahima', last_name: 'BISSAPO' } }),
      transactionBody({ products: [product('Ceebu jën', 25_000)], customer: undefined }),
      transactionBody({ products: [product('Thiéboudienne', 4000)], customer: { first_name: 'Aminata', phone: '+221 77 999 88 77' } }),
    ];
    // And enough plain ones to need a second page of 20.
    for (let i = 0; i < 18; i++) bodies.push(transactionBody({ products: [product(`Article ${i}`, 100 + i * 100)], customer: { first_name: `Client${i}` } }));

    const ids: string[] = [];
    for (const [index, body] of bodies.entries()) {
      // Half through each surface: a list must not care how a transaction was made.
      const surface = SURFACES[index % 2]!;
      ids.push(must(await surface.create(merchant.key, body), `fixture ${index}`).orderId);
    }
    must(await restSurface.cancel(merchant.key, ids[1]!), 'cancel fixture 1');
    must(await graphqlSurface.cancel(merchant.key, ids[10]!), 'cancel fixture 10');
    const paid = (id: string, status: 'paid' | 'paid_and_blocked' | 'refunded', method: 'wave' | 'orange_money') =>
      gateway.ctx.db.transaction.update({ where: { id }, data: { status, selectedPaymentMethod: method, paidAt: new Date() } });
    await paid(ids[2]!, 'paid', 'wave');
    await paid(ids[5]!, 'refunded', 'wave');
    await paid(ids[6]!, 'paid_and_blocked', 'orange_money');
    await paid(ids[12]!, 'paid', 'orange_money');
    anOrderId = ids[3]!;

    const rows = await gateway.ctx.db.transaction.findMany({ where: { organizationId: merchant.organizationId }, include: { products: true } });
    stored = rows
      .map((row) => ({
        id: row.id,
        amount: Number(row.amount),
        status: row.status,
        isDeleted: row.isDeleted,
        isEscrow: row.isEscrow,
        isMerchant: row.isMerchant,
        createdAt: row.createdAt,
        firstName: row.customerFirstName,
        lastName: row.customerLastName,
        phone: row.customerPhone,
        productNames: row.products.map((p) => p.name),
        selected: row.selectedPaymentMethod,
      }))
      // Newest first, ties by id (the operation's order).
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    expect(stored).toHaveLength(bodies.length);
    middle = stored[Math.floor(stored.length / 2)]!.createdAt;
  });

  type Row = (typeof stored)[number];
  const visible = (t: Row) => !t.isDeleted;
  const has = (text: string) => (t: Row) =>
    [t.firstName, t.lastName, t.phone, ...t.productNames].some((value) => value?.toLowerCase().includes(text.toLowerCase()));

  interface ListCase {
    name: string;
    filter: () => ListFilter;
    /** Which stored transactions match (before paging). */
    matches: (t: Row) => boolean;
  }

  const cases: ListCase[] = [
    { name: 'no filter (first page of 20, cancelled hidden)', filter: () => ({}), matches: visible },
    { name: 'page 2 of 20', filter: () => ({ page: 2 }), matches: visible },
    { name: 'status pending', filter: () => ({ status: 'pending' }), matches: (t) => visible(t) && t.status === 'pending' },
    { name: 'status paid', filter: () => ({ status: 'paid' }), matches: (t) => t.status === 'paid' },
    { name: 'status cancelled (shown without includeDeleted)', filter: () => ({ status: 'cancelled' }), matches: (t) => t.status === 'cancelled' },
    { name: 'status refunded', filter: () => ({ status: 'refunded' }), matches: (t) => t.status === 'refunded' },
    { name: 'includeDeleted', filter: () => ({ includeDeleted: true, limit: 100 }), matches: () => true },
    { name: 'includeDeleted false', filter: () => ({ includeDeleted: false, limit: 100 }), matches: visible },
    { name: 'min amount', filter: () => ({ minAmount: 3000 }), matches: (t) => visible(t) && t.amount >= 3000 },
    { name: 'max amount', filter: () => ({ maxAmount: 3000 }), matches: (t) => visible(t) && t.amount <= 3000 },
    { name: 'min and max amount', filter: () => ({ minAmount: 1000, maxAmount: 12_000 }), matches: (t) => visible(t) && t.amount >= 1000 && t.amount <= 12_000 },
    { name: 'min = max amount', filter: () => ({ minAmount: 3000, maxAmount: 3000, includeDeleted: true }), matches: (t) => t.amount === 3000 },
    { name: 'search a product name, any case', filter: () => ({ search: 'BISSAP' }), matches: (t) => visible(t) && has('bissap')(t) },
    { name: 'search a first name', filter: () => ({ search: 'awa' }), matches: (t) => visible(t) && has('awa')(t) },
    { name: 'search part of a phone', filter: () => ({ search: '77123' }), matches: (t) => visible(t) && has('77123')(t) },
    { name: 'search an order id', filter: () => ({ search: anOrderId }), matches: (t) => t.id === anOrderId },
    { name: 'search with no match', filter: () => ({ search: 'zzz-nothing' }), matches: () => false },
    { name: 'search among deleted too', filter: () => ({ search: 'thiakry', includeDeleted: true }), matches: has('thiakry') },
    { name: 'isEscrow', filter: () => ({ isEscrow: true }), matches: (t) => visible(t) && t.isEscrow },
    { name: 'isMerchant', filter: () => ({ isMerchant: true }), matches: (t) => visible(t) && t.isMerchant },
    { name: 'isMerchant false', filter: () => ({ isMerchant: false, limit: 100 }), matches: (t) => visible(t) && !t.isMerchant },
    { name: 'paymentMethod (the method paid with)', filter: () => ({ paymentMethod: 'orange_money' }), matches: (t) => visible(t) && t.selected === 'orange_money' },
    { name: 'customerPhone, spaces ignored', filter: () => ({ customerPhone: '+221 77 999 88 77' }), matches: (t) => visible(t) && t.phone === '+221779998877' },
    { name: 'startDate', filter: () => ({ startDate: middle.toISOString() }), matches: (t) => visible(t) && t.createdAt >= middle },
    { name: 'endDate', filter: () => ({ endDate: middle.toISOString() }), matches: (t) => visible(t) && t.createdAt <= middle },
    { name: 'limit 5', filter: () => ({ limit: 5 }), matches: visible },
    { name: 'limit 5, page 2', filter: () => ({ limit: 5, page: 2 }), matches: visible },
    { name: 'limit 5, last page', filter: () => ({ limit: 5, page: 5 }), matches: visible },
    { name: 'a page past the end', filter: () => ({ limit: 5, page: 99 }), matches: visible },
    { name: 'limit above the maximum is capped at 100', filter: () => ({ limit: 500, includeDeleted: true }), matches: () => true },
    {
      name: 'everything at once',
      filter: () => ({ status: 'pending', minAmount: 500, maxAmount: 20_000, search: 'a', includeDeleted: true, limit: 3, page: 2 }),
      matches: (t) => t.status === 'pending' && t.amount >= 500 && t.amount <= 20_000 && has('a')(t),
    },
  ];

  it.each(cases)('$name', async ({ filter: filterOf, matches }) => {
    const filter = filterOf();
    const rest = must(await restSurface.list(merchant.key, filter), 'rest list');
    const graphql = must(await graphqlSurface.list(merchant.key, filter), 'graphql list');

    const restIds = rest.transactions.map((t) => t.orderId);
    expect(graphql.transactions.map((t) => t.orderId)).toEqual(restIds);
    expect(graphql.pagination).toEqual(rest.pagination);
    // And the items themselves render the same.
    expect(graphql.transactions).toEqual(rest.transactions);

    // Both are right, not merely equal.
    const all = stored.filter(matches).map((t) => t.id);
    const page = filter.page ?? 1;
    const limit = Math.min(filter.limit ?? 20, 100);
    expect(restIds).toEqual(all.slice((page - 1) * limit, page * limit));
    expect(rest.pagination).toEqual({ page, limit, totalCount: all.length, totalPages: Math.ceil(all.length / limit) });
  });

  it('the fixture exercises the filters (no vacuous comparisons)', () => {
    for (const { name, filter, matches } of cases) {
      if (name === 'search with no match' || name === 'a page past the end') continue;
      const all = stored.filter(matches);
      const page = filter().page ?? 1;
      const limit = Math.min(filter().limit ?? 20, 100);
      expect(all.slice((page - 1) * limit, page * limit).length, name).toBeGreaterThan(0);
    }
  });
});
