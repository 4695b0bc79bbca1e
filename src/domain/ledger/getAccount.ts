/** GET /accounts/{id}: one account the caller may see (400 malformed id, 404 unknown or foreign). */
import type { ReadAccess } from '../access/auth.js';
import { findVisibleAccount, type AccountRecord } from './accounts.js';
import type { GatewayContext } from '../context.js';

export async function getAccount(ctx: GatewayContext, access: ReadAccess<'getAccount'>, id: string): Promise<AccountRecord> {
  return findVisibleAccount(ctx.db, access.organizationId, id);
}
