/**
 * What a provider tells us of its own accord (Wave's webhooks, Orange Money's callbacks), settled
 * THROUGH the provider flow: the notification is one more answer to a call we recorded, applied
 * by the same conditional settlement as the call's own answer or the reconciler's question. So a
 * duplicate, a replay or an event arriving out of order changes nothing once the call is settled,
 * and a notification never creates money the gateway did not ask for: it names OUR reference.
 *
 * The adapter (src/http/providerNotifications.ts) verifies the signature over the raw bytes with
 * the provider (parseNotification) before anything here runs.
 *
 * A payment confirmed after its attempt was closed is a late payment (payments/latePayments.ts):
 * recorded on the order, or returned to the payer.
 */
import type { PaymentMethod } from '../generated/prisma/enums.js';
import type { GatewayContext } from './context.js';
import { isUuid } from './ids.js';
import { settleAttempt } from './payments/attempts.js';
import { acceptLatePayment } from './payments/latePayments.js';
import { collectingAttempt, lateAttemptOf } from './payments/store.js';
import { openPayouts } from './payouts/payouts.js';
import type { ProviderNotification } from './ports.js';
import { settleDurably } from './providerFlow.js';
import { openRefunds } from './refunds/refunds.js';

/** What the notification did (logged; the provider is answered 200 whatever it was: it was received). */
export type NotificationEffect =
  | 'settled'
  | 'already_settled'
  | 'no_change'
  | 'unknown_reference'
  | 'amount_mismatch'
  | 'late_recorded'
  | 'late_returning'
  | 'late_returned'
  | 'late_return_failed';

export async function settleProviderNotification(ctx: GatewayContext, method: PaymentMethod, notification: ProviderNotification): Promise<NotificationEffect> {
  const effect = await effectOf(ctx, method, notification);
  ctx.log.info(
    { method, kind: notification.kind, reference: notification.reference, eventId: notification.eventId, status: notification.status, effect },
    'provider notification received',
  );
  return effect;
}

async function effectOf(ctx: GatewayContext, method: PaymentMethod, notification: ProviderNotification): Promise<NotificationEffect> {
  // Still at work: nothing to settle (a session's failed try, a payout processing).
  if (notification.status === 'processing') return 'no_change';
  if (notification.kind === 'payment') return settlePaymentNotification(ctx, method, notification);
  const final = notification.status === 'succeeded' || notification.status === 'failed' ? notification.status : null;
  if (!final) return 'no_change';
  const answer = { status: final, providerReference: notification.providerReference, reason: notification.reason };
  if (notification.kind === 'payout') {
    const store = openPayouts(ctx);
    const call = await store.findOpen(notification.reference);
    if (!call) return isUuid(notification.reference) ? 'already_settled' : 'unknown_reference';
    if (call.method !== method) return 'unknown_reference';
    await settleDurably(ctx, { payoutId: call.id }, () => store.settle(call, answer));
    return 'settled';
  }
  // A refund's reference is its id, or `<id>:<attempt>` for a later attempt.
  const store = openRefunds(ctx);
  const call = await store.findOpen(notification.reference.split(':')[0] ?? '');
  if (!call || call.reference !== notification.reference) return 'already_settled';
  if (call.intent.method !== method) return 'unknown_reference';
  await settleDurably(ctx, { refundId: call.id }, () => store.settle(call, answer));
  return 'settled';
}

async function settlePaymentNotification(ctx: GatewayContext, method: PaymentMethod, notification: ProviderNotification): Promise<NotificationEffect> {
  const attempt = isUuid(notification.reference) ? await lateAttemptOf(ctx.db, notification.reference) : null;
  // Not ours (another deployment's session on the same Wave account), or another method's: ignored.
  if (!attempt || attempt.method !== method) return 'unknown_reference';
  if (notification.amount !== undefined && notification.amount !== attempt.amount) {
    ctx.log.error(
      { attemptId: attempt.id, method, asked: String(attempt.amount), notified: String(notification.amount) },
      'a provider notification names another amount than the payment asked for: not settled, an operator must check',
    );
    return 'amount_mismatch';
  }
  if (attempt.state === 'collecting') {
    const open = await collectingAttempt(ctx.db, attempt.id);
    if (!open) return 'already_settled';
    const { organizationId: _organizationId, ...collecting } = open;
    const answer = {
      status: notification.status as 'succeeded' | 'failed' | 'pending',
      providerReference: notification.providerReference,
      reason: notification.reason,
    };
    await settleDurably(ctx, { attemptId: attempt.id }, () => settleAttempt(ctx, collecting, answer));
    return 'settled';
  }
  // Closed already. Paid: a duplicate. Closed unpaid and now paid: a late payment.
  if (attempt.state === 'succeeded' || notification.status !== 'succeeded') return 'already_settled';
  const outcome = await acceptLatePayment(ctx, attempt, notification.providerReference);
  return outcome === 'recorded'
    ? 'late_recorded'
    : outcome === 'returning'
      ? 'late_returning'
      : outcome === 'returned'
        ? 'late_returned'
        : 'late_return_failed';
}
