/**
 * Takes a transaction back, whatever became of it: cancels it while pending, refunds it once
 * paid (REST v1's delete; v2 and GraphQL keep the two operations apart). Each outcome runs its
 * own operation under that operation's scopes (DESIGN: v1 takes the scopes of the operation it
 * maps to), and the operations decide which applies, never the caller: cancel refuses a paid
 * transaction (`cannot_delete_paid`), then the refund applies its own rules.
 *
 * Authorised as refund, whose scopes hold cancel's: a key that may refund but not cancel
 * (`management`) goes straight to the refund, and whatever the refund finds not refundable
 * (pending, cancelled, refunded) is a cancel's business, refused to that key with cancel's 403.
 */
import { authorizeMerchant, type Caller, type MerchantAccess } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { TransactionRecord } from '../transactions.js';
import { cancelTransaction } from './cancelTransaction.js';
import type { OperationOptions } from './createTransaction.js';
import { refundTransaction } from './refundTransaction.js';

export type TakenBack = IdempotentOutcome<TransactionRecord> & { outcome: 'cancelled' | 'refunded' };

export async function cancelOrRefundTransaction(
  ctx: GatewayContext,
  access: MerchantAccess<'refundTransaction'>,
  orderId: string,
  options: OperationOptions = {},
): Promise<TakenBack> {
  const cancelling = cancelAccessOf(access.caller);
  if (cancelling) {
    try {
      return { outcome: 'cancelled', value: await cancelTransaction(ctx, cancelling, orderId), replayed: false };
    } catch (error) {
      if (!isDomainError(error, 'cannot_delete_paid')) throw error;
    }
  }
  try {
    return { outcome: 'refunded', ...(await refundTransaction(ctx, access, orderId, options)) };
  } catch (error) {
    if (!cancelling && isDomainError(error, 'cannot_refund')) authorizeMerchant(access.caller, 'cancelTransaction');
    throw error;
  }
}

const isDomainError = (error: unknown, code: DomainError['code']): boolean => error instanceof DomainError && error.code === code;

/** Cancel's access when the caller's key may cancel; null when only its scope stands in the way. */
function cancelAccessOf(caller: Caller): MerchantAccess<'cancelTransaction'> | null {
  try {
    return authorizeMerchant(caller, 'cancelTransaction');
  } catch (error) {
    if (isDomainError(error, 'permission_denied')) return null;
    throw error;
  }
}
