/** What a transaction is, as the operations hand it to the adapters. */
import { Prisma, type Transaction, type TransactionProduct } from '../../generated/prisma/client.js';
import { runStatement, type PreparedStatement } from '../statements.js';
import type { PaymentMethod, TransactionStatus } from '../../generated/prisma/enums.js';
import { FEE_RATE_COLUMNS, collectionFeeOf, splitPayment, takeFeeRates, type FeeRates } from '../ledger/fees.js';
import type { GatewaySettings } from '../context.js';
import { TRANSACTION_STATUSES, isOneOf } from '../enums.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Db } from '../ports.js';

export type TransactionRecord = Transaction & { products: TransactionProduct[] };

/** Most products one transaction may list: a checkout page, not a warehouse manifest. */
export const MAX_PRODUCTS = 100;
/** Most units of one product: far above any real basket, far below the 32-bit column. */
export const MAX_QUANTITY = 1_000_000;

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
  const transaction = isUuid(orderId) ? await readTransactionWithProducts(db, orderId, organizationId) : null;
  if (!transaction) throw new DomainError('transaction_not_found');
  return transaction;
}

/**
 * A transaction's columns as `$queryRaw` must select them to give exactly what Prisma's own
 * `include: withOrderedProducts` read gives: enums and enum arrays as text, product prices as text
 * inside the JSON (nothing lost on the way), products in `position` order. The columns are listed,
 * not `t.*`: a test compares this with Prisma's read, field for field. `t` is the transaction row,
 * `products` the source of its product rows (a table or the rows an INSERT returned).
 */
export const transactionWithProductsColumns = (products: Prisma.Sql): Prisma.Sql => Prisma.sql`
  t.id, t."organizationId", t.amount, t.fees, t."methodOfPayment"::text[] AS "methodOfPayment",
  t."selectedPaymentMethod"::text AS "selectedPaymentMethod", t.currency, t.status::text AS status,
  t."customerFirstName", t."customerLastName", t."customerPhone", t."isEscrow", t."isMerchant",
  t."feesCustomerSide", t."successUrl", t."errorUrl", t."payerPhone", t."isDeleted", t."paidAt",
  t."refundedAt", t."cancelledAt", t."createdAt", t."updatedAt", t."collectingAttemptId",
  COALESCE((SELECT json_agg(json_build_object('id', p.id, 'transactionId', p."transactionId", 'position', p.position,
              'name', p.name, 'price', p.price::text, 'quantity', p.quantity, 'description', p.description,
              'category', p.category) ORDER BY p.position)
            FROM ${products} p WHERE p."transactionId" = t.id), '[]'::json) AS products`;

/** A row selected with transactionWithProductsColumns, as the record Prisma would have returned. */
export function transactionRecordOf(row: RawTransactionRow): TransactionRecord {
  return { ...row, products: row.products.map((product) => ({ ...product, price: BigInt(product.price) })) };
}

export type RawTransactionRow = Transaction & { products: (Omit<TransactionProduct, 'price'> & { price: string })[] };

/**
 * A transaction and its products in ONE statement (DESIGN: a hot read is one SQL statement;
 * Prisma's `include` costs two round trips here): `$1` the id, `$2` the organisation or null
 * (operators, the checkout). The same text whichever way it runs (below).
 */
export const READ_TRANSACTION: PreparedStatement = {
  name: 'gw_read_transaction',
  text: `SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"')).text}
    FROM "Transaction" t
    WHERE t.id = $1::uuid AND ($2::uuid IS NULL OR t."organizationId" = $2::uuid)`,
};

/**
 * What a payment reads first, in ONE statement: the transaction, its organisation's fee rates, and
 * whether the organisation has an active webhook endpoint (its payment_status is then written with
 * the settlement).
 */
const READ_FOR_PAYMENT: PreparedStatement = {
  name: 'gw_read_for_payment',
  text: `SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"')).text},
      ${FEE_RATE_COLUMNS.map((column) => `o."${column}"`).join(', ')},
      EXISTS (SELECT 1 FROM "Webhook" w WHERE w."organizationId" = t."organizationId" AND w."isActive") AS "hasActiveWebhooks"
    FROM "Transaction" t JOIN "Organization" o ON o.id = t."organizationId"
    WHERE t.id = $1::uuid`,
};

/** The transaction (any organisation's: the checkout and operators) as a payment needs it; 404 when unknown. */
export async function readForPayment(
  db: Pick<Db, '$queryRawUnsafe'>,
  orderId: string,
): Promise<{ transaction: TransactionRecord; feeRates: FeeRates; hasActiveWebhooks: boolean }> {
  const rows = isUuid(orderId) ? await runStatement<RawTransactionRow & FeeRates & { hasActiveWebhooks: boolean }>(db, READ_FOR_PAYMENT, [orderId]) : [];
  if (!rows[0]) throw new DomainError('transaction_not_found');
  const { hasActiveWebhooks, ...row } = rows[0];
  const { feeRates, rest: transaction } = takeFeeRates(row);
  return { transaction: transactionRecordOf(transaction), feeRates, hasActiveWebhooks };
}

async function readTransactionWithProducts(db: Pick<Db, '$queryRawUnsafe'>, id: string, organizationId: string | null): Promise<TransactionRecord | null> {
  const rows = await runStatement<RawTransactionRow>(db, READ_TRANSACTION, [id, organizationId]);
  return rows[0] ? transactionRecordOf(rows[0]) : null;
}

