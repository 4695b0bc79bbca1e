/** What a transaction is, as the operations hand it to the adapters. */
import type { Transaction } from '../../generated/prisma/client.js';
import type { PaymentMethod, TransactionStatus } from '../../generated/prisma/enums.js';
import { collectionFeeOf, splitPayment, type FeeRates } from '../ledger/fees.js';
import type { GatewaySettings } from '../context.js';
import { TRANSACTION_STATUSES, isOneOf } from '../enums.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Db } from '../ports.js';
import { readTransaction } from './store.js';
import type { TransactionRecord } from './store.js';

/** Most products one transaction may list: a checkout page, not a warehouse manifest. */
export const MAX_PRODUCTS = 100;
/** Most units of one product: far above any real basket, far below the 32-bit column. */
export const MAX_QUANTITY = 1_000_000;

export const checkoutUrlOf = (settings: GatewaySettings, orderId: string): string => `${settings.checkoutPublicUrl.replace(/\/+$/, '')}/checkout/${orderId}`;

/** Where the customer lands when the merchant gave no URL: pages of the checkout origin. */
export const defaultSuccessUrlOf = (settings: GatewaySettings, orderId: string): string => `${checkoutUrlOf(settings, orderId)}/success`;
export const defaultErrorUrlOf = (settings: GatewaySettings, orderId: string): string => `${checkoutUrlOf(settings, orderId)}/error`;

/** The amount the customer pays: plus fees when the merchant passes them on. */
export const amountToPay = (transaction: Transaction): bigint => (transaction.feesCustomerSide ? transaction.amount + transaction.fees : transaction.amount);

/**
 * What the customer pays with `method`: once it left `pending`, what was recorded; before, the
 * amount plus that method's fee when the merchant passes fees on (the figure the checkout shows
 * and the payment charges, from the same fee helpers).
 */
export function amountToPayWith(rates: FeeRates, transaction: Transaction, method: PaymentMethod): bigint {
  if (transaction.status !== 'pending') return amountToPay(transaction);
  return splitPayment(transaction.amount, collectionFeeOf(rates, method, transaction.amount), transaction.feesCustomerSide).charged;
}

export function parseTransactionStatus(value: string): TransactionStatus {
  if (!isOneOf(TRANSACTION_STATUSES, value)) throw new DomainError('invalid_query', `status must be one of ${TRANSACTION_STATUSES.join(', ')}`);
  return value;
}

/**
 * A transaction the caller may see: of `organizationId`, or of any organisation when it is null
 * (operators). Another organisation's transaction answers exactly like a missing one: its
 * existence is not revealed. A malformed id is just another id that does not exist.
 */
export async function findVisibleTransaction(db: Pick<Db, '$queryRawUnsafe'>, organizationId: string | null, orderId: string): Promise<TransactionRecord> {
  const transaction = isUuid(orderId) ? await readTransaction(db, orderId, organizationId) : null;
  if (!transaction) throw new DomainError('transaction_not_found');
  return transaction;
}

// How another capability's statement that returns a transaction selects it (refunds' settlement).
export { transactionRecordOf, transactionWithProductsColumns, type RawTransactionRow } from './store.js';
