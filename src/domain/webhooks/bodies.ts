/**
 * The `payment_status` bodies (spec, Events): v2 has exactly the spec's fields in the spec's order,
 * v1 the legacy six. Both are compact JSON (JSON.stringify without spacing), and the string built
 * here is stored in the outbox and sent byte for byte: the signature covers exactly those bytes.
 */
import { randomUUID } from 'node:crypto';
import { toWireAmount } from '../money.js';
import { toV1MethodName } from '../paymentMethods.js';
import { toV1TransactionStatus } from '../v1Statuses.js';
import type { TransactionStatus } from '../../generated/prisma/enums.js';
import type { TransactionRecord } from '../transactions/store.js';
import type { PayoutRecord } from '../payouts/store.js';
import { wireCustomer, wireOptionsAndTimes, wirePayout, wireProducts, wireTimestamp, wireTransaction } from '../wire.js';

export const PAYMENT_STATUS_EVENT = 'payment_status';
/**
 * The statuses a `payment_status` delivery is written for: a payment settled (`paid`, or
 * `paid_and_blocked` for escrow: payments/store.ts) and escrow released (`paid`:
 * payments/releaseEscrow.ts). Cancelling and refunding write none.
 */
const PAYMENT_STATUS_NOTIFIED: readonly TransactionStatus[] = ['paid', 'paid_and_blocked'];
/** The event a merchant sends itself to check an endpoint (sendTestWebhook); X-Event-Type says `test`. */
export const TEST_EVENT = 'test';

export function paymentStatusBodyV2(transaction: TransactionRecord): string {
  return JSON.stringify({
    order_id: transaction.id,
    method_of_payment: transaction.methodOfPayment,
    selected_payment_method: transaction.selectedPaymentMethod ?? '',
    amount: toWireAmount(transaction.amount),
    fees: toWireAmount(transaction.fees),
    currency: transaction.currency,
    customer: wireCustomer(transaction),
    transaction_status: transaction.status,
    products: wireProducts(transaction),
    ...wireOptionsAndTimes(transaction),
  });
}

/**
 * The v2 body a `payment_status` delivery carries for the transaction as it is now, byte for byte
 * (the builder the outbox uses), or null while its status is one no delivery is written for
 * (pending, cancelled, refunded). `gateway listen` forwards it to a developer's machine.
 */
export function paymentStatusWebhookBodyOf(transaction: TransactionRecord): string | null {
  return PAYMENT_STATUS_NOTIFIED.includes(transaction.status) ? paymentStatusBodyV2(transaction) : null;
}

/**
 * The statuses a transaction can have had by the time it has `status` (its own included): a
 * transaction is created pending, settles paid (or paid_and_blocked, escrow, later released to
 * paid), or is cancelled while pending; only a settled one is refunded.
 */
const STATUSES_UP_TO: Record<TransactionStatus, readonly TransactionStatus[]> = {
  pending: ['pending'],
  cancelled: ['pending', 'cancelled'],
  paid_and_blocked: ['pending', 'paid_and_blocked'],
  paid: ['pending', 'paid_and_blocked', 'paid'],
  refunded: ['pending', 'paid_and_blocked', 'paid', 'refunded'],
};

/**
 * The v2 body the delivery written when the transaction became `status` carried, for a change read
 * after the next one (paid, then refunded at once: `gateway listen`): every field as it is now but
 * the status. Null for a status no delivery is written for, and for one the transaction cannot
 * have had (a pending transaction asked as paid): never a body of a payment that did not happen.
 */
export function paymentStatusWebhookBodyAs(transaction: TransactionRecord, status: TransactionStatus): string | null {
  return STATUSES_UP_TO[transaction.status].includes(status) ? paymentStatusWebhookBodyOf({ ...transaction, status }) : null;
}

/**
 * The legacy body: order_id, amount, currency, created_at, transaction_status, payment_method.
 * `payment_method` is the method used in v1's spelling (uppercase: WAVE, ORANGE_MONEY) and
 * `transaction_status` the v1 vocabulary (`paid_and_blocked` is `paid`: v1Statuses.ts), as v1
 * clients know them (the official Python SDK's model refuses any other status); `amount` means
 * what it means in v2.
 */
export function paymentStatusBodyV1(transaction: TransactionRecord): string {
  return JSON.stringify({
    order_id: transaction.id,
    amount: toWireAmount(transaction.amount),
    currency: transaction.currency,
    created_at: wireTimestamp(transaction.createdAt),
    transaction_status: toV1TransactionStatus(transaction.status),
    payment_method: transaction.selectedPaymentMethod ? toV1MethodName(transaction.selectedPaymentMethod) : '',
  });
}

/**
 * The body of a `test` event: the endpoint's version's `payment_status` shape, field for field (so
 * the merchant's parser and signature check run as for a real event), and marked as a test in
 * every way that cannot be mistaken for a payment: X-Event-Type `test` (the dispatcher's header),
 * an order_id that names no transaction (the spec tells receivers to answer 2xx for unknown ones
 * and do nothing), status `pending` (never paid, so a receiver that skips its order lookup still
 * fulfils nothing), amount 0, and a product named "Test event" saying so.
 */
export function testEventBody(version: 'v1' | 'v2', now: Date): string {
  const transaction = {
    id: randomUUID(),
    methodOfPayment: ['wave', 'orange_money'],
    selectedPaymentMethod: null,
    amount: 0n,
    fees: 0n,
    currency: 'XOF',
    customerFirstName: 'Test',
    customerLastName: 'Event',
    customerPhone: '',
    status: 'pending',
    products: [{ name: 'Test event', price: 0n, quantity: 1, description: 'Sent to check this endpoint: not a payment' }],
    isEscrow: false,
    isMerchant: false,
    feesCustomerSide: false,
    successUrl: null,
    errorUrl: null,
    createdAt: now,
    updatedAt: now,
    paidAt: null,
  } as unknown as TransactionRecord; // only the fields the bodies read
  return version === 'v1' ? paymentStatusBodyV1(transaction) : paymentStatusBodyV2(transaction);
}

/**
 * The `payout_status` body: the payout exactly as GET /payouts/{order_id} reads it, then `event`.
 * One body for v1 and v2 endpoints alike (v1 has no such event to be compatible with).
 */
export function payoutStatusBody(payout: PayoutRecord): string {
  return JSON.stringify({ ...wirePayout(payout), event: 'payout_status' });
}

/** The `refund_status` body: the transaction as GET /transactions/{id} reads it after the refund, then `event`. */
export function refundStatusBody(transaction: TransactionRecord): string {
  return JSON.stringify({ ...wireTransaction(transaction), event: 'refund_status' });
}

/** The `payout_status` body for the payout as it is now, or null while it is pending (no event is written for it yet). `gateway listen` forwards it. */
export function payoutStatusWebhookBodyOf(payout: PayoutRecord): string | null {
  return payout.status === 'pending' ? null : payoutStatusBody(payout);
}

/** The `refund_status` body for the transaction as it is now, or null unless it is refunded. `gateway listen` forwards it. */
export function refundStatusWebhookBodyOf(transaction: TransactionRecord): string | null {
  return transaction.status === 'refunded' ? refundStatusBody(transaction) : null;
}

/**
 * The top-level fields whose values differ between two JSON bodies: a body projected before its
 * statement ran and the one the written row gives. Names only, never values (bodies hold phones).
 */
export function differingBodyFields(projected: string, written: string): string[] {
  const [before, after] = [projected, written].map((body) => JSON.parse(body) as Record<string, unknown>);
  return Object.keys({ ...before, ...after }).filter((key) => JSON.stringify(before![key]) !== JSON.stringify(after![key]));
}
