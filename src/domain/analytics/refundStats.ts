/**
 * refundStats: refunds over time. A refund counts in the bucket (UTC) of when it succeeded, within
 * [from, to); failed and still pending ones are not refunds (yet). Grouped by METHOD and/or
 * ORGANIZATION (a refund has no status to group by: it succeeded).
 */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { checkBucketedInput, MAX_ROWS, withinRowLimit, type BucketedStatsInput } from './ranges.js';
import { refundStatsRows, type RefundStatsRecord } from './store.js';

export async function refundStats(ctx: GatewayContext, access: ReadAccess<'refundStats'>, input: BucketedStatsInput): Promise<RefundStatsRecord[]> {
  const { unit, dimensions } = checkBucketedInput(input, ['METHOD', 'ORGANIZATION']);
  const rows = await refundStatsRows(laggingReads(ctx), {
    range: { from: input.from, to: input.to },
    unit,
    dimensions,
    organizationId: access.organizationId,
    limit: MAX_ROWS + 1,
  });
  return withinRowLimit(rows);
}
