/** GET /payouts/{order_id}: one payout the caller may see (another organisation's answers 404). */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import type { PayoutRecord } from './store.js';
import { findVisiblePayout } from './store.js';

export async function getPayout(ctx: GatewayContext, access: ReadAccess<'getPayout'>, orderId: string): Promise<PayoutRecord> {
  return findVisiblePayout(ctx.db, access.organizationId, orderId);
}
