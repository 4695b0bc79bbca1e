/** DELETE /transactions/{order_id}: cancels (soft-deletes) a transaction nobody has paid. */
import type { MerchantAccess } from '../access/auth.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { Db } from '../ports.js';
import { cancelIfPendingAndUnclaimed } from './store.js';
import { announceStatusChange } from '../liveUpdates/events.js';
import { findVisibleTransaction } from './transactions.js';
import type { TransactionRecord } from './store.js';

export async function cancelTransaction(ctx: GatewayContext, access: MerchantAccess<'cancelTransaction'>, orderId: string): Promise<TransactionRecord> {
  const transaction = await findVisibleTransaction(ctx.db, access.organizationId, orderId);
  return cancelReadTransaction(ctx, ctx.db, access.organizationId, transaction);
}

/**
 * Cancels `transaction` as the caller read it (cancelOrRefundTransaction, REST v1's delete, reads
 * it once to choose between cancel and refund), through `db`: the client, or the transaction an
 * Idempotency-Key runs in.
 */
export async function cancelReadTransaction(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  organizationId: string,
  transaction: TransactionRecord,
): Promise<TransactionRecord> {
  refuseUnlessPending(transaction.status);

  // Conditional on `pending` and on no wallet being asked to pay it (a payment attempt's claim):
  // a payment landing between the read and this write wins, and the cancel is refused instead of
  // hiding a paid transaction or cancelling one whose customer is confirming on the phone.
  if (!(await cancelIfPendingAndUnclaimed(db, transaction.id, ctx.clock.now()))) {
    const current = await findVisibleTransaction(db, organizationId, transaction.id);
    refuseUnlessPending(current.status);
    throw new DomainError('payment_in_progress');
  }
  announceStatusChange(ctx, db, 'transaction', { ...transaction, status: 'cancelled' });
  return findVisibleTransaction(db, organizationId, transaction.id);
}

function refuseUnlessPending(status: TransactionRecord['status']): void {
  if (status === 'cancelled') throw new DomainError('already_deleted');
  // Paid, held in escrow or already refunded: money moved, so this is a refund's business.
  if (status !== 'pending') throw new DomainError('cannot_delete_paid');
}
