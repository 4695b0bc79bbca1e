/**
 * Live: every status change of the caller's transactions (a merchant's organisation; an operator's
 * named one, or all), from now on. See events.ts for the delivery (best effort) and its bounds.
 */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { watchStatusChanges, type TransactionStatusChange } from './events.js';

export async function transactionStatusChanged(
  ctx: GatewayContext,
  access: ReadAccess<'transactionStatusChanged'>,
): Promise<AsyncIterableIterator<TransactionStatusChange>> {
  return (await watchStatusChanges(ctx, 'transaction', access)) as AsyncIterableIterator<TransactionStatusChange>;
}
