/** Steps shared by the REST v1 tests (not a test file itself). */
import { expect } from 'vitest';
import { payTransaction } from '../../../src/domain/payments/payTransaction.js';
import type { HttpResult, TestGateway } from '../../support/gateway.js';

const V1 = '/api/v1';

/** The three headers of every v1 answer (src/rest/v1/surface.ts, openapi/v1.yaml). */
const V1_DEPRECATION = '@1795392000';
const V1_SUNSET = 'Tue, 23 Nov 2027 00:00:00 GMT';
const V1_LINK = '</api/v2>; rel="successor-version"';

export function expectV1Headers(response: HttpResult): void {
  expect(response.headers.get('deprecation')).toBe(V1_DEPRECATION);
  expect(response.headers.get('sunset')).toBe(V1_SUNSET);
  expect(response.headers.get('link')).toBe(V1_LINK);
}

/** A v1 refusal: exactly `{Detail}`, the status, the wording (a RegExp for "followed by more text"), and the headers. */
export function expectDetail(response: HttpResult, status: number, message: string | RegExp): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(Object.keys(response.body ?? {}), JSON.stringify(response.body)).toEqual(['Detail']);
  if (typeof message === 'string') expect(response.body.Detail).toBe(message);
  else expect(response.body.Detail).toMatch(message);
  expectV1Headers(response);
}

/** A valid v1 create-transaction body; override what a test is about. */
export function v1TransactionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    // An array of uppercase methods, as every public v1 client sends it.
    method_of_payment: ['WAVE'],
    products: [{ name: 'Bissap juice', category: 'drinks', amount: 1500, quantity: 2, description: '1 L bottle' }],
    success_url: 'https://shop.example.sn/merci',
    error_url: 'https://shop.example.sn/erreur',
    fees_customer_side: false,
    is_escrow: false,
    is_merchant: false,
    ...overrides,
  };
}

/** The v1 create reply's fields, sorted. */
export const CREATED_FIELDS = 'amount amount_to_pay checkout_url created_at currency is_escrow is_merchant method_of_payment order_id transaction_status'.split(
  ' ',
);

/** The v1 transaction's fields (get-one, and each listed item), sorted. */
export const TRANSACTION_FIELDS = (
  'amount amount_to_pay checkout_url created_at currency error_url fees fees_customer_side is_done is_escrow is_merchant ' +
  'method_of_payment order_id paid_at products success_url transaction_status updated_at'
).split(' ');

const withKey = (idempotencyKey?: string): Record<string, string> => (idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});

export const v1 = {
  create: (gateway: TestGateway, key: string | undefined, body: unknown = v1TransactionBody(), idempotencyKey?: string) =>
    gateway.rest('POST', `${V1}/transaction/create-transaction`, { key, body, headers: withKey(idempotencyKey) }),
  getOne: (gateway: TestGateway, key: string | undefined, orderId: string) =>
    gateway.rest('GET', `${V1}/transaction/get-one-transaction?order_id=${encodeURIComponent(orderId)}`, { key }),
  list: (gateway: TestGateway, key: string | undefined, query = '') =>
    gateway.rest('GET', `${V1}/transaction/get-transactions${query ? `?${query}` : ''}`, { key }),
  delete: (gateway: TestGateway, key: string | undefined, orderId: string, idempotencyKey?: string) =>
    gateway.rest('DELETE', `${V1}/transaction/delete-transaction`, { key, body: { order_id: orderId }, headers: withKey(idempotencyKey) }),
  account: (gateway: TestGateway, key: string | undefined, path = '/account') => gateway.rest('GET', `${V1}${path}`, { key }),
  cashout: (gateway: TestGateway, key: string | undefined, route: 'wave' | 'orange-money', body: unknown, idempotencyKey?: string) =>
    gateway.rest('POST', `${V1}/cashout/${route}`, { key, body, headers: withKey(idempotencyKey) }),
};

/** Creates a transaction through v1 and expects 200; returns the reply. */
export async function createdV1(gateway: TestGateway, key: string, body: unknown = v1TransactionBody()): Promise<Record<string, any>> {
  const response = await v1.create(gateway, key, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Pays a transaction in the sandbox (the checkout's operation) with a wallet whose refund succeeds. */
export async function pay(gateway: TestGateway, orderId: string, method: 'wave' | 'orange_money' = 'wave'): Promise<void> {
  const paid = await payTransaction(gateway.ctx, gateway.operator, orderId, { method, phone: '+221770000001' });
  expect(paid.outcome).toBe('paid');
}

/** The same funded merchant and balance read as the v2 payout tests (one definition). */
export { fundedMerchant, mainBalance } from '../../support/payouts.js';

export const statusInDb = async (gateway: TestGateway, orderId: string) =>
  (await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } })).status;
