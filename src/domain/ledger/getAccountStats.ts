/**
 * GET /accounts/stats: totals over the organisation's accounts, in one SQL statement. Operators
 * may name an organisation or, without one, read the totals of every merchant account.
 */
import { Prisma } from '../../generated/prisma/client.js';
import type { ReadAccess } from '../access/auth.js';
import { requireOrganization, type AccountStats } from './accounts.js';
import type { GatewayContext } from '../context.js';

export async function getAccountStats(ctx: GatewayContext, access: ReadAccess<'getAccountStats'>): Promise<AccountStats> {
  const { organizationId } = access;
  const scope = organizationId === null ? Prisma.empty : Prisma.sql`WHERE "organizationId" = ${organizationId}::uuid`;
  const [row] = await ctx.db.$queryRaw<{ total: bigint | string; accounts: number; active: number }[]>`
    SELECT COALESCE(SUM(balance), 0)::bigint AS total, COUNT(*)::int AS accounts, (COUNT(*) FILTER (WHERE "isActive"))::int AS active
    FROM "Account" ${scope}`;
  const stats: AccountStats = { totalBalance: BigInt(row?.total ?? 0), accountCount: Number(row?.accounts ?? 0), activeAccountCount: Number(row?.active ?? 0) };
  if (stats.accountCount === 0 && organizationId !== null) await requireOrganization(ctx.db, organizationId);
  return stats;
}
