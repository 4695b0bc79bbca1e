/** DELETE /transactions/{order_id}: cancels (soft-deletes) a transaction nobody has paid. */
import type { MerchantAccess } from '../access/auth.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { Db } from '../ports.js';
import { closeAbandonedAttempt } from '../payments/attempts.js';
import { cancelIfPendingAndUnclaimed } from './store.js';
import { announceStatusChange } from '../liveUpdates/events.js';
import { findVisibleTransaction } from './transactions.js';
import type { TransactionRecord } from './store.js';

export async function cancelTransaction(ctx: GatewayContext, access: MerchantAccess<'cancelTransaction'>, orderId: string): Promise<TransactionRecord> {
  const transaction = await findVisibleTransaction(ctx.db, access.organizationId, orderId);
  return cancelClosingCollection(ctx, transaction.id, () => cancelReadTransaction(ctx, ctx.db, access.organizationId, transaction));
}

/**
 * The cancel rule for a transaction whose customer was sent to a provider's page (a Wave checkout
 * session still open): `cancel` is refused with `payment_in_progress` while the attempt holds it,
 * so the provider is asked to close the collection first (Wave: POST
 * /v1/checkout/sessions/{id}/expire), the attempt is settled with what it became, and the cancel
 * runs again. Only a collection the provider says was paid makes it fail: that payment is then
 * recorded on the transaction (never lost) and the cancel answers as for a paid one. A provider
 * that cannot close it, or is unsure, leaves the 409. Every surface cancels through here
 * (cancelTransaction; cancelOrRefundTransaction for REST v1's delete). The provider is called
 * outside any database transaction: `cancel` opens its own.
 */
export async function cancelClosingCollection<T>(ctx: GatewayContext, transactionId: string, cancel: () => Promise<T>): Promise<T> {
  try {
    return await cancel();
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'payment_in_progress')) throw error;
    if (!(await closeAbandonedAttempt(ctx, transactionId))) throw error;
    return cancel();
  }
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
