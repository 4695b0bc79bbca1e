/** DELETE /transactions/{order_id}: cancels (soft-deletes) a transaction nobody has paid. */
import type { MerchantAccess } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { refuseWhileCollecting } from '../paymentAttempts.js';
import { findVisibleTransaction, withOrderedProducts, type TransactionRecord } from '../transactions.js';

export async function cancelTransaction(ctx: GatewayContext, access: MerchantAccess<'cancelTransaction'>, orderId: string): Promise<TransactionRecord> {
  const transaction = await findVisibleTransaction(ctx.db, access.organizationId, orderId);
  refuseUnlessPending(transaction.status);

  // The row lock orders this against a payment attempt being recorded: either the attempt sees
  // `cancelled`, or this sees the attempt and refuses while the wallet is being asked (409).
  // A paid transaction cannot be cancelled: the status is read again under the lock.
  await ctx.db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ status: TransactionRecord['status'] }[]>`SELECT status FROM "Transaction" WHERE id = ${transaction.id}::uuid FOR UPDATE`;
    refuseUnlessPending(row?.status ?? 'cancelled');
    await refuseWhileCollecting(tx, transaction.id);
    await tx.transaction.update({ where: { id: transaction.id }, data: { status: 'cancelled', isDeleted: true, cancelledAt: ctx.clock.now() } });
  });
  return ctx.db.transaction.findUniqueOrThrow({ where: { id: transaction.id }, include: withOrderedProducts });
}

function refuseUnlessPending(status: TransactionRecord['status']): void {
  if (status === 'cancelled') throw new DomainError('already_deleted');
  // Paid, held in escrow or already refunded: money moved, so this is a refund's business.
  if (status !== 'pending') throw new DomainError('cannot_delete_paid');
}
