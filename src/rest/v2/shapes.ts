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
import { wireCustomer, wireTimestamp } from '../../domain/wire.js';

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

/** The get / list / webhook shape (domain/wire.ts: the webhook bodies share it). */
export { wireTransaction as transactionFull } from '../../domain/wire.js';
import { wirePayout as payoutFull, wireTransaction as transactionFull } from '../../domain/wire.js';

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

/**
 * A payout as GET /payouts and GET /payouts/{order_id} read it: the spec's shape, plus
 * `failure_reason` ONLY on a failed payout whose provider said why (the extension's one field on
 * this shape; openapi/v2.yaml lists it as optional). Every other payout reads exactly as the spec
 * says; the payout_status webhook body is the spec's shape.
 */
export function payoutRead(payout: PayoutRecord) {
  const shape = payoutFull(payout);
  return payout.status === 'failed' && payout.failureReason ? { ...shape, failure_reason: payout.failureReason } : shape;
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

/** The create shape: `_id` and `organization_id`, then every payout field. */
export function payoutCreated(payout: PayoutRecord) {
  return { _id: payout.id, organization_id: payout.organizationId, ...payoutFull(payout) };
}
