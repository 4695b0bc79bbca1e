/**
 * Fees (docs/architecture.md#fees): a percentage per method in basis points (1 bp = 0.01 %), per organisation (its
 * own rate for a method, else the method's catalogue default);
 * fee = round-half-up(amount x bp / 10000), in integer XOF. The gateway keeps the fee: the customer
 * pays it on top (fees_customer_side) or the merchant's proceeds carry it.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { paymentMethodRow } from '../paymentMethods.js';

const BASIS_POINTS = 10_000n;

/** round-half-up(amount x bp / 10000) on exact integers: no float ever touches money. */
export function feeOf(amount: bigint, basisPoints: number): bigint {
  if (amount < 0n || basisPoints < 0) throw new Error('fees are computed on non-negative amounts and rates');
  return (amount * BigInt(basisPoints) + BASIS_POINTS / 2n) / BASIS_POINTS;
}

/** The organisation columns a fee is computed from: the collection rates keyed by method, and the payout rate. */
export type FeeRateColumn = 'collectionFeesBp' | 'feePayoutBp';
export type FeeRates = Pick<Organization, FeeRateColumn>;
export const FEE_RATE_COLUMNS: readonly FeeRateColumn[] = ['collectionFeesBp', 'feePayoutBp'];
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

/** The organisation's collection fee rate for `method`: its own when it set one, else the method's catalogue default. */
export function collectionFeeRateOf(organization: FeeRates, method: PaymentMethod): number {
  const row = paymentMethodRow(method);
  const own = ownRates(organization)[method];
  if (own === undefined) return row.defaultCollectionFeeBp;
  // Written only by the gateway (a migration, an operator's update): anything else is a bug, not a free payment.
  if (typeof own !== 'number' || !Number.isSafeInteger(own) || own < 0)
    throw new Error(`the ${method} fee rate is not a whole number of basis points: ${JSON.stringify(own)}`);
  return own;
}

function ownRates(organization: FeeRates): Record<string, unknown> {
  const rates = organization.collectionFeesBp;
  return rates !== null && typeof rates === 'object' && !Array.isArray(rates) ? rates : {};
}

/** The fee on a payment with `method`, at the organisation's rate for it. */
export function collectionFeeOf(organization: FeeRates, method: PaymentMethod, amount: bigint): bigint {
  return feeOf(amount, collectionFeeRateOf(organization, method));
}

export const payoutFeeOf = (organization: FeeRates, amount: bigint): bigint => feeOf(amount, organization.feePayoutBp);

/**
 * Who gets what of a payment: the customer pays `charged`, the merchant is credited `proceeds`,
 * the gateway keeps `fee`; charged = proceeds + fee, always.
 */
export function splitPayment(amount: bigint, fee: bigint, feesCustomerSide: boolean): { charged: bigint; proceeds: bigint; fee: bigint } {
  return feesCustomerSide ? { charged: amount + fee, proceeds: amount, fee } : { charged: amount, proceeds: amount - fee, fee };
}
