/** GET /transactions/{order_id}: one transaction the caller may see. */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { findVisibleTransaction } from './transactions.js';
import type { TransactionRecord } from './store.js';

export async function getTransaction(ctx: GatewayContext, access: ReadAccess<'getTransaction'>, orderId: string): Promise<TransactionRecord> {
  return findVisibleTransaction(ctx.db, access.organizationId, orderId);
}
