/**
 * REST v1 beside REST v2 and GraphQL, for test/parity/rest-v1.parity.test.ts. v1's vocabulary is
 * the narrowest (one method, no customer, a delete that cancels or refunds), so scenarios are
 * written in it and each surface spells them its own way. The v2 and GraphQL calls reuse
 * ./transactions.ts (the canonical view and its surfaces).
 */
import { expect } from 'vitest';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { TestGateway } from '../gateway.js';
import {
  SurfaceAccountsDocument,
  SurfaceCancelOrderDocument,
  SurfaceCreatePayoutDocument,
  SurfaceCreateTransactionOnceDocument,
  SurfaceRefundOrderDocument,
} from '../graphql/generated.js';
import { graphqlTyped } from '../graphql/typed.js';
import {
  defined,
  emptyToNull,
  graphqlFailure,
  restFailure,
  transactionSurfaces,
  type CanonicalTransaction,
  type Failure,
  type ListFilter,
  type Outcome,
} from './transactions.js';

/** moneySurfaces' calls answer in transactions.ts's Outcome. */
export type { Outcome };

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
 * A transaction as every surface reads it back, in the vocabulary all three share (v1's): the
 * methods (lowercase here) offered while unpaid and the one used once paid, the status in v1's
 * words (`paid` includes escrow, `done` = cancelled or refunded), no customer, products priced by
 * unit (v1 `amount` = v2 `price`), and null for "absent" (v1 and v2 write it as '').
 */
export type PortableTransactionRead = Omit<CanonicalTransaction, 'methodOfPayment' | 'selectedPaymentMethod' | 'customer'> & {
  methods: PortableTransaction['method'][];
};

/** v2's statuses in v1's words (openapi/v1.yaml TransactionStatus). */
const V1_STATUS: Record<string, string> = { pending: 'pending', paid: 'paid', paid_and_blocked: 'paid', cancelled: 'done', refunded: 'done' };

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
async function graphqlOutcome(
  gateway: TestGateway,
  field: string,
  document: TypedDocumentNode<any, any>,
  variables: Record<string, unknown>,
  key: string,
): Promise<Outcome<any>> {
  const response = await graphqlTyped(gateway, document, variables, key);
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
  expect(t.checkout_url, 'checkout_url of a v1 read').toMatch(new RegExp(`/checkout/${t.order_id}$`));
  return {
    orderId: t.order_id,
    amount: t.amount,
    fees: t.fees,
    currency: t.currency,
    status: t.transaction_status,
    methods: t.method_of_payment.map(fromV1Method),
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
 * v2's and GraphQL's view in v1's words: the method paid with, else the offered ones; the v1
 * status (openapi/v1.yaml, "Differences from v2").
 */
function portableReadOf(t: CanonicalTransaction): PortableTransactionRead {
  const { customer: _customer, methodOfPayment, selectedPaymentMethod, ...common } = t;
  const methods = (selectedPaymentMethod ? [selectedPaymentMethod] : methodOfPayment) as PortableTransaction['method'][];
  return { ...common, status: V1_STATUS[t.status] ?? `unknown ${t.status}`, methods };
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
        // An array of uppercase methods, as the v1 SDKs send it.
        method_of_payment: [request.method.toUpperCase()],
        products: request.products.map((p) => defined({ name: p.name, amount: p.price, quantity: p.quantity, description: p.description })),
        ...restOptionsOf(request),
        // v1 defaults it to true (the SDKs' default), v2 to false: say it, so both mean the same.
        fees_customer_side: request.feesCustomerSide ?? false,
      });
      const response = await gateway.rest('POST', '/api/v1/transaction/create-transaction', { key, body, headers: idempotencyHeader(idempotencyKey) });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      return { ok: true, value: { orderId: response.body.order_id, amount: response.body.amount, status: response.body.transaction_status } };
    },
    async remove(key, orderId, twin) {
      const response = await gateway.rest('DELETE', '/api/v1/transaction/delete-transaction', { key, body: { order_id: orderId } });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      expect(response.body).toEqual({
        order_id: orderId,
        message: twin === 'cancel' ? 'Transaction cancelled successfully' : 'Transaction refunded successfully',
      });
      return { ok: true, value: undefined };
    },
    async payout(key, request, idempotencyKey) {
      const route = request.method === 'wave' ? 'wave' : 'orange-money';
      const body = { full_name: `${request.firstName} ${request.lastName}`, amount: request.amount, phone_number: request.phone };
      const response = await gateway.rest('POST', `/api/v1/cashout/${route}`, { key, body, headers: idempotencyHeader(idempotencyKey) });
      if (response.status !== 200) return { ok: false, failure: v1Failure(response) };
      expect(response.body.full_name).toBe(body.full_name);
      // v1 says `done` for v2's `completed` (its clients' enum); 200s are only done or pending.
      const status = ({ done: 'completed', pending: 'pending' } as Record<string, string>)[response.body.status] ?? `unknown v1 status ${response.body.status}`;
      return { ok: true, value: { amount: response.body.amount, status, phone: response.body.phone_number } };
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
        twin === 'cancel'
          ? await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key })
          : await gateway.rest('GET', `/api/v2/refund/${orderId}`, { key });
      return response.status === 200 ? { ok: true, value: undefined } : { ok: false, failure: restFailure(response) };
    },
    async payout(key, request, idempotencyKey) {
      const body = {
        selected_payment_method: request.method,
        amount: request.amount,
        recipient: { first_name: request.firstName, last_name: request.lastName, phone: request.phone },
      };
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

  const graphqlCall = (field: string, document: TypedDocumentNode<any, any>, variables: Record<string, unknown>, key: string) =>
    graphqlOutcome(gateway, field, document, variables, key);

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
      const outcome = await graphqlCall('createTransaction', SurfaceCreateTransactionOnceDocument, defined({ input, key: idempotencyKey }), key);
      return outcome.ok ? { ok: true, value: outcome.value.transaction } : outcome;
    },
    async remove(key, orderId, twin) {
      const field = twin === 'cancel' ? 'cancelTransaction' : 'refundTransaction';
      const outcome = await graphqlCall(field, twin === 'cancel' ? SurfaceCancelOrderDocument : SurfaceRefundOrderDocument, { orderId }, key);
      return outcome.ok ? { ok: true, value: undefined } : outcome;
    },
    async payout(key, request, idempotencyKey) {
      const input = {
        selectedPaymentMethod: request.method,
        amount: request.amount,
        recipient: { firstName: request.firstName, lastName: request.lastName, phone: request.phone },
      };
      const outcome = await graphqlCall('createPayout', SurfaceCreatePayoutDocument, defined({ input, key: idempotencyKey }), key);
      return outcome.ok ? { ok: true, value: { amount: outcome.value.amount, status: outcome.value.status, phone: outcome.value.recipient.phone } } : outcome;
    },
    getOne: async (key, orderId) => mapOutcome(await graphqlReads.get(key, orderId), portableReadOf),
    list: async (key, filter) => mapOutcome(await graphqlReads.list(key, listFilterOf(filter)), (listed) => listed.transactions.map(portableReadOf)),
    async mainAccount(key) {
      const outcome = await graphqlCall('accounts', SurfaceAccountsDocument, {}, key);
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
  const transactions = await db.transaction.findMany({
    where: { organizationId },
    include: { products: { orderBy: { position: 'asc' } } },
    orderBy: [{ amount: 'asc' }, { createdAt: 'asc' }],
  });
  const payouts = await db.payout.findMany({ where: { organizationId }, orderBy: [{ amount: 'asc' }, { createdAt: 'asc' }] });
  const accounts = await db.account.findMany({ where: { organizationId }, orderBy: { name: 'asc' } });
  const entries = await db.ledgerEntry.findMany({
    where: { account: { organizationId } },
    include: { account: true },
    orderBy: [{ createdAt: 'asc' }, { amount: 'asc' }],
  });
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
    ledger: entries.map((e) => ({
      account: e.account?.name,
      kind: e.kind,
      amount: e.amount,
      balanceAfter: e.balanceAfter,
      onTransaction: e.transactionId !== null,
      onPayout: e.payoutId !== null,
    })),
    balances: Object.fromEntries(accounts.map((account) => [account.name, account.balance])),
  };
}
