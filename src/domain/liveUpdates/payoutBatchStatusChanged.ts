/**
 * Live: every status change of the caller's payout batches (started: `running`; ended:
 * `completed`, `completed_with_failures`, `cancelled`), from now on; a merchant's organisation, an
 * operator's named one, or all. `gateway listen` forwards the ended ones as `payout_batch_status`
 * events. See events.ts for the delivery (best effort) and its bounds.
 */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { watchStatusChanges, type PayoutBatchStatusChange } from './events.js';

export async function payoutBatchStatusChanged(
  ctx: GatewayContext,
  access: ReadAccess<'payoutBatchStatusChanged'>,
): Promise<AsyncIterableIterator<PayoutBatchStatusChange>> {
  return (await watchStatusChanges(ctx, 'payoutBatch', access)) as AsyncIterableIterator<PayoutBatchStatusChange>;
}
