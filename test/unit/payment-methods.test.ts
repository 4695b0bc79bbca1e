import { describe, expect, it } from 'vitest';
import { GatewayAccount, PaymentMethod } from '../../src/generated/prisma/enums.js';
import { METHOD_NAMES } from '../../src/checkout/i18n.js';
import { DomainError } from '../../src/domain/errors.js';
import { FEE_RATE_COLUMNS, FEE_RATE_SELECT, collectionFeeOf, collectionFeeRateOf, feeOf, takeFeeRates, type FeeRates } from '../../src/domain/ledger/fees.js';
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

  it('charges each method at the organisation’s own rate for it, else at its catalogue default, never another method’s', () => {
    // Distinct rates per method: a method charged at another method's rate shows.
    const own: FeeRates = { collectionFeesBp: Object.fromEntries(METHODS.map((method, index) => [method, 100 + 37 * index])), feePayoutBp: 1 };
    for (const [index, method] of METHODS.entries()) {
      expect(collectionFeeRateOf(own, method)).toBe(100 + 37 * index);
      expect(collectionFeeOf(own, method, 1_000_000n)).toBe(feeOf(1_000_000n, 100 + 37 * index));
    }
    const none: FeeRates = { collectionFeesBp: {}, feePayoutBp: 200 };
    for (const method of METHODS) expect(collectionFeeRateOf(none, method)).toBe(PAYMENT_METHOD_CATALOGUE[method].defaultCollectionFeeBp);
    expect(collectionFeeOf(none, 'wave', 10_000n)).toBe(100n);
    expect(collectionFeeOf(none, 'orange_money', 10_000n)).toBe(150n);
    expect(collectionFeeOf({ collectionFeesBp: { wave: 250 }, feePayoutBp: 0 }, 'orange_money', 10_000n)).toBe(150n);
  });

  it('refuses a stored rate that is not a whole number of basis points instead of charging nothing', () => {
    for (const bad of [-1, 1.5, '100', null, true]) {
      expect(() => collectionFeeRateOf({ collectionFeesBp: { wave: bad }, feePayoutBp: 0 }, 'wave')).toThrow(/not a whole number of basis points/);
    }
  });

  it('reads and splits the fee rate columns (collection rates by method, then payouts’)', () => {
    expect([...FEE_RATE_COLUMNS].sort()).toEqual(['collectionFeesBp', 'feePayoutBp']);
    expect(Object.keys(FEE_RATE_SELECT).sort()).toEqual([...FEE_RATE_COLUMNS].sort());
    const { feeRates, rest } = takeFeeRates({ id: 't1', amount: 5n, collectionFeesBp: { wave: 1 }, feePayoutBp: 3 });
    expect(feeRates).toEqual({ collectionFeesBp: { wave: 1 }, feePayoutBp: 3 });
    expect(rest).toEqual({ id: 't1', amount: 5n });
  });

  it('refuses a method without a row instead of falling back to another method', () => {
    expect(() => paymentMethodRow(UNKNOWN)).toThrow(/no payment method catalogue row/);
    expect(() => clearingAccountOf(UNKNOWN)).toThrow(/no payment method catalogue row/);
    expect(() => collectionFeeOf({ collectionFeesBp: {}, feePayoutBp: 1 }, UNKNOWN, 100n)).toThrow(/no payment method catalogue row/);
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
    expect(failed('orange_money')).toBe(
      'Failed to withdraw: the withdrawal failed at the orange provider level. The amount and fees were returned to your balance.',
    );
    expect(new DomainError('payout_method_unavailable', 'wave').message).toBe(
      'The wave provider is unavailable: payouts with wave are temporarily disabled. Please use the other payment method (orange_money) or try again later.',
    );
    expect(new DomainError('payout_method_unavailable', 'orange_money').message).toBe(
      'The orange_money provider is unavailable: payouts with orange_money are temporarily disabled. Please use the other payment method (wave) or try again later.',
    );
  });
});
