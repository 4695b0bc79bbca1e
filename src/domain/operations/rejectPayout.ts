/**
 * Operator (`gateway payout reject ORDER_ID [--reason R]`, GraphQL): refuses a payout that waits
 * for review. In one database transaction the row is locked, found still unsent, its debit
 * reversed (amount and fees back in `main`) and its status set to `cancelled`. Nothing was ever
 * sent, so nothing needs the provider.
 */
import { authorizeOperator, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findVisiblePayout, lockPayoutStatus, refuseUnlessAwaitingReview, returnFunds, type PayoutRecord } from '../payouts.js';
import { MAX_DESCRIPTION_LENGTH } from '../text.js';

const DEFAULT_REJECTION_REASON = 'rejected by the operator';

export async function rejectPayout(ctx: GatewayContext, caller: Caller, orderId: string, reason?: string | null): Promise<PayoutRecord> {
  authorizeOperator(caller, 'mutate');
  const why = (reason ?? '').trim() || DEFAULT_REJECTION_REASON;
  if (why.length > MAX_DESCRIPTION_LENGTH || why.includes('\u0000')) throw new DomainError('invalid_input', `reason must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  const payout = await findVisiblePayout(ctx.db, null, orderId);
  return ctx.db.$transaction(async (tx) => {
    await lockPayoutStatus(tx, payout.id);
    // Read again under the row lock: an approval may have sent it since.
    refuseUnlessAwaitingReview(await tx.payout.findUniqueOrThrow({ where: { id: payout.id } }));
    await returnFunds(tx, payout.id, 'rejected');
    return tx.payout.update({ where: { id: payout.id }, data: { status: 'cancelled', failureReason: why } });
  });
}
