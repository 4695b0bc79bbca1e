/**
 * Money crosses the wire as JSON integers. Amounts are stored as bigint and bounded by
 * MAXIMUM_AMOUNT (10^12 XOF), far inside JavaScript's exact integer range, so this is exact.
 */
export function toWireAmount(amount: bigint): number {
  const value = Number(amount);
  if (!Number.isSafeInteger(value)) throw new Error(`amount ${amount} is outside the exact integer range`);
  return value;
}
