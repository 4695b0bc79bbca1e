/** Steps shared by the refund tests (not a test file itself). */
import { expect } from 'vitest';
import { payTransaction } from '../../src/domain/payments/payTransaction.js';
import type { PaymentProvider, ProviderAnswer, ProviderStatusAnswer } from '../../src/domain/ports.js';
import { transactionBody, type TestGateway } from './gateway.js';

/** Payer wallets by what the sandbox does with a refund of a payment from them (docs/sandbox.md's table). */
export const PHONES = {
  refundSucceeds: '+221770000001',
  refundFails: '+221770000009',
} as const;

export interface PaidOptions {
  /** Unit price of the one product (amount = price). Default 3000. */
  price?: number;
  phone?: string;
  method?: 'wave' | 'orange_money';
  /** true: main (or escrow) gets the whole amount, so one payment covers its own refund. */
  feesCustomerSide?: boolean;
  isEscrow?: boolean;
}

/** Creates a transaction through REST v2 and pays it in the sandbox; returns its order id. */
export async function paidTransaction(gateway: TestGateway, key: string, options: PaidOptions = {}): Promise<string> {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({
      products: [{ name: 'Yassa poulet', price: options.price ?? 3000, quantity: 1 }],
      fees_customer_side: options.feesCustomerSide ?? false,
      is_escrow: options.isEscrow ?? false,
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId: string = created.body.order_id;
  const paid = await payTransaction(gateway.ctx, gateway.operator, orderId, {
    method: options.method ?? 'wave',
    phone: options.phone ?? PHONES.refundSucceeds,
  });
  expect(paid.outcome).toBe('paid');
  return orderId;
}

export const refund = (gateway: TestGateway, key: string, orderId: string, idempotencyKey?: string) =>
  gateway.rest('GET', `/api/v2/refund/${orderId}`, { key, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

export async function balances(gateway: TestGateway, organizationId: string): Promise<{ main: bigint; escrow: bigint }> {
  const accounts = await gateway.ctx.db.account.findMany({ where: { organizationId } });
  const of = (name: string) => accounts.find((account) => account.name === name)?.balance ?? 0n;
  return { main: of('main'), escrow: of('escrow') };
}

export const statusOf = async (gateway: TestGateway, orderId: string) =>
  (await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } })).status;

export const entriesOf = (gateway: TestGateway, orderId: string) =>
  gateway.ctx.db.ledgerEntry.findMany({ where: { transactionId: orderId }, include: { account: true }, orderBy: { createdAt: 'asc' } });

/**
 * The ledger's invariants for an organisation: each posting touching it sums to zero, and each of
 * its accounts' balance is the sum of its entries (and never below zero).
 */
export async function expectLedgerConsistent(gateway: TestGateway, organizationId: string): Promise<void> {
  const accounts = await gateway.ctx.db.account.findMany({ where: { organizationId }, include: { entries: true } });
  for (const account of accounts) {
    const sum = account.entries.reduce((total, entry) => total + entry.amount, 0n);
    expect({ account: account.name, balance: account.balance }).toEqual({ account: account.name, balance: sum });
    expect(account.balance >= 0n).toBe(true);
  }
  const postingIds = [...new Set(accounts.flatMap((account) => account.entries.map((entry) => entry.postingId)))];
  const entries = await gateway.ctx.db.ledgerEntry.findMany({ where: { postingId: { in: postingIds } } });
  const sums = new Map<string, bigint>();
  for (const entry of entries) sums.set(entry.postingId, (sums.get(entry.postingId) ?? 0n) + entry.amount);
  for (const [postingId, sum] of sums) expect({ postingId, sum }).toEqual({ postingId, sum: 0n });
}

/**
 * A stand-in provider (the one thing a test may replace) that counts calls: `refund` answers
 * `refund` (default: no answer in time, like the sandbox's 1111 wallets), `refundStatus` answers
 * `status`.
 */
export function stubProvider(status: ProviderStatusAnswer['status'], refund: ProviderAnswer['status'] = 'pending') {
  const calls = { refund: 0, refundStatus: [] as string[] };
  const provider: PaymentProvider = {
    collect: async () => {
      throw new Error('not used');
    },
    collectStatus: async () => {
      throw new Error('not used');
    },
    refund: async () => {
      calls.refund += 1;
      return { status: refund, providerReference: refund === 'succeeded' ? 'stub' : '', reason: refund === 'pending' ? 'no answer in time' : undefined };
    },
    refundStatus: async (reference) => {
      calls.refundStatus.push(reference);
      return { status, providerReference: status === 'succeeded' ? `stub_${reference}` : '', reason: status === 'failed' ? 'stub refused' : undefined };
    },
    payout: async () => {
      throw new Error('not used');
    },
    payoutStatus: async () => {
      throw new Error('not used');
    },
  };
  return Object.assign(provider, { calls });
}

export { withProvider } from './provider.js';
