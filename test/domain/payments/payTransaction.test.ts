/**
 * Paying a transaction (issue 7 item 2): pending -> paid (or paid_and_blocked for escrow) with the
 * method, paid_at and fees, in ONE database transaction with balanced ledger entries; paying twice,
 * paying a cancelled transaction or racing payments credit the merchant exactly once.
 */
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller, type OperatorCaller } from '../../../src/domain/access/auth.js';
import type { ErrorCode } from '../../../src/domain/errors.js';
import { cancelTransaction, createTransaction, payTransaction, setSwitch } from '../../../src/domain/operations.js';
import type { CreateTransactionInput } from '../../../src/domain/transactions/createTransaction.js';
import type { MerchantOptions } from '../../support/gateway.js';
import { useGateway } from '../../support/gateway.js';
import { balanceOf, expectBalancedLedger } from '../../support/ledger.js';

const gateway = useGateway();

async function pendingTransaction(input: Partial<CreateTransactionInput> = {}, options: MerchantOptions = {}) {
  const organization = await gateway.createOrganization({ verified: true, ...options });
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization };
  const { value } = await createTransaction(gateway.ctx, authorizeMerchant(caller, 'createTransaction'), {
    methodOfPayment: ['wave', 'orange_money'],
    products: [{ name: 'Thiéboudienne', price: 1500, quantity: 2 }],
    ...input,
  });
  return { organization, caller, transaction: value.transaction };
}

const codeOf = async (promise: Promise<unknown>): Promise<ErrorCode | 'accepted'> =>
  promise.then(
    () => 'accepted' as const,
    (error: { code?: ErrorCode }) => error.code ?? (String(error) as ErrorCode),
  );

const customer = { kind: 'customer' } as const;

describe('paying a transaction', () => {
  it('marks it paid with the method, paid_at and fees, and credits main with the net proceeds', async () => {
    const { organization, transaction } = await pendingTransaction();
    const result = await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221 77 123 45 67' });

    expect(result.outcome).toBe('paid');
    expect(result.transaction).toMatchObject({ status: 'paid', selectedPaymentMethod: 'wave', fees: 30n, payerPhone: '+221771234567' });
    expect(result.transaction.paidAt).toBeInstanceOf(Date);
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(2970n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('adds the fee to what the customer pays when fees are on the customer side', async () => {
    const { organization, transaction } = await pendingTransaction({ feesCustomerSide: true });
    await payTransaction(gateway.ctx, customer, transaction.id, { method: 'orange_money', phone: '+221771234567' });

    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(3000n);
    const entries = await gateway.db.prisma.ledgerEntry.findMany({ where: { transactionId: transaction.id } });
    const byAccount = Object.fromEntries(entries.map((entry) => [entry.gatewayAccount ?? 'main', entry.amount]));
    // orange_money 1.5 % of 3000 = 45: the customer is charged 3045.
    expect(byAccount).toEqual({ provider_clearing_orange_money: -3045n, main: 3000n, fee_revenue: 45n });
  });

  it('holds an escrow payment in escrow: paid_and_blocked, main untouched', async () => {
    const { organization, transaction } = await pendingTransaction({ isEscrow: true }, { escrowEnabled: true });
    const result = await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221771234567' });

    expect(result.transaction.status).toBe('paid_and_blocked');
    expect(await balanceOf(gateway.db.prisma, organization.id, 'escrow')).toBe(2970n);
    expect(await balanceOf(gateway.db.prisma, organization.id, 'main')).toBe(0n);
  });

  it('credits once when the same transaction is paid twice', async () => {
    const { organization, transaction } = await pendingTransaction();
    await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221771234567' });

    expect(await codeOf(payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221771234567' }))).toBe('transaction_not_payable');
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(2970n);
  });

  it('refuses to take money for a cancelled transaction', async () => {
    const { organization, caller, transaction } = await pendingTransaction();
    await cancelTransaction(gateway.ctx, authorizeMerchant(caller, 'cancelTransaction'), transaction.id);

    expect(await codeOf(payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221771234567' }))).toBe('transaction_not_payable');
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(0n);
  });

  it('lets exactly one of 20 concurrent payments through and credits once', async () => {
    const { organization, transaction } = await pendingTransaction();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        codeOf(payTransaction(gateway.ctx, customer, transaction.id, { method: index % 2 ? 'wave' : 'orange_money', phone: '+221771234567' })),
      ),
    );

    expect(attempts.filter((outcome) => outcome === 'accepted')).toHaveLength(1);
    // The losers are refused before any wallet is asked: while the winner collects (409), or after it paid.
    expect(attempts.filter((outcome) => outcome === 'transaction_not_payable' || outcome === 'payment_in_progress')).toHaveLength(19);
    const payments = await gateway.db.prisma.ledgerEntry.groupBy({ by: ['postingId'], where: { transactionId: transaction.id } });
    expect(payments).toHaveLength(1);
    const balance = await balanceOf(gateway.db.prisma, organization.id);
    expect([2970n, 2955n]).toContain(balance);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('leaves the transaction pending and moves nothing when the wallet declines or never confirms', async () => {
    const { organization, transaction } = await pendingTransaction();
    const declined = await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221770000000' });
    const unconfirmed = await payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221771111111' });

    expect(declined).toMatchObject({ outcome: 'failed', transaction: { status: 'pending' } });
    expect(declined.reason).toMatch(/insufficient funds/);
    expect(unconfirmed).toMatchObject({ outcome: 'pending', transaction: { status: 'pending' } });
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(0n);
    expect(await gateway.db.prisma.ledgerEntry.count({ where: { transactionId: transaction.id } })).toBe(0);
  });

  it.each<[string, { method?: string; phone?: string }, ErrorCode]>([
    ['no method chosen by the customer', { phone: '+221771234567' }, 'invalid_request'],
    ['a method the transaction does not offer', { method: 'orange_money', phone: '+221771234567' }, 'method_not_offered'],
    ['an unknown method', { method: 'cash', phone: '+221771234567' }, 'unsupported_payment_method'],
    ['a malformed phone', { method: 'wave', phone: '77 123' }, 'invalid_phone'],
  ])('refuses %s and changes nothing', async (_name, input, code) => {
    const { transaction } = await pendingTransaction({ methodOfPayment: ['wave'] });
    expect(await codeOf(payTransaction(gateway.ctx, customer, transaction.id, input))).toBe(code);
    expect((await gateway.db.prisma.transaction.findUniqueOrThrow({ where: { id: transaction.id } })).status).toBe('pending');
  });

  it('refuses a method the operator switched off (503) and takes the other', async () => {
    const { transaction } = await pendingTransaction();
    await setSwitch(gateway.ctx, gateway.operator, 'wave', false);
    try {
      expect(await codeOf(payTransaction(gateway.ctx, customer, transaction.id, { method: 'wave', phone: '+221771234567' }))).toBe(
        'payment_method_unavailable',
      );
      const paid = await payTransaction(gateway.ctx, customer, transaction.id, { method: 'orange_money', phone: '+221771234567' });
      expect(paid.transaction.selectedPaymentMethod).toBe('orange_money');
    } finally {
      await setSwitch(gateway.ctx, gateway.operator, 'wave', true);
    }
  });

  it('lets an admin operator pay in the sandbox with defaults, and no other operator role', async () => {
    const { transaction } = await pendingTransaction();
    const analyst: OperatorCaller = { kind: 'operator', role: 'analyst', tokenId: null };
    expect(await codeOf(payTransaction(gateway.ctx, analyst, transaction.id, {}))).toBe('operator_forbidden');

    const paid = await payTransaction(gateway.ctx, gateway.operator, transaction.id, {});
    expect(paid.transaction).toMatchObject({ status: 'paid', selectedPaymentMethod: 'wave' });
  });

  it('answers an unknown or malformed order id as not found', async () => {
    expect(await codeOf(payTransaction(gateway.ctx, customer, '00000000-0000-4000-8000-000000000000', { method: 'wave', phone: '+221771234567' }))).toBe(
      'transaction_not_found',
    );
    expect(await codeOf(payTransaction(gateway.ctx, customer, 'not-an-id', { method: 'wave', phone: '+221771234567' }))).toBe('transaction_not_found');
  });
});
