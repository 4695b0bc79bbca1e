/**
 * An account's ledger entries, newest first, paginated like every list. Reading them is reading
 * the account (its access row equals getAccount's); an account the caller may not see has no entries for
 * it (the organisation condition joins the same statement).
 */
import type { ReadAccess } from '../access/auth.js';
import type { LedgerEntryRecord } from './accounts.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { isUuid } from '../ids.js';
import { entriesPage } from './store.js';

export async function listAccountEntries(
  ctx: GatewayContext,
  access: ReadAccess<'listAccountEntries'>,
  accountId: string,
  request: PageRequest,
): Promise<Page<LedgerEntryRecord>> {
  const { page, limit, skip } = resolvePage(request);
  if (!isUuid(accountId)) return toPage([], 0, page, limit);
  const { entries, totalCount } = await entriesPage(laggingReads(ctx), accountId, access.organizationId, skip, limit);
  return toPage(entries, totalCount, page, limit);
}
