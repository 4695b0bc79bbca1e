/**
 * The `payment_status` bodies (spec, Events): v2 has exactly the spec's fields in the spec's order,
 * v1 the legacy six. Both are compact JSON (JSON.stringify without spacing), and the string built
 * here is stored in the outbox and sent byte for byte: the signature covers exactly those bytes.
 */
import { toWireAmount } from '../money.js';
import { toV1MethodName } from '../paymentMethods.js';
import type { TransactionRecord } from '../transactions/store.js';
import { wireCustomer, wireOptionsAndTimes, wireProducts, wireTimestamp } from '../wire.js';

export const PAYMENT_STATUS_EVENT = 'payment_status';


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
 * The legacy body: order_id, amount, currency, created_at, transaction_status, payment_method.
 * `payment_method` is the method used in v1's spelling (uppercase: WAVE, ORANGE_MONEY), as v1
 * clients know methods; `amount` and `transaction_status` mean what they mean in v2 (the spec
 * tells receivers to rely on those two and order_id in both versions).
 */
export function paymentStatusBodyV1(transaction: TransactionRecord): string {
  return JSON.stringify({
    order_id: transaction.id,
    amount: toWireAmount(transaction.amount),
    currency: transaction.currency,
    created_at: wireTimestamp(transaction.createdAt),
    transaction_status: transaction.status,
    payment_method: transaction.selectedPaymentMethod ? toV1MethodName(transaction.selectedPaymentMethod) : '',
  });
}
