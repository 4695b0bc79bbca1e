/**
 * The pieces of a transaction that every outside shape writes the same way (REST v2 and v1
 * answers, the payment_status webhook bodies): RFC 3339 UTC timestamps, the customer, the
 * products. Each shape still chooses its own fields and their order (the spec's, per shape).
 */
import { toWireAmount } from './money.js';
import type { PayoutRecord } from './payouts/store.js';
import type { TransactionRecord } from './transactions/store.js';

export const wireTimestamp = (date: Date): string => date.toISOString();

/** The customer as the spec writes it: empty strings for what the merchant did not give. */
export function wireCustomer(transaction: TransactionRecord) {
  return {
    first_name: transaction.customerFirstName ?? '',
    last_name: transaction.customerLastName ?? '',
    phone: transaction.customerPhone ?? '',
    created_at: wireTimestamp(transaction.createdAt),
  };
}

/** v2's products: `price` is the unit price. */
export function wireProducts(transaction: TransactionRecord) {
  return transaction.products.map((product) => ({
    name: product.name,
    price: toWireAmount(product.price),
    quantity: product.quantity,
    description: product.description ?? '',
  }));
}

/** The closing fields of a full transaction, in the order both the REST v2 shape and the v2 webhook body end with. */
export function wireOptionsAndTimes(transaction: TransactionRecord) {
  return {
    is_escrow: transaction.isEscrow,
    is_merchant: transaction.isMerchant,
    fees_customer_side: transaction.feesCustomerSide,
    success_url: transaction.successUrl ?? '',
    error_url: transaction.errorUrl ?? '',
    created_at: wireTimestamp(transaction.createdAt),
    updated_at: wireTimestamp(transaction.updatedAt),
    paid_at: transaction.paidAt ? wireTimestamp(transaction.paidAt) : null,
  };
}

/** A transaction as GET /transactions/{id} reads it (also the body of `refund_status`, plus `event`). */
export function wireTransaction(transaction: TransactionRecord) {
  return {
    order_id: transaction.id,
    amount: toWireAmount(transaction.amount),
    fees: toWireAmount(transaction.fees),
    method_of_payment: transaction.methodOfPayment,
    selected_payment_method: transaction.selectedPaymentMethod ?? '',
    currency: transaction.currency,
    transaction_status: transaction.status,
    customer: wireCustomer(transaction),
    products: wireProducts(transaction),
    ...wireOptionsAndTimes(transaction),
  };
}

/** A payout as GET /payouts/{order_id} reads it: the spec's Payout fields, without `_id` and `organization_id` (also the body of `payout_status`, plus `event`). */
export function wirePayout(payout: PayoutRecord) {
  return {
    order_id: payout.id,
    selected_payment_method: payout.selectedPaymentMethod,
    amount: toWireAmount(payout.amount),
    fees: toWireAmount(payout.fees),
    currency: payout.currency,
    recipient: {
      first_name: payout.recipientFirstName ?? '',
      last_name: payout.recipientLastName ?? '',
      phone: payout.recipientPhone,
      created_at: wireTimestamp(payout.createdAt),
    },
    payout_status: payout.status,
    reason: payout.reason,
    provider_reference: payout.providerReference,
    created_at: wireTimestamp(payout.createdAt),
    updated_at: wireTimestamp(payout.updatedAt),
    paid_at: payout.paidAt ? wireTimestamp(payout.paidAt) : null,
    is_deleted: payout.isDeleted,
  };
}
