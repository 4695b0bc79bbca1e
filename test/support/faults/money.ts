/**
 * The money operations the fault suite drives, as a client would (REST v2 and the operator's
 * GraphQL on a gateway process), and the merchant setup (through the in-process gateway on the
 * same database).
 */
import { expect } from 'vitest';
import { adjustAccount, payTransaction } from '../../../src/domain/operations.js';
import type { TestGateway } from '../gateway.js';
import type { WebhookReceiver } from '../webhookReceiver.js';
import { addWebhook } from '../webhooks.js';
import { call, operatorGraphql, SANDBOX_PAY, type Answer, type CallOptions } from './cluster.js';

/** Wallets by what the sandbox does with them (docs/sandbox.md's phone table). */
export const WALLETS = {
  /** pays, is refunded, receives payouts */
  succeeds: '+221770000001',
  /** declines payments; refuses payouts and refunds */
  fails: '+221770000000',
} as const;

/** Default payout fee: 100 bp, round half up. */
export const payoutFeeOf = (amount: number): bigint => BigInt(Math.floor((amount * 100 + 5_000) / 10_000));

export interface FaultMerchant {
  organizationId: string;
  /** scope checkout: creates, pays (through the operator), refunds transactions */
  checkoutKey: string;
  /** scope payout */
  payoutKey: string;
}

/**
 * A verified organisation with payouts enabled, `float` XOF in main (so refunds and payouts are
 * covered), and optionally a webhook to `receiver` at `path`.
 */
export async function faultMerchant(gateway: TestGateway, options: { float?: number; receiver?: WebhookReceiver; path?: string } = {}): Promise<FaultMerchant> {
  const { organization, key: checkoutKey } = await gateway.merchant({ verified: true, payoutEnabled: true, scope: 'checkout' });
  const payoutKey = await gateway.createKey(organization.id, 'payout');
  const float = options.float ?? 10_000_000;
  if (float > 0) await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: float, reason: 'float for the fault suite' });
  if (options.receiver) await addWebhook(gateway, options.receiver, organization.id, options.path ?? `/hooks/${organization.id}`);
  return { organizationId: organization.id, checkoutKey, payoutKey };
}

const transactionRequest = (price: number) => ({
  method_of_payment: ['wave', 'orange_money'],
  products: [{ name: 'Thieboudienne', price, quantity: 1 }],
  customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234567' },
  success_url: 'https://shop.example.sn/merci',
  error_url: 'https://shop.example.sn/erreur',
});

export const createTransaction = (instance: { url: string }, key: string, price = 1_000, options: CallOptions = {}) =>
  call(instance, 'POST', '/api/v2/transactions', { key, body: transactionRequest(price), ...options });

/** Pays through the operator's sandboxPay (as the checkout page does); `data.sandboxPay.outcome` says how it went. */
export const pay = (instance: { url: string }, orderId: string, phone: string = WALLETS.succeeds, timeoutMs?: number) =>
  operatorGraphql(instance, SANDBOX_PAY, { orderId, phone }, timeoutMs);

export const refund = (instance: { url: string }, key: string, orderId: string, options: CallOptions = {}) =>
  call(instance, 'GET', `/api/v2/refund/${orderId}`, { key, ...options });

const payoutRequest = (amount: number, phone: string = WALLETS.succeeds) => ({
  selected_payment_method: 'wave',
  amount,
  recipient: { first_name: 'Moussa', last_name: 'Ndiaye', phone },
  reason: 'fault suite',
});

export const postPayout = (instance: { url: string }, key: string, amount: number, options: CallOptions & { phone?: string } = {}) =>
  call(instance, 'POST', '/api/v2/payouts', { key, body: payoutRequest(amount, options.phone), ...options });

/** A transaction created and paid on `instance`; returns its order id. */
export async function paidOn(instance: { url: string }, key: string, price = 1_000): Promise<string> {
  const created = await createTransaction(instance, key, price);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const paid = await pay(instance, created.body.order_id);
  expect(paid.body?.data?.sandboxPay?.outcome, JSON.stringify(paid.body)).toBe('paid');
  return created.body.order_id;
}

/** A transaction created through the in-process gateway and paid there (fast setup). */
export async function paidInProcess(gateway: TestGateway, key: string, price = 1_000): Promise<string> {
  const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionRequest(price) });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const paid = await payTransaction(gateway.ctx, gateway.operator, created.body.order_id, { method: 'wave', phone: WALLETS.succeeds });
  expect(paid.outcome).toBe('paid');
  return created.body.order_id;
}

export const mainBalanceOf = async (gateway: TestGateway, organizationId: string): Promise<bigint> =>
  (await gateway.ctx.db.account.findUniqueOrThrow({ where: { organizationId_name: { organizationId, name: 'main' } } })).balance;

/** Retries `attempt` while it answers 409 (still in flight) or nothing, up to `timeoutMs`; the last answer. */
export async function retryWhileUnsettled(attempt: () => Promise<Answer>, timeoutMs: number): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await attempt();
    if ((answer.status !== 409 && answer.status !== 0) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface PayoutTry {
  instance: string;
  idempotencyKey?: string;
  status: number;
  body: any;
  /** ms since the pressure started: sent, answered */
  at: number;
  doneAt: number;
}

/**
 * `workers` clients sending payouts of `amount` for one organisation as fast as they are answered,
 * spread over `instances` (round robin), until `durationMs` has passed or `until()` says so. A 409
 * (another payout in flight) is retried almost at once (15 ms), as an impatient client would.
 */
export async function payoutPressure(
  instances: { url: string; name: string }[],
  key: string,
  options: {
    workers: number;
    durationMs: number;
    amount: number;
    until?: () => boolean;
    timeoutMs?: number;
    idempotencyKeys?: boolean;
    phone?: string;
    origin?: number;
  },
): Promise<PayoutTry[]> {
  const tries: PayoutTry[] = [];
  const started = options.origin ?? performance.now();
  const deadline = performance.now() + options.durationMs;
  let sequence = 0;
  const worker = async (index: number) => {
    while (performance.now() < deadline && !options.until?.()) {
      const instance = instances[(index + sequence++) % instances.length]!;
      const headers: Record<string, string> = options.idempotencyKeys
        ? { 'idempotency-key': `pressure-${index}-${sequence}-${Math.random().toString(36).slice(2)}` }
        : {};
      const at = performance.now() - started;
      const answer = await postPayout(instance, key, options.amount, { timeoutMs: options.timeoutMs ?? 20_000, headers, phone: options.phone });
      tries.push({
        instance: instance.name,
        idempotencyKey: headers['idempotency-key'],
        status: answer.status,
        body: answer.body,
        at,
        doneAt: performance.now() - started,
      });
      await new Promise((resolve) => setTimeout(resolve, answer.status === 409 ? 15 : 5));
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  return tries;
}
