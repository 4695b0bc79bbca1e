/**
 * Fees (DESIGN.md): a percentage per method in basis points (1 bp = 0.01 %), set per organisation;
 * fee = round-half-up(amount x bp / 10000), in integer XOF. The gateway keeps the fee: the customer
 * pays it on top (fees_customer_side) or the merchant's proceeds carry it.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';

const BASIS_POINTS = 10_000n;

/** round-half-up(amount x bp / 10000) on exact integers: no float ever touches money. */
export function feeOf(amount: bigint, basisPoints: number): bigint {
  if (amount < 0n || basisPoints < 0) throw new Error('fees are computed on non-negative amounts and rates');
  return (amount * BigInt(basisPoints) + BASIS_POINTS / 2n) / BASIS_POINTS;
}

export type FeeRates = Pick<Organization, 'feeWaveBp' | 'feeOrangeMoneyBp' | 'feePayoutBp'>;

export function collectionFeeOf(organization: FeeRates, method: PaymentMethod, amount: bigint): bigint {
  return feeOf(amount, method === 'wave' ? organization.feeWaveBp : organization.feeOrangeMoneyBp);
}

export const payoutFeeOf = (organization: FeeRates, amount: bigint): bigint => feeOf(amount, organization.feePayoutBp);

/**
 * Who gets what of a payment: the customer pays `charged`, the merchant is credited `proceeds`,
 * the gateway keeps `fee`; charged = proceeds + fee, always.
 */
export function splitPayment(amount: bigint, fee: bigint, feesCustomerSide: boolean): { charged: bigint; proceeds: bigint; fee: bigint } {
  return feesCustomerSide ? { charged: amount + fee, proceeds: amount, fee } : { charged: amount, proceeds: amount - fee, fee };
}
