/**
 * GET /refund/{order_id} (and GraphQL `refundTransaction`): refunds a paid transaction in full
 * through the method the customer used. The rules and the two phases around the provider call
 * live in refunds.ts beside this file (their statements in store.ts); the Idempotency-Key in
 * ../idempotency.ts (runIdempotentlyTwoPhase).
 *
 * Answers: the refunded transaction; 404 unknown or another organisation's; 400 `This
 * Transaction cannot be refund` (pending, cancelled, refunded); 400 `Insufficient balance`
 * (nothing changes); 409 a refund of it is in progress; 500 `refund_failed` (the provider
 * refused: nothing debited, status unchanged) or `refund_unconfirmed` (no answer in time: the
 * amount stays debited until the reconciler learns the outcome).
 */
import type { MerchantAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { runIdempotentlyTwoPhase, type IdempotentOutcome } from '../idempotency.js';
import type { ProviderAnswer } from '../ports.js';
import { currentRefundOfIntent, refundIntentName, sendRefund, settleRefund } from './refunds.js';
import { recordRefund, type RefundIntent } from './store.js';
import type { TransactionRecord } from '../transactions/store.js';

export async function refundTransaction(
  ctx: GatewayContext,
  access: MerchantAccess<'refundTransaction'>,
  orderId: string,
  options: { idempotencyKey?: string } = {},
): Promise<IdempotentOutcome<TransactionRecord>> {
  const scope = { organizationId: access.organizationId, key: options.idempotencyKey, operation: 'refundTransaction', input: { orderId } };
  return runIdempotentlyTwoPhase<RefundIntent, ProviderAnswer, TransactionRecord>(ctx, scope, {
    // The record statement also writes the audit entry (transaction.refunded by this caller).
    record: (db) => recordRefund(ctx, db, access.organizationId, orderId, { actor: access.caller }),
    intentName: refundIntentName,
    call: (intent) => sendRefund(ctx, intent),
    settle: (db, intent, answer) => settleRefund(ctx, db, intent, answer),
    // A retry with the key while the refund's call is open (resumed in the background): what it is now.
    current: (intentName) => currentRefundOfIntent(ctx, intentName),
  });
}
