import { describe, expect, it } from 'vitest';
import { GatewayAccount, PaymentMethod } from '../../src/generated/prisma/enums.js';
import { METHOD_NAMES } from '../../src/checkout/i18n.js';
import { DomainError } from '../../src/domain/errors.js';
import { FEE_RATE_COLUMNS, FEE_RATE_SELECT, collectionFeeOf, feeOf, takeFeeRates, type FeeRates } from '../../src/domain/ledger/fees.js';
import { clearingAccountOf } from '../../src/domain/ledger/posting.js';
import { PAYMENT_METHOD_CATALOGUE, parseV1MethodName, paymentMethodRow, toV1MethodName } from '../../src/domain/paymentMethods.js';

const METHODS = Object.values(PaymentMethod);
const rows = () => METHODS.map((method) => paymentMethodRow(method));
/** A value a future enum could hold but the catalogue has no row for. */
const UNKNOWN = 'free_money' as PaymentMethod;

describe('the payment method catalogue', () => {
  it('has exactly one row per PaymentMethod of the schema', () => {
    expect(Object.keys(PAYMENT_METHOD_CATALOGUE).sort()).toEqual([...METHODS].sort());
  });

  it('gives each method its own clearing account, and clearingAccountOf reads it from the row', () => {
    const accounts = rows().map((row) => row.clearingAccount);
    expect(new Set(accounts).size).toBe(METHODS.length);
    for (const account of accounts) expect(Object.values(GatewayAccount)).toContain(account);
    for (const method of METHODS) expect(clearingAccountOf(method)).toBe(PAYMENT_METHOD_CATALOGUE[method].clearingAccount);
    expect(clearingAccountOf('wave')).toBe('provider_clearing_wave');
    expect(clearingAccountOf('orange_money')).toBe('provider_clearing_orange_money');
  });

  it('reads each method’s collection fee from the column its row names, never another method’s', () => {
    const columns = rows().map((row) => row.feeColumn);
    expect(new Set(columns).size).toBe(METHODS.length);
    // Distinct rates per column: a method charged at another method's rate shows.
    const rates = Object.fromEntries(FEE_RATE_COLUMNS.map((column, index) => [column, 100 + 37 * index])) as unknown as FeeRates;
    for (const method of METHODS) {
      const column = PAYMENT_METHOD_CATALOGUE[method].feeColumn;
      expect(collectionFeeOf(rates, method, 1_000_000n)).toBe(feeOf(1_000_000n, rates[column]));
    }
    const organization: FeeRates = { feeWaveBp: 100, feeOrangeMoneyBp: 150, feePayoutBp: 200 };
    expect(collectionFeeOf(organization, 'wave', 10_000n)).toBe(100n);
    expect(collectionFeeOf(organization, 'orange_money', 10_000n)).toBe(150n);
  });

  it('reads and splits every fee rate column (each method’s, then payouts’)', () => {
    expect([...FEE_RATE_COLUMNS].sort()).toEqual([...rows().map((row) => row.feeColumn), 'feePayoutBp'].sort());
    expect(Object.keys(FEE_RATE_SELECT).sort()).toEqual([...FEE_RATE_COLUMNS].sort());
    const { feeRates, rest } = takeFeeRates({ id: 't1', amount: 5n, feeWaveBp: 1, feeOrangeMoneyBp: 2, feePayoutBp: 3 });
    expect(feeRates).toEqual({ feeWaveBp: 1, feeOrangeMoneyBp: 2, feePayoutBp: 3 });
    expect(rest).toEqual({ id: 't1', amount: 5n });
  });

  it('refuses a method without a row instead of falling back to another method', () => {
    expect(() => paymentMethodRow(UNKNOWN)).toThrow(/no payment method catalogue row/);
    expect(() => clearingAccountOf(UNKNOWN)).toThrow(/no payment method catalogue row/);
    expect(() => collectionFeeOf({ feeWaveBp: 1, feeOrangeMoneyBp: 1, feePayoutBp: 1 }, UNKNOWN, 100n)).toThrow(/no payment method catalogue row/);
    expect(() => paymentMethodRow('toString' as PaymentMethod)).toThrow(/no payment method catalogue row/);
  });

  it('names each method on every surface from its row', () => {
    for (const method of METHODS) {
      const row = PAYMENT_METHOD_CATALOGUE[method];
      expect(toV1MethodName(method)).toBe(row.v1Name);
      expect(parseV1MethodName(row.v1Name)).toBe(method);
      expect(METHOD_NAMES[method]).toBe(row.displayName);
    }
    expect(METHOD_NAMES).toEqual({ wave: 'Wave', orange_money: 'Orange Money' });
    expect(() => parseV1MethodName('FREE_MONEY')).toThrow('Unsupported payment method: FREE_MONEY is not supported by this gateway. Use WAVE or ORANGE_MONEY.');
  });

  it('words the payout errors as before, per method', () => {
    const failed = (method: PaymentMethod) => new DomainError('payout_failed', paymentMethodRow(method).payoutProviderName).message;
    expect(failed('wave')).toBe('Failed to withdraw: the withdrawal failed at the wave provider level. The amount and fees were returned to your balance.');
    expect(failed('orange_money')).toBe('Failed to withdraw: the withdrawal failed at the orange provider level. The amount and fees were returned to your balance.');
    expect(new DomainError('payout_method_unavailable', 'wave').message).toBe(
      'The wave provider is unavailable: payouts with wave are temporarily disabled. Please use the other payment method (orange_money) or try again later.',
    );
    expect(new DomainError('payout_method_unavailable', 'orange_money').message).toBe(
      'The orange_money provider is unavailable: payouts with orange_money are temporarily disabled. Please use the other payment method (wave) or try again later.',
    );
  });
});
