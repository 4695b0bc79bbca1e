/** DELETE /transactions/{order_id}: cancels (soft-deletes) a transaction nobody has paid. */
import type { MerchantAccess } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findVisibleTransaction, withOrderedProducts, type TransactionRecord } from '../transactions.js';

export async function cancelTransaction(ctx: GatewayContext, access: MerchantAccess<'cancelTransaction'>, orderId: string): Promise<TransactionRecord> {
  const transaction = await findVisibleTransaction(ctx.db, access.organizationId, orderId);
  refuseUnlessPending(transaction.status);

  // Conditional on `pending` and on no wallet being asked to pay it (a payment attempt's claim):
  // a payment landing between the read and this write wins, and the cancel is refused instead of
  // hiding a paid transaction or cancelling one whose customer is confirming on the phone.
  const { count } = await ctx.db.transaction.updateMany({
    where: { id: transaction.id, status: 'pending', collectingAttemptId: null },
    data: { status: 'cancelled', isDeleted: true, cancelledAt: ctx.clock.now() },
  });
  if (count === 0) {
    const current = await findVisibleTransaction(ctx.db, access.organizationId, orderId);
    refuseUnlessPending(current.status);
    throw new DomainError('payment_in_progress');
  }
  return ctx.db.transaction.findUniqueOrThrow({ where: { id: transaction.id }, include: withOrderedProducts });
}

function refuseUnlessPending(status: TransactionRecord['status']): void {
  if (status === 'cancelled') throw new DomainError('already_deleted');
  // Paid, held in escrow or already refunded: money moved, so this is a refund's business.
  if (status !== 'pending') throw new DomainError('cannot_delete_paid');
}
