/**
 * Fees (DESIGN.md): a percentage per method in basis points (1 bp = 0.01 %), set per organisation;
 * fee = round-half-up(amount x bp / 10000), in integer XOF. The gateway keeps the fee: the customer
 * pays it on top (fees_customer_side) or the merchant's proceeds carry it.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { PAYMENT_METHODS } from '../enums.js';
import { PAYMENT_METHOD_CATALOGUE, paymentMethodRow, type CollectionFeeColumn } from '../paymentMethods.js';

const BASIS_POINTS = 10_000n;

/** round-half-up(amount x bp / 10000) on exact integers: no float ever touches money. */
export function feeOf(amount: bigint, basisPoints: number): bigint {
  if (amount < 0n || basisPoints < 0) throw new Error('fees are computed on non-negative amounts and rates');
  return (amount * BigInt(basisPoints) + BASIS_POINTS / 2n) / BASIS_POINTS;
}

/** The organisation columns a fee is computed from: each method's (its catalogue row names it), then payouts'. */
export type FeeRateColumn = CollectionFeeColumn | 'feePayoutBp';
export type FeeRates = Pick<Organization, FeeRateColumn>;
export const FEE_RATE_COLUMNS: readonly FeeRateColumn[] = [...new Set(PAYMENT_METHODS.map((method) => PAYMENT_METHOD_CATALOGUE[method].feeColumn)), 'feePayoutBp'];
const IS_FEE_RATE_COLUMN: ReadonlySet<string> = new Set(FEE_RATE_COLUMNS);

/** A Prisma `select` of those columns. */
export const FEE_RATE_SELECT = Object.fromEntries(FEE_RATE_COLUMNS.map((column) => [column, true])) as Record<FeeRateColumn, true>;

/** Splits a row read with FEE_RATE_COLUMNS into the rates and the rest. */
export function takeFeeRates<T extends FeeRates>(row: T): { feeRates: FeeRates; rest: Omit<T, FeeRateColumn> } {
  const rest: Record<string, unknown> = {};
  const feeRates: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) (IS_FEE_RATE_COLUMN.has(key) ? feeRates : rest)[key] = value;
  return { feeRates: feeRates as FeeRates, rest: rest as Omit<T, FeeRateColumn> };
}

/** The fee on a payment with `method`, at the rate the method's catalogue row reads from the organisation. */
export function collectionFeeOf(organization: FeeRates, method: PaymentMethod, amount: bigint): bigint {
  return feeOf(amount, organization[paymentMethodRow(method).feeColumn]);
}

export const payoutFeeOf = (organization: FeeRates, amount: bigint): bigint => feeOf(amount, organization.feePayoutBp);

/**
 * Who gets what of a payment: the customer pays `charged`, the merchant is credited `proceeds`,
 * the gateway keeps `fee`; charged = proceeds + fee, always.
 */
export function splitPayment(amount: bigint, fee: bigint, feesCustomerSide: boolean): { charged: bigint; proceeds: bigint; fee: bigint } {
  return feesCustomerSide ? { charged: amount + fee, proceeds: amount, fee } : { charged: amount, proceeds: amount - fee, fee };
}
