/**
 * timeToPayStats: how long customers take to pay, from creation to payment, for the transactions
 * created in [from, to) that were paid: the median and the 90th percentile (continuous, in seconds)
 * per method used, then over every method (method null).
 */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { checkScannedRange, type StatsRange } from './ranges.js';
import { timeToPayRows, type TimeToPayRecord } from './store.js';

export async function timeToPayStats(ctx: GatewayContext, access: ReadAccess<'timeToPayStats'>, range: StatsRange): Promise<TimeToPayRecord[]> {
  checkScannedRange(range);
  const rows = await timeToPayRows(laggingReads(ctx), range, access.organizationId);
  // No paid transaction at all: ROLLUP still answers its total row, with a count of 0.
  return rows.filter((row) => row.count > 0);
}
