/**
 * transactionStats (docs/analytics.md): transactions counted in the bucket of their
 * creation (UTC), within [from, to), cancelled ones included, grouped by the dimensions asked for;
 * amounts and fees summed in PostgreSQL. A merchant reads its own organisation; an operator every
 * one, or the one it names.
 */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { checkBucketedInput, MAX_ROWS, splitByWholeDays, withinRowLimit, type BucketedStatsInput } from './ranges.js';
import { refreshTransactionRollup } from './rollup.js';
import { transactionStatsRows, type TransactionStatsRecord } from './store.js';

export async function transactionStats(
  ctx: GatewayContext,
  access: ReadAccess<'transactionStats'>,
  input: BucketedStatsInput,
): Promise<TransactionStatsRecord[]> {
  const { unit, dimensions } = checkBucketedInput(input);
  const read = () =>
    transactionStatsRows(laggingReads(ctx), { split: splitByWholeDays(input), unit, dimensions, organizationId: access.organizationId, limit: MAX_ROWS + 1 });
  // Read first: the rows say whether the rollup was up to date when read. If not (or no row says),
  // fold the waiting changes in and read again. A replica that has not yet replayed the refresh
  // answers as of its own snapshot: a lagging read, as docs/read-replica.md allows analytics.
  let rows = await read();
  if (!rows[0]?.fresh) {
    await refreshTransactionRollup(ctx);
    rows = await read();
  }
  return withinRowLimit(rows);
}
