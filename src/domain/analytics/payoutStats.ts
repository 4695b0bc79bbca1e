/**
 * payoutStats (docs/analytics.md): payouts counted in the bucket of their creation (UTC), within [from, to),
 * every status (cancelled and failed included: group by STATUS to separate them), grouped as asked.
 */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { checkBucketedInput, MAX_ROWS, withinRowLimit, type BucketedStatsInput } from './ranges.js';
import { payoutStatsRows, type PayoutStatsRecord } from './store.js';

export async function payoutStats(ctx: GatewayContext, access: ReadAccess<'payoutStats'>, input: BucketedStatsInput): Promise<PayoutStatsRecord[]> {
  const { unit, dimensions } = checkBucketedInput(input);
  const rows = await payoutStatsRows(laggingReads(ctx), {
    range: { from: input.from, to: input.to },
    unit,
    dimensions,
    organizationId: access.organizationId,
    limit: MAX_ROWS + 1,
  });
  return withinRowLimit(rows);
}
