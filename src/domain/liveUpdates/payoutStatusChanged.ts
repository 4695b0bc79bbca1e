/**
 * Live: every status change of the caller's payouts (a merchant's organisation; an operator's
 * named one, or all), from now on. See events.ts for the delivery (best effort) and its bounds.
 */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { watchStatusChanges, type PayoutStatusChange } from './events.js';

export async function payoutStatusChanged(ctx: GatewayContext, access: ReadAccess<'payoutStatusChanged'>): Promise<AsyncIterableIterator<PayoutStatusChange>> {
  return (await watchStatusChanges(ctx, 'payout', access)) as AsyncIterableIterator<PayoutStatusChange>;
}
