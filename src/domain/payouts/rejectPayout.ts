/**
 * Operator (`gateway payout reject ORDER_ID [--reason R]`, GraphQL): refuses a payout that waits
 * for review. In one statement (store.ts cancelAwaitingPayout), only while it is still unsent, its
 * debit is reversed (amount and fees back in `main`) and its status set to `cancelled`. Nothing was
 * ever sent, so nothing needs the provider.
 */
import type { Caller } from '../access/caller.js';
import { inTransaction } from '../afterCommit.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { announcePayoutStatus, refuseUnlessAwaitingReview } from './payouts.js';
import type { PayoutRecord } from './store.js';
import { cancelAwaitingPayout, findVisiblePayout } from './store.js';
import { MAX_DESCRIPTION_LENGTH, boundedInputText } from '../text.js';

const DEFAULT_REJECTION_REASON = 'rejected by the operator';

export async function rejectPayout(ctx: GatewayContext, caller: Caller, orderId: string, reason?: string | null): Promise<PayoutRecord> {
  authorize(caller, 'rejectPayout');
  const why = boundedInputText('reason', (reason ?? '').trim(), MAX_DESCRIPTION_LENGTH) || DEFAULT_REJECTION_REASON;
  const payout = await findVisiblePayout(ctx.db, null, orderId);
  const cancelled = await inTransaction(ctx, async (tx) => {
    const row = await cancelAwaitingPayout(ctx, payout.id, why, tx);
    if (row) await announcePayoutStatus(ctx, tx, row);
    return row;
  });
  if (cancelled) return cancelled;
  // Approved or rejected meanwhile: say what it became.
  refuseUnlessAwaitingReview(await findVisiblePayout(ctx.db, null, payout.id));
  throw new Error(`payout ${payout.id} awaits review but could not be cancelled`);
}
