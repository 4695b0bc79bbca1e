/**
 * Operator (`gateway payout approve ORDER_ID`, GraphQL): sends a payout that waits for review
 * (above 2,000,000 XOF, funds already reserved by its creation), through the provider flow
 * (providerFlow.ts). Like a creation it takes the organisation's payout lease (409 while another
 * payout of it runs) and is sent at most once:
 * `sentAt` is set by a conditional update committed BEFORE the call (of two approvals, or an
 * approval racing a rejection, exactly one wins), then the provider is called and its answer
 * settled (payouts.ts). Returns the payout: `completed`, `failed` (funds returned) or still
 * `pending` (no answer in time: the reconciler settles it).
 */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { refuseUnlessAwaitingReview, sendPayout, settlePayout } from './payouts.js';
import type { PayoutRecord } from './store.js';
import { findVisiblePayout, keepPayoutLease, markPayoutSent, releasePayoutLease, takePayoutLease, type PayoutLease } from './store.js';
import { settleDurably } from '../providerFlow.js';
import { switchStates } from '../organizations/switches.js';

export async function approvePayout(ctx: GatewayContext, caller: Caller, orderId: string): Promise<PayoutRecord> {
  authorize(caller, 'approvePayout');
  const payout = await findVisiblePayout(ctx.db, null, orderId);
  refuseUnlessAwaitingReview(payout);
  // A switched-off payout or method is not sent, even by the operator: it stays in the queue.
  const switches = await switchStates(ctx, ctx.db);
  if (!switches.get('payouts')) throw new DomainError('payouts_disabled');
  if (!switches.get(payout.selectedPaymentMethod)) throw new DomainError('payout_method_unavailable', payout.selectedPaymentMethod);

  const lease = await takePayoutLease(ctx, payout.organizationId);
  let held: PayoutLease | null = lease;
  // Renewed while the provider is called, however long that takes (leases.ts).
  const keeper = keepPayoutLease(ctx, lease);
  try {
    if (!(await markPayoutSent(ctx, payout.id))) {
      // Approved or rejected meanwhile by someone else: say what it became, and never send it.
      refuseUnlessAwaitingReview(await findVisiblePayout(ctx.db, null, payout.id));
      throw new Error(`payout ${payout.id} awaits review but could not be marked as sent`);
    }
    const answer = await sendPayout(ctx, { payoutId: payout.id, method: payout.selectedPaymentMethod, phone: payout.recipientPhone, amount: payout.amount });
    // The settling statement releases the lease too.
    const settled = await settleDurably(ctx, { payoutId: payout.id }, () => settlePayout(ctx, ctx.db, payout.id, answer, lease));
    held = null;
    return settled;
  } finally {
    keeper.stop();
    await releasePayoutLease(ctx, held);
  }
}
