/**
 * GET /accounts/stats: totals over the organisation's accounts, in one SQL statement. Operators
 * may name an organisation or, without one, read the totals of every merchant account.
 */
import type { ReadAccess } from '../access/auth.js';
import type { AccountStats } from './store.js';
import type { GatewayContext } from '../context.js';
import { findOrganization } from '../organizations/organizations.js';
import { accountTotals } from './store.js';

export async function getAccountStats(ctx: GatewayContext, access: ReadAccess<'getAccountStats'>): Promise<AccountStats> {
  const { organizationId } = access;
  const stats = await accountTotals(ctx.db, organizationId);
  // No account: tell an unknown organisation (404, also for a malformed id) from one without accounts yet.
  if (stats.accountCount === 0 && organizationId !== null) await findOrganization(ctx.db, organizationId);
  return stats;
}
