/**
 * The v2 wire shapes: exactly the fields the spec lists for each, snake_case, integer amounts,
 * RFC 3339 UTC timestamps. Anything else belongs in GraphQL or headers.
 */
import type { AccountRecord } from '../../domain/ledger/accounts.js';
import type { AccountStats } from '../../domain/ledger/store.js';
import type { CreatedTransaction } from '../../domain/transactions/createTransaction.js';
import type { Page } from '../../domain/pagination.js';
import { toWireAmount } from '../../domain/money.js';
import type { PayoutRecord } from '../../domain/payouts/store.js';
import type { TransactionRecord } from '../../domain/transactions/store.js';
import { wireCustomer, wireOptionsAndTimes, wireProducts, wireTimestamp } from '../../domain/wire.js';

/** The create response: no fees, products or URLs; with checkout_url. */
export function transactionCreated({ transaction, checkoutUrl }: CreatedTransaction) {
  return {
    order_id: transaction.id,
    amount: toWireAmount(transaction.amount),
    method_of_payment: transaction.methodOfPayment,
    currency: transaction.currency,
    created_at: wireTimestamp(transaction.createdAt),
    transaction_status: transaction.status,
    customer: wireCustomer(transaction),
    is_escrow: transaction.isEscrow,
    is_merchant: transaction.isMerchant,
    checkout_url: checkoutUrl,
  };
}

/** The get / list / webhook shape: everything but checkout_url. */
export function transactionFull(transaction: TransactionRecord) {
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

/**
 * A transaction as GET /transactions and GET /transactions/{order_id} read it: the spec's shape,
 * plus `payment_link_id` ONLY on a transaction a payment link made (the extension's one field on
 * the spec's shapes; openapi/v2.yaml lists it as optional). A transaction made through the spec's
 * POST /transactions reads exactly as the spec says; webhook bodies never carry it.
 */
export function transactionRead(transaction: TransactionRecord) {
  const shape = transactionFull(transaction);
  return transaction.paymentLinkId ? { ...shape, payment_link_id: transaction.paymentLinkId } : shape;
}

export function pagination(page: Page<unknown>) {
  return { page: page.page, limit: page.limit, total_count: page.totalCount, total_pages: page.totalPages };
}

/** The Account shape: exactly the spec's nine fields. */
export function accountShape(account: AccountRecord) {
  return {
    id: account.id,
    name: account.name,
    type: account.type,
    organization_id: account.organizationId,
    balance: toWireAmount(account.balance),
    currency: account.currency,
    is_active: account.isActive,
    created_at: wireTimestamp(account.createdAt),
    updated_at: wireTimestamp(account.updatedAt),
  };
}

/** The Account stats shape. */
export function accountStatsShape(stats: AccountStats) {
  return { total_balance: toWireAmount(stats.totalBalance), account_count: stats.accountCount, active_account_count: stats.activeAccountCount };
}

/** The get / list shape of a payout: the spec's Payout fields, without `_id` and `organization_id`. */
export function payoutFull(payout: PayoutRecord) {
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

/** The create shape: `_id` and `organization_id`, then every payout field. */
export function payoutCreated(payout: PayoutRecord) {
  return { _id: payout.id, organization_id: payout.organizationId, ...payoutFull(payout) };
}
