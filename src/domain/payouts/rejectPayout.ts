/**
 * Operator (`gateway payout reject ORDER_ID [--reason R]`, GraphQL): refuses a payout that waits
 * for review. In one database transaction the row is locked, found still unsent, its debit
 * reversed (amount and fees back in `main`) and its status set to `cancelled`. Nothing was ever
 * sent, so nothing needs the provider.
 */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { findVisiblePayout, lockPayoutStatus, refuseUnlessAwaitingReview, returnFunds, type PayoutRecord } from './payouts.js';
import { MAX_DESCRIPTION_LENGTH, boundedInputText } from '../text.js';

const DEFAULT_REJECTION_REASON = 'rejected by the operator';

export async function rejectPayout(ctx: GatewayContext, caller: Caller, orderId: string, reason?: string | null): Promise<PayoutRecord> {
  authorize(caller, 'rejectPayout');
  const why = boundedInputText('reason', (reason ?? '').trim(), MAX_DESCRIPTION_LENGTH) || DEFAULT_REJECTION_REASON;
  const payout = await findVisiblePayout(ctx.db, null, orderId);
  return ctx.db.$transaction(async (tx) => {
    await lockPayoutStatus(tx, payout.id);
    // Read again under the row lock: an approval may have sent it since.
    refuseUnlessAwaitingReview(await tx.payout.findUniqueOrThrow({ where: { id: payout.id } }));
    await returnFunds(tx, payout.id, 'rejected');
    return tx.payout.update({ where: { id: payout.id }, data: { status: 'cancelled', failureReason: why } });
  });
}
