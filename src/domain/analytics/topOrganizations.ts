/**
 * topOrganizations (operators): the organisations with the largest paid volume among the
 * transactions created in [from, to): paid, held in escrow, or paid then refunded (the money went
 * through the gateway). Largest first, at most `limit` of them.
 */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { checkBucketedRange, splitByWholeDays, type StatsRange } from './ranges.js';
import { refreshTransactionRollup } from './rollup.js';
import { topOrganizationRows, type OrganizationVolumeRecord } from './store.js';

/** Without a limit: a leaderboard's first screen. */
const DEFAULT_TOP_ORGANIZATIONS = 10;
/** At most: a ranking past 100 is a list, which listOrganizations pages through. */
export const MAX_TOP_ORGANIZATIONS = 100;

export async function topOrganizations(
  ctx: GatewayContext,
  _access: ReadAccess<'topOrganizations'>,
  input: StatsRange & { limit?: number | null },
): Promise<OrganizationVolumeRecord[]> {
  // The range reads the daily rollup: bounded like transactionStats by month (at most 400 months).
  checkBucketedRange(input, 'MONTH');
  const limit = input.limit ?? DEFAULT_TOP_ORGANIZATIONS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TOP_ORGANIZATIONS)
    throw new DomainError('invalid_input', `limit must be an integer from 1 to ${MAX_TOP_ORGANIZATIONS}`);
  await refreshTransactionRollup(ctx);
  return topOrganizationRows(laggingReads(ctx), splitByWholeDays(input), limit);
}
