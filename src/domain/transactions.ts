/** What a transaction is, as the operations hand it to the adapters. */
import type { Transaction, TransactionProduct } from '../generated/prisma/client.js';
import type { TransactionStatus } from '../generated/prisma/enums.js';
import type { GatewaySettings } from './context.js';
import { DomainError } from './errors.js';

export type TransactionRecord = Transaction & { products: TransactionProduct[] };

export const TRANSACTION_STATUSES: readonly TransactionStatus[] = ['pending', 'paid', 'paid_and_blocked', 'cancelled', 'refunded'];

/** Products in the order the merchant sent them. */
export const withOrderedProducts = { products: { orderBy: { position: 'asc' as const } } };

export const checkoutUrlOf = (settings: GatewaySettings, orderId: string): string =>
  `${settings.checkoutPublicUrl.replace(/\/+$/, '')}/checkout/${orderId}`;

/** Where the customer lands when the merchant gave no URL: pages of the checkout origin. */
export const defaultSuccessUrlOf = (settings: GatewaySettings, orderId: string): string => `${checkoutUrlOf(settings, orderId)}/success`;
export const defaultErrorUrlOf = (settings: GatewaySettings, orderId: string): string => `${checkoutUrlOf(settings, orderId)}/error`;

/** The amount the customer pays: plus fees when the merchant passes them on. */
export const amountToPay = (transaction: Transaction): bigint =>
  transaction.feesCustomerSide ? transaction.amount + transaction.fees : transaction.amount;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

export function parseTransactionStatus(value: string): TransactionStatus {
  if (!(TRANSACTION_STATUSES as readonly string[]).includes(value)) throw new DomainError('invalid_query', `status must be one of ${TRANSACTION_STATUSES.join(', ')}`);
  return value as TransactionStatus;
}
