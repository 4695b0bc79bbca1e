/** Steps shared by the payout tests (not a test file itself). */
import { expect } from 'vitest';
import { adjustAccount } from '../../src/domain/operations.js';
import type { PaymentProvider } from '../../src/domain/ports.js';
import type { MerchantOptions, TestGateway } from './gateway.js';

/** Recipient wallets by what the sandbox does with a payout to them (docs/sandbox.md's phone table). */
export const PHONES = {
  succeeds: '+221770000001',
  fails: '+221770000000',
  timesOut: '+221770001111',
} as const;

/** The spec's Payout fields (get and list), and the create shape's. */
export const PAYOUT_FIELDS = [
  'amount',
  'created_at',
  'currency',
  'fees',
  'is_deleted',
  'order_id',
  'paid_at',
  'payout_status',
  'provider_reference',
  'reason',
  'recipient',
  'selected_payment_method',
  'updated_at',
];
export const PAYOUT_CREATED_FIELDS = ['_id', 'organization_id', ...PAYOUT_FIELDS].sort();

/** Default payout fee: 100 bp (1 %), round half up. */
export const feeOf = (amount: number): number => Math.floor((amount * 100 + 5_000) / 10_000);

/** A valid v2 POST /payouts body; override what a test is about. */
export function payoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    selected_payment_method: 'wave',
    amount: 10_000,
    recipient: { first_name: 'Moussa', last_name: 'Ndiaye', phone: PHONES.succeeds },
    reason: 'Supplier invoice 42',
    ...overrides,
  };
}

export interface FundedOptions extends MerchantOptions {
  /** XOF credited to `main` (an operator adjustment). Default 1,000,000. */
  balance?: number;
}

/** An organisation with payouts enabled, `balance` in main and a key of scope `payout` (unless told). */
export async function fundedMerchant(gateway: TestGateway, { balance = 1_000_000, ...options }: FundedOptions = {}) {
  const merchant = await gateway.merchant({ payoutEnabled: true, scope: 'payout', ...options });
  if (balance > 0)
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: merchant.organization.id, amount: balance, reason: 'float for payouts' });
  return merchant;
}

export const postPayout = (gateway: TestGateway, key: string, body: unknown = payoutBody(), idempotencyKey?: string) =>
  gateway.rest('POST', '/api/v2/payouts', { key, body, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

export async function mainBalance(gateway: TestGateway, organizationId: string): Promise<bigint> {
  const account = await gateway.ctx.db.account.findUniqueOrThrow({ where: { organizationId_name: { organizationId, name: 'main' } } });
  return account.balance;
}

/** The payout's ledger entries, oldest first, with the merchant account they touch. */
export const payoutEntries = (gateway: TestGateway, payoutId: string) =>
  gateway.ctx.db.ledgerEntry.findMany({ where: { payoutId }, include: { account: true }, orderBy: [{ createdAt: 'asc' }, { kind: 'asc' }] });

/**
 * Wraps a provider and counts the payouts sent per reference (what "never sent twice" is about)
 * and the status questions asked; `answers` may override what payout/payoutStatus say.
 */
export function countingProvider(inner: PaymentProvider, answers: { payout?: PaymentProvider['payout']; payoutStatus?: PaymentProvider['payoutStatus'] } = {}) {
  const sent = new Map<string, number>();
  const asked: string[] = [];
  const provider: PaymentProvider = {
    ...inner,
    collect: (request) => inner.collect(request),
    collectStatus: (reference) => inner.collectStatus(reference),
    refund: (request) => inner.refund(request),
    refundStatus: (reference) => inner.refundStatus(reference),
    payout: async (request) => {
      sent.set(request.reference, (sent.get(request.reference) ?? 0) + 1);
      return (answers.payout ?? inner.payout)(request);
    },
    payoutStatus: async (reference) => {
      asked.push(reference);
      return (answers.payoutStatus ?? inner.payoutStatus)(reference);
    },
  };
  return Object.assign(provider, { sent, asked });
}

export { withProvider } from './provider.js';

/** Expects a 200 payout answer and returns its body. */
export function expectPayout(response: { status: number; body: any }, status: 'completed' | 'pending' | 'failed' | 'cancelled') {
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.payout_status).toBe(status);
  return response.body;
}
