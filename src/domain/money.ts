/**
 * Money rules: integer XOF, the bounds every amount lives within, and its crossing to the wire.
 * Amounts are stored as bigint and bounded by MAXIMUM_AMOUNT, far inside JavaScript's exact
 * integer range, so converting one to a JSON number is exact.
 */

/** Totals and payouts must be strictly greater than this (spec: "greater than 10 XOF"). */
export const MINIMUM_AMOUNT_EXCLUSIVE = 10;
/**
 * Hard ceiling on any single amount: 10^12 XOF (about 1.5 billion EUR). Keeps every amount far
 * inside JavaScript's exact integer range (2^53) and PostgreSQL bigint, whatever an organisation's
 * own limits say.
 */
export const MAXIMUM_AMOUNT = 1_000_000_000_000;
/** Monthly volume an unverified organisation may create (spec: 200000 XOF), per UTC calendar month. */
export const UNVERIFIED_MONTHLY_LIMIT = 200_000;

/** First instant of the UTC calendar month containing `now`: where the monthly limit restarts. */
export function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export function toWireAmount(amount: bigint): number {
  const value = Number(amount);
  if (!Number.isSafeInteger(value)) throw new Error(`amount ${amount} is outside the exact integer range`);
  return value;
}
