/**
 * Takes a transaction back, whatever became of it: cancels it while pending, refunds it once
 * paid (REST v1's delete; v2 and GraphQL keep the two operations apart).
 *
 * One read of the transaction decides which operation it is, and that operation alone runs,
 * under its own scopes (docs/api.md#rest-v1-deprecated: v1 takes the scopes of the operation it maps to) and with the
 * request's Idempotency-Key (the key's fingerprint is that operation's, so a v1 delete that
 * refunded and a v2 refund with one key are one request):
 * - pending or cancelled: cancel's business (a cancelled one gets cancel's `already_deleted`);
 * - paid, paid_and_blocked or refunded: refund's (a refunded one gets refund's `cannot_refund`).
 *
 * The call is authorised as cancelOrRefundTransaction (the scopes that may cancel or refund), then
 * as the one operation it turns out to be. A key that may refund but not
 * cancel (`management`) is refused with cancel's 403 whatever is cancel's business: a pending or
 * cancelled transaction, and a refunded one (not refundable, so a refund has nothing to say to it;
 * unless its key replays the refund that key made).
 */
import type { Caller } from '../access/caller.js';
import { mayRun } from '../access/policy.js';
import { authorizeMerchant, type MerchantAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { runIdempotently, type IdempotentOutcome } from '../idempotency.js';
import { findVisibleTransaction } from '../transactions/transactions.js';
import type { TransactionRecord } from '../transactions/store.js';
import { cancelClosingCollection, cancelReadTransaction } from '../transactions/cancelTransaction.js';
import type { OperationOptions } from '../inputs.js';
import { refundTransaction } from './refundTransaction.js';

export type TakenBack = IdempotentOutcome<TransactionRecord> & { outcome: 'cancelled' | 'refunded' };

export async function cancelOrRefundTransaction(
  ctx: GatewayContext,
  access: MerchantAccess<'cancelOrRefundTransaction'>,
  orderId: string,
  options: OperationOptions = {},
): Promise<TakenBack> {
  const transaction = await findVisibleTransaction(ctx.db, access.organizationId, orderId);
  if (transaction.status === 'pending' || transaction.status === 'cancelled') {
    const cancelling = authorizeMerchant(access.caller, 'cancelTransaction');
    const scope = {
      organizationId: cancelling.organizationId,
      key: options.idempotencyKey,
      operation: 'cancelTransaction',
      input: { orderId: transaction.id },
    };
    // A collection left open at the provider is closed first, outside the keyed database transaction.
    const cancelled = await cancelClosingCollection(ctx, transaction.id, () =>
      runIdempotently(
        ctx,
        scope,
        async (db) => {
          try {
            return await cancelReadTransaction(ctx, db, cancelling.organizationId, transaction);
          } catch (error) {
            // Paid between the read and the cancel: not a refusal to keep under the key (a 409 is
            // not kept), so a retry with it reads the transaction paid and refunds it, as a delete
            // of a paid transaction does.
            if (error instanceof DomainError && error.code === 'cannot_delete_paid') throw new DomainError('payment_in_progress');
            throw error;
          }
        },
        { withoutKey: 'one-statement' },
      ),
    );
    return { outcome: 'cancelled', ...cancelled };
  }
  try {
    return { outcome: 'refunded', ...(await refundTransaction(ctx, authorizeMerchant(access.caller, 'refundTransaction'), orderId, options)) };
  } catch (error) {
    // Refunded already: for a key that may not cancel, cancel's 403 (see above).
    if (error instanceof DomainError && error.code === 'cannot_refund' && !mayCancel(access.caller)) throw new DomainError('permission_denied');
    throw error;
  }
}

const mayCancel = (caller: Caller): boolean => mayRun(caller, 'cancelTransaction');
