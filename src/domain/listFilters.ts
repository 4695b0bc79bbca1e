/**
 * The filters every list shares (transactions, payouts): an amount range and a creation-date
 * range, validated once so that every list refuses the same input with the same words.
 */
import { DomainError } from './errors.js';
import { MAXIMUM_AMOUNT } from './money.js';

export interface RangeFilters {
  minAmount?: number;
  maxAmount?: number;
  startDate?: Date;
  endDate?: Date;
}

/** Prisma conditions on `amount` and `createdAt` (empty objects when unset). */
export function rangeConditions(input: RangeFilters): { amount: { gte?: bigint; lte?: bigint }; createdAt: { gte?: Date; lte?: Date } } {
  for (const [name, amount] of [
    ['min_amount', input.minAmount],
    ['max_amount', input.maxAmount],
  ] as const) {
    if (amount !== undefined && (!Number.isSafeInteger(amount) || amount < 0 || amount > MAXIMUM_AMOUNT)) {
      throw new DomainError('invalid_query', `${name} must be an integer from 0 to ${MAXIMUM_AMOUNT}`);
    }
  }
  if (input.minAmount !== undefined && input.maxAmount !== undefined && input.minAmount > input.maxAmount) {
    throw new DomainError('invalid_query', 'min_amount is greater than max_amount');
  }
  return {
    amount: {
      ...(input.minAmount !== undefined && { gte: BigInt(input.minAmount) }),
      ...(input.maxAmount !== undefined && { lte: BigInt(input.maxAmount) }),
    },
    createdAt: {
      ...(input.startDate && { gte: input.startDate }),
      ...(input.endDate && { lte: input.endDate }),
    },
  };
}
