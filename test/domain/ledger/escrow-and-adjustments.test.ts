/**
 * Escrow release and operator adjustments (issue 7 items 5 and 6): each a balanced posting in one
 * database transaction; a release moves exactly what is held, once; nothing goes below zero.
 */
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller, type OperatorCaller } from '../../../src/domain/access/auth.js';
import type { ErrorCode } from '../../../src/domain/errors.js';
import { adjustAccount, createTransaction, payTransaction, releaseEscrow } from '../../../src/domain/operations.js';
import { useGateway } from '../../support/gateway.js';
import { balanceOf, expectBalancedLedger } from '../../support/ledger.js';

const gateway = useGateway();

const codeOf = async (promise: Promise<unknown>): Promise<ErrorCode | 'accepted'> =>
  promise.then(
    () => 'accepted' as const,
    (error: { code?: ErrorCode }) => error.code ?? (String(error) as ErrorCode),
  );

async function paidTransaction(isEscrow: boolean) {
  const organization = await gateway.createOrganization({ verified: true, escrowEnabled: true });
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization };
  const { value } = await createTransaction(gateway.ctx, authorizeMerchant(caller, 'createTransaction'), {
    methodOfPayment: ['wave'],
    products: [{ name: 'Pagne wax', price: 10_000, quantity: 1 }],
    isEscrow,
  });
  await payTransaction(gateway.ctx, gateway.operator, value.transaction.id, { method: 'wave', phone: '+221771234567' });
  return { organization, orderId: value.transaction.id };
}

describe('releasing escrow', () => {
  it('moves the held proceeds to main and marks the transaction paid', async () => {
    const { organization, orderId } = await paidTransaction(true);
    expect(await balanceOf(gateway.db.prisma, organization.id, 'escrow')).toBe(9_900n);

    const released = await releaseEscrow(gateway.ctx, gateway.operator, orderId);
    expect(released.status).toBe('paid');
    expect(await balanceOf(gateway.db.prisma, organization.id, 'escrow')).toBe(0n);
    expect(await balanceOf(gateway.db.prisma, organization.id, 'main')).toBe(9_900n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('moves the money once when ten releases race', async () => {
    const { organization, orderId } = await paidTransaction(true);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => codeOf(releaseEscrow(gateway.ctx, gateway.operator, orderId))));

    expect(outcomes.filter((outcome) => outcome === 'accepted')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'not_in_escrow')).toHaveLength(9);
    expect(await balanceOf(gateway.db.prisma, organization.id, 'main')).toBe(9_900n);
  });

  it('refuses a transaction that is not held, an unknown one, and an analyst operator', async () => {
    const { orderId } = await paidTransaction(false);
    // The operator roles (docs/graphql.md): support may release escrow; analyst mutates nothing.
    const analyst: OperatorCaller = { kind: 'operator', role: 'analyst', tokenId: null };
    expect(await codeOf(releaseEscrow(gateway.ctx, gateway.operator, orderId))).toBe('not_in_escrow');
    expect(await codeOf(releaseEscrow(gateway.ctx, gateway.operator, '00000000-0000-4000-8000-000000000000'))).toBe('transaction_not_found');
    expect(await codeOf(releaseEscrow(gateway.ctx, analyst, orderId))).toBe('operator_forbidden');
  });
});

describe('adjusting an account', () => {
  it('credits and debits main against the gateway’s adjustments account, with the reason', async () => {
    const organization = await gateway.createOrganization();
    expect(
      (await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 5_000, reason: 'goodwill, ticket 42' })).balance,
    ).toBe(5_000n);
    expect((await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: -1_500, reason: 'correction' })).balance).toBe(
      3_500n,
    );

    const entries = await gateway.db.prisma.ledgerEntry.findMany({ where: { kind: 'adjustment', description: 'goodwill, ticket 42' } });
    expect(entries.map((entry) => [entry.gatewayAccount ?? 'main', entry.amount]).sort()).toEqual([
      ['adjustments', -5_000n],
      ['main', 5_000n],
    ]);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('never takes main below zero, and changes nothing when it refuses', async () => {
    const organization = await gateway.createOrganization();
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 100, reason: 'credit' });
    const before = await gateway.db.prisma.ledgerEntry.count();

    expect(await codeOf(adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: -101, reason: 'too much' }))).toBe(
      'insufficient_balance',
    );
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(100n);
    expect(await gateway.db.prisma.ledgerEntry.count()).toBe(before);
  });

  it.each<[string, { amount: number; reason: string }, ErrorCode]>([
    ['a zero amount', { amount: 0, reason: 'x' }, 'invalid_input'],
    ['a fractional amount', { amount: 1.5, reason: 'x' }, 'invalid_input'],
    ['an amount beyond 10^12', { amount: 2e12, reason: 'x' }, 'invalid_input'],
    ['a blank reason', { amount: 10, reason: '   ' }, 'invalid_input'],
  ])('refuses %s', async (_name, input, code) => {
    const organization = await gateway.createOrganization();
    expect(await codeOf(adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, ...input }))).toBe(code);
  });

  it('refuses an unknown organisation', async () => {
    expect(await codeOf(adjustAccount(gateway.ctx, gateway.operator, { organizationId: 'nope', amount: 10, reason: 'x' }))).toBe('organization_not_found');
  });
});
