/**
 * The `payment_status` bodies (spec, Events): v2 has exactly the spec's fields in the spec's order,
 * v1 the legacy six. Both are compact JSON (JSON.stringify without spacing), and the string built
 * here is stored in the outbox and sent byte for byte: the signature covers exactly those bytes.
 */
import { toWireAmount } from '../money.js';
import type { TransactionRecord } from '../transactions.js';

export const PAYMENT_STATUS_EVENT = 'payment_status';

const timestamp = (date: Date): string => date.toISOString();

export function paymentStatusBodyV2(transaction: TransactionRecord): string {
  return JSON.stringify({
    order_id: transaction.id,
    method_of_payment: transaction.methodOfPayment,
    selected_payment_method: transaction.selectedPaymentMethod ?? '',
    amount: toWireAmount(transaction.amount),
    fees: toWireAmount(transaction.fees),
    currency: transaction.currency,
    customer: {
      first_name: transaction.customerFirstName ?? '',
      last_name: transaction.customerLastName ?? '',
      phone: transaction.customerPhone ?? '',
      created_at: timestamp(transaction.createdAt),
    },
    transaction_status: transaction.status,
    products: transaction.products.map((product) => ({
      name: product.name,
      price: toWireAmount(product.price),
      quantity: product.quantity,
      description: product.description ?? '',
    })),
    is_escrow: transaction.isEscrow,
    is_merchant: transaction.isMerchant,
    fees_customer_side: transaction.feesCustomerSide,
    success_url: transaction.successUrl ?? '',
    error_url: transaction.errorUrl ?? '',
    created_at: timestamp(transaction.createdAt),
    updated_at: timestamp(transaction.updatedAt),
    paid_at: transaction.paidAt ? timestamp(transaction.paidAt) : null,
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
    created_at: timestamp(transaction.createdAt),
    transaction_status: transaction.status,
    payment_method: (transaction.selectedPaymentMethod ?? '').toUpperCase(),
  });
}
