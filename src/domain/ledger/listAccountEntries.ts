/**
 * An account's ledger entries, newest first, paginated like every list. Reading them is reading
 * the account (its access row equals getAccount's); an account the caller may not see has no entries for
 * it (the organisation condition joins the same statement).
 */
import type { ReadAccess } from '../access/auth.js';
import type { LedgerEntryRecord } from './accounts.js';
import type { GatewayContext } from '../context.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { isUuid } from '../ids.js';

export async function listAccountEntries(ctx: GatewayContext, access: ReadAccess<'listAccountEntries'>, accountId: string, request: PageRequest): Promise<Page<LedgerEntryRecord>> {
  const { page, limit, skip } = resolvePage(request);
  if (!isUuid(accountId)) return toPage([], 0, page, limit);
  const where = { accountId, ...(access.organizationId !== null && { account: { organizationId: access.organizationId } }) };
  const [items, totalCount] = await Promise.all([
    ctx.db.ledgerEntry.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take: limit }),
    ctx.db.ledgerEntry.count({ where }),
  ]);
  return toPage(items, totalCount, page, limit);
}
