/** The transactions' SQL: every read and write of a transaction and its products. */
import { Prisma, type Transaction, type TransactionProduct } from '../../generated/prisma/client.js';
import type { PaymentMethod, TransactionStatus } from '../../generated/prisma/enums.js';
import type { DbTransaction } from '../context.js';
import type { KeysetSlice } from '../cursors.js';
import { isUuid } from '../ids.js';
import { phoneSearchCandidates } from '../phones.js';
import type { Db } from '../ports.js';
import { escapeLike } from '../text.js';
import { namedStatement, runStatement, type PreparedStatement } from '../statements.js';
import { streamRowBatches } from '../rowStreams.js';

export type TransactionRecord = Transaction & { products: TransactionProduct[] };

/**
 * A transaction's columns as `$queryRaw` must select them to give exactly what Prisma's own
 * `include: { products: { orderBy: { position: 'asc' } } }` read gives: enums and enum arrays as
 * text, product prices as text inside the JSON (nothing lost on the way), products in `position`
 * order. The columns are listed, not `t.*`: a test compares this with Prisma's read, field for
 * field. `t` is the transaction row, `products` the source of its product rows (a table or the
 * rows an INSERT returned).
 */
export const transactionWithProductsColumns = (products: Prisma.Sql): Prisma.Sql => Prisma.sql`
  t.id, t."organizationId", t.amount, t.fees, t."methodOfPayment"::text[] AS "methodOfPayment",
  t."selectedPaymentMethod"::text AS "selectedPaymentMethod", t.currency, t.status::text AS status,
  t."customerFirstName", t."customerLastName", t."customerPhone", t."isEscrow", t."isMerchant",
  t."feesCustomerSide", t."successUrl", t."errorUrl", t."payerPhone", t."isDeleted", t."paidAt",
  t."refundedAt", t."cancelledAt", t."createdAt", t."updatedAt", t."collectingAttemptId", t."paymentLinkId",
  COALESCE((SELECT json_agg(json_build_object('id', p.id, 'transactionId', p."transactionId", 'position', p.position,
              'name', p.name, 'price', p.price::text, 'quantity', p.quantity, 'description', p.description,
              'category', p.category) ORDER BY p.position)
            FROM ${products} p WHERE p."transactionId" = t.id), '[]'::json) AS products`;

export type RawTransactionRow = Transaction & { products: (Omit<TransactionProduct, 'price'> & { price: string })[] };

/** A row selected with transactionWithProductsColumns, as the record Prisma would have returned. */
export function transactionRecordOf(row: RawTransactionRow): TransactionRecord {
  return { ...row, products: row.products.map((product) => ({ ...product, price: BigInt(product.price) })) };
}

/**
 * A transaction and its products in ONE statement (docs/architecture.md#performance-rules: a hot read is one SQL statement;
 * Prisma's `include` costs two round trips here): `$1` the id, `$2` the organisation or null
 * (operators, the checkout). The same text whichever way it runs (statements.ts).
 */
const READ_TRANSACTION: PreparedStatement = {
  name: 'gw_read_transaction',
  text: `SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"')).text}
    FROM "Transaction" t
    WHERE t.id = $1::uuid AND ($2::uuid IS NULL OR t."organizationId" = $2::uuid)`,
};

/** The transaction `id` (a UUID) of `organizationId` (any organisation's when null), or null. */
export async function readTransaction(db: Pick<Db, '$queryRawUnsafe'>, id: string, organizationId: string | null): Promise<TransactionRecord | null> {
  const rows = await runStatement<RawTransactionRow>(db, READ_TRANSACTION, [id, organizationId]);
  return rows[0] ? transactionRecordOf(rows[0]) : null;
}

/** A transaction to insert, as createTransaction validated it. */
export interface NewTransaction {
  id: string;
  organizationId: string;
  amount: bigint;
  methodOfPayment: PaymentMethod[];
  customerFirstName: string | null;
  customerLastName: string | null;
  customerPhone: string | null;
  successUrl: string;
  errorUrl: string;
  feesCustomerSide: boolean;
  isEscrow: boolean;
  isMerchant: boolean;
  products: { name: string; price: number; quantity: number; description: string | null; category: string | null }[];
  /** The payment link whose page made it, if any. */
  paymentLinkId?: string | null;
}

/**
 * The transaction and its products in ONE statement (instead of Prisma's nested create: an insert
 * per table and a read back), returning exactly what readTransaction returns.
 * `createdAt` and `updatedAt` are one instant of the database clock. Lists travel as text and JSON,
 * not array parameters, which the embedded database's adapter does not pass.
 */
export async function insertTransaction(db: Pick<Db, '$queryRawUnsafe'>, data: NewTransaction): Promise<TransactionRecord> {
  const products = data.products.map((product, position) => ({ position, ...product }));
  const statement = Prisma.sql`
    WITH t AS (
      INSERT INTO "Transaction" (id, "organizationId", amount, "methodOfPayment", "customerFirstName", "customerLastName",
        "customerPhone", "successUrl", "errorUrl", "feesCustomerSide", "isEscrow", "isMerchant", "paymentLinkId", "createdAt", "updatedAt")
      VALUES (${data.id}::uuid, ${data.organizationId}::uuid, ${String(data.amount)}::bigint, string_to_array(${data.methodOfPayment.join(',')}::text, ',')::"PaymentMethod"[],
        ${data.customerFirstName}::text, ${data.customerLastName}::text, ${data.customerPhone}::text, ${data.successUrl}::text, ${data.errorUrl}::text,
        ${data.feesCustomerSide}::boolean, ${data.isEscrow}::boolean, ${data.isMerchant}::boolean, ${data.paymentLinkId ?? null}::uuid, now(), now())
      RETURNING *
    ), inserted AS (
      INSERT INTO "TransactionProduct" (id, "transactionId", position, name, price, quantity, description, category)
      SELECT gen_random_uuid(), ${data.id}::uuid, p.position, p.name, p.price, p.quantity, p.description, p.category
      FROM json_to_recordset(${JSON.stringify(products)}::json) AS p(position int, name text, price bigint, quantity int, description text, category text)
      RETURNING *
    )
    SELECT ${transactionWithProductsColumns(Prisma.raw('inserted'))} FROM t`;
  // Straight on the driver when `db` is the pool (statements.ts); inside a transaction, through it.
  const rows = await runStatement<RawTransactionRow>(db, { name: 'gw_create_transaction', text: statement.text }, statement.values);
  return transactionRecordOf(rows[0]!);
}

/**
 * Locks the organisation's row until the database transaction ends, so that creations of one
 * organisation checked against a running total happen one after the other.
 */
export async function lockOrganization(tx: DbTransaction, organizationId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "Organization" WHERE id = ${organizationId}::uuid FOR UPDATE`;
}

/** What the organisation's transactions created since `since` amount to, cancelled ones left out. */
export async function amountCreatedSince(tx: DbTransaction, organizationId: string, since: Date): Promise<bigint> {
  const { _sum } = await tx.transaction.aggregate({
    _sum: { amount: true },
    where: { organizationId, status: { not: 'cancelled' }, createdAt: { gte: since } },
  });
  return _sum.amount ?? 0n;
}

/**
 * Cancels (soft-deletes) the transaction only while it is `pending` and no payment attempt holds
 * its claim; false when it was not so.
 */
export async function cancelIfPendingAndUnclaimed(db: Db | DbTransaction, id: string, now: Date): Promise<boolean> {
  const { count } = await db.transaction.updateMany({
    where: { id, status: 'pending', collectingAttemptId: null },
    data: { status: 'cancelled', isDeleted: true, cancelledAt: now },
  });
  return count === 1;
}

/** What a list may filter on, validated (listTransactions.ts); an absent or empty field does not filter. */
export interface TransactionFilter {
  /** Null: every organisation's (operators). */
  organizationId: string | null;
  /** Soft-deleted (cancelled) transactions are left out unless this is set. */
  includeDeleted: boolean;
  status?: TransactionStatus;
  /** An empty list matches nothing. */
  statuses?: TransactionStatus[];
  paymentMethod?: PaymentMethod;
  customerPhone?: string;
  isEscrow?: boolean;
  isMerchant?: boolean;
  amount: { gte?: bigint; lte?: bigint };
  createdAt: { gte?: Date; lte?: Date };
  /** Free text (searchCondition). */
  search?: string;
}

/**
 * A page of transactions (newest first, with their products) and how many match, as two
 * statements run at once straight on the driver (statements.ts): through Prisma the page was two
 * round trips (rows, then products) and Prisma's client cost about as much CPU as the rest of the
 * request (bench: list page 1 at 0.68 of its floor, a deep page 0.58-0.62). Each filter
 * combination is its own named statement, so PostgreSQL plans it once per connection; there are
 * at most a few hundred combinations.
 */
export async function listTransactionsPage(
  db: Pick<Db, '$queryRawUnsafe'>,
  filter: TransactionFilter,
  slice: { limit: number; skip: number },
): Promise<{ transactions: TransactionRecord[]; total: number }> {
  const where = transactionConditions(filter);
  const pageQuery = Prisma.sql`
    SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))}
    FROM (SELECT * FROM "Transaction" t WHERE ${where} ORDER BY t."createdAt" DESC, t.id DESC LIMIT ${slice.limit}::int OFFSET ${slice.skip}::int) t
    ORDER BY t."createdAt" DESC, t.id DESC`;
  // Counted over a subquery the planner cannot split (OFFSET 0): otherwise, for a filter matching a
  // third of the table, it may pick a parallel sequential scan over the covering index's
  // index-only scan (about 600 ms instead of 60 at 1,000,000 rows, and every core of the machine).
  const countQuery = Prisma.sql`SELECT count(*)::int AS total FROM (SELECT 1 FROM "Transaction" t WHERE ${where} OFFSET 0) matching`;
  const [rows, [count]] = await Promise.all([
    runStatement<RawTransactionRow>(db, namedStatement('gw_list_transactions', pageQuery), pageQuery.values),
    runStatement<{ total: number }>(db, namedStatement('gw_count_transactions', countQuery), countQuery.values),
  ]);
  return { transactions: rows.map(transactionRecordOf), total: count?.total ?? 0 };
}

/**
 * A keyset slice of the list (Relay connections): the rows just past `slice.position` in list order
 * (newest first by createdAt, id), one more than asked to tell whether more follow, with their
 * products; backward slices come nearest-the-cursor first (keysetPageOf puts them back in order).
 * No OFFSET: a row inserted meanwhile never shifts a later slice. The total, as listTransactionsPage counts it.
 */
export async function listTransactionsSlice(
  db: Pick<Db, '$queryRawUnsafe'>,
  filter: TransactionFilter,
  slice: KeysetSlice,
): Promise<{ transactions: TransactionRecord[]; total: number }> {
  const where = transactionConditions(filter);
  const forward = slice.direction === 'forward';
  const order = forward ? Prisma.sql`t."createdAt" DESC, t.id DESC` : Prisma.sql`t."createdAt" ASC, t.id ASC`;
  const past = slice.position
    ? forward
      ? Prisma.sql` AND (t."createdAt", t.id) < (${slice.position.createdAt}::timestamptz, ${slice.position.id}::uuid)`
      : Prisma.sql` AND (t."createdAt", t.id) > (${slice.position.createdAt}::timestamptz, ${slice.position.id}::uuid)`
    : Prisma.empty;
  const sliceQuery = Prisma.sql`
    SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))}
    FROM (SELECT * FROM "Transaction" t WHERE ${where}${past} ORDER BY ${order} LIMIT ${slice.limit + 1}::int) t
    ORDER BY ${order}`;
  const countQuery = Prisma.sql`SELECT count(*)::int AS total FROM (SELECT 1 FROM "Transaction" t WHERE ${where} OFFSET 0) matching`;
  const [rows, [count]] = await Promise.all([
    runStatement<RawTransactionRow>(db, namedStatement('gw_slice_transactions', sliceQuery), sliceQuery.values),
    runStatement<{ total: number }>(db, namedStatement('gw_count_transactions', countQuery), countQuery.values),
  ]);
  return { transactions: rows.map(transactionRecordOf), total: count?.total ?? 0 };
}

/** One organisation's keyset slice, as listTransactionsSlice reads it (its rows, then the total matching). */
export interface OrganizationTransactionSlice {
  transactions: TransactionRecord[];
  total: number;
}

/**
 * The same keyset slice (and total) of each of several organisations' transactions, in ONE
 * statement whatever their number (GraphQL's Organization.transactions under a list of
 * organisations: one slice per organisation cost two statements each). Per organisation, a LATERAL
 * subquery reads its rows past the cursor by the (organizationId, createdAt) index, LIMIT n + 1,
 * exactly as listTransactionsSlice does; a ROW_NUMBER() over every organisation's matching rows
 * would read and sort all of them to keep n + 1 each. An organisation without a matching row
 * still has its line (LEFT JOIN), for its total of 0. `filter.organizationId` must be null:
 * the organisations are `organizationIds`.
 */
export async function listTransactionSlicesOfOrganizations(
  db: Pick<Db, '$queryRawUnsafe'>,
  organizationIds: readonly string[],
  filter: TransactionFilter,
  slice: KeysetSlice,
): Promise<Map<string, OrganizationTransactionSlice>> {
  const slices = new Map<string, OrganizationTransactionSlice>(organizationIds.map((id) => [id, { transactions: [], total: 0 }]));
  if (organizationIds.length === 0) return slices;
  if (filter.organizationId !== null) throw new Error('listTransactionSlicesOfOrganizations: the organisations are given apart from the filter');
  const where = transactionConditions(filter);
  const forward = slice.direction === 'forward';
  const order = forward ? Prisma.sql`t."createdAt" DESC, t.id DESC` : Prisma.sql`t."createdAt" ASC, t.id ASC`;
  const past = slice.position
    ? forward
      ? Prisma.sql` AND (t."createdAt", t.id) < (${slice.position.createdAt}::timestamptz, ${slice.position.id}::uuid)`
      : Prisma.sql` AND (t."createdAt", t.id) > (${slice.position.createdAt}::timestamptz, ${slice.position.id}::uuid)`
    : Prisma.empty;
  // The ids travel as one text (the embedded database's adapter passes no array parameters).
  const query = Prisma.sql`
    SELECT o.id::text AS "listedFor", o.total AS "listedTotal", ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))}
    FROM (
      SELECT o.id, (SELECT count(*)::int FROM (SELECT 1 FROM "Transaction" t WHERE t."organizationId" = o.id AND ${where} OFFSET 0) matching) AS total
      FROM unnest(string_to_array(${organizationIds.join(',')}::text, ',')::uuid[]) AS o(id)
    ) o
    LEFT JOIN LATERAL (
      SELECT * FROM "Transaction" t WHERE t."organizationId" = o.id AND ${where}${past} ORDER BY ${order} LIMIT ${slice.limit + 1}::int
    ) t ON TRUE
    ORDER BY o.id, ${order}`;
  const rows = await runStatement<RawTransactionRow & { listedFor: string; listedTotal: number }>(
    db,
    namedStatement('gw_slice_transactions_of_organizations', query),
    query.values,
  );
  for (const { listedFor, listedTotal, ...row } of rows) {
    const listed = slices.get(listedFor)!;
    listed.total = listedTotal;
    if (row.id !== null) listed.transactions.push(transactionRecordOf(row));
  }
  return slices;
}

/**
 * A transaction as an export writes it. Amounts, timestamps and lists arrive as the text the CSV
 * holds, written by PostgreSQL: parsing them into BigInt, Date and arrays only to write them back
 * as text cost the gateway most of its CPU per row (bench: 18 ms per 1,000 rows, against COPY).
 * Timestamps are the wire's (RFC 3339, UTC, milliseconds: `toISOString`'s form; the columns hold
 * milliseconds); `methodOfPayment` the offered methods joined by ";", `productNames` the products'
 * names in the merchant's order joined by "; ".
 */
export type ExportedTransactionRow = Pick<
  Transaction,
  | 'id'
  | 'organizationId'
  | 'currency'
  | 'customerFirstName'
  | 'customerLastName'
  | 'customerPhone'
  | 'isEscrow'
  | 'isMerchant'
  | 'feesCustomerSide'
  | 'successUrl'
  | 'errorUrl'
> & {
  amount: string;
  fees: string;
  status: TransactionStatus;
  methodOfPayment: string;
  selectedPaymentMethod: PaymentMethod | null;
  productCount: number;
  productNames: string;
  createdAt: string;
  updatedAt: string;
  paidAt: string | null;
};

/** A timestamptz as the wire writes it (wire.ts: `toISOString`). */
const wireText = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The export's SELECT list and FROM over "Transaction" t: products as a count and their names, in one pass. */
const EXPORT_TRANSACTION_COLUMNS = Prisma.raw(`
  t.id, t."organizationId", t.amount::text AS amount, t.fees::text AS fees, t.currency, t.status::text AS status,
  array_to_string(t."methodOfPayment", ';') AS "methodOfPayment", t."selectedPaymentMethod"::text AS "selectedPaymentMethod",
  t."customerFirstName", t."customerLastName", t."customerPhone", t."isEscrow", t."isMerchant", t."feesCustomerSide",
  t."successUrl", t."errorUrl", ${wireText('t."createdAt"')} AS "createdAt", ${wireText('t."updatedAt"')} AS "updatedAt",
  ${wireText('t."paidAt"')} AS "paidAt", p."productCount", p."productNames"
  FROM "Transaction" t
  CROSS JOIN LATERAL (SELECT count(*)::int AS "productCount", COALESCE(string_agg(tp.name, '; ' ORDER BY tp.position), '') AS "productNames"
                      FROM "TransactionProduct" tp WHERE tp."transactionId" = t.id) p`);

/**
 * Every transaction the filter matches, newest first (the list's order), in batches of at most
 * `batchRows`: streamed through one cursor where the database can (rowStreams.ts), else one keyset
 * page per batch (embedded PGlite). The filter is the list's (transactionConditions), so an export
 * holds exactly what the list's pages hold together.
 */
export async function* exportTransactionRows(
  db: Pick<Db, '$queryRawUnsafe'>,
  filter: TransactionFilter,
  batchRows: number,
): AsyncGenerator<ExportedTransactionRow[], void, undefined> {
  const where = transactionConditions(filter);
  const whole = Prisma.sql`SELECT ${EXPORT_TRANSACTION_COLUMNS} WHERE ${where} ORDER BY t."createdAt" DESC, t.id DESC`;
  const streamed = streamRowBatches<ExportedTransactionRow>(db, whole, batchRows);
  if (streamed) return yield* streamed;
  let last: ExportedTransactionRow | undefined;
  for (;;) {
    const past = last ? Prisma.sql` AND (t."createdAt", t.id) < (${last.createdAt}::timestamptz, ${last.id}::uuid)` : Prisma.empty;
    const page = Prisma.sql`SELECT ${EXPORT_TRANSACTION_COLUMNS} WHERE ${where}${past} ORDER BY t."createdAt" DESC, t.id DESC LIMIT ${batchRows}::int`;
    const rows = await db.$queryRawUnsafe<ExportedTransactionRow[]>(page.text, ...page.values);
    if (rows.length > 0) yield rows;
    if (rows.length < batchRows) return;
    last = rows.at(-1);
  }
}

/** The filter as SQL over "Transaction" t: every condition a bound parameter, never spliced text. */
function transactionConditions(filter: TransactionFilter): Prisma.Sql {
  const { amount, createdAt } = filter;
  const conditions: Prisma.Sql[] = [];
  if (filter.organizationId !== null) conditions.push(Prisma.sql`t."organizationId" = ${filter.organizationId}::uuid`);
  if (!filter.includeDeleted) conditions.push(Prisma.sql`t."isDeleted" = false`);
  if (filter.status) conditions.push(Prisma.sql`t.status = ${filter.status}::"TransactionStatus"`);
  if (filter.statuses) {
    conditions.push(
      filter.statuses.length
        ? Prisma.sql`t.status IN (${Prisma.join(filter.statuses.map((status) => Prisma.sql`${status}::"TransactionStatus"`))})`
        : Prisma.sql`FALSE`,
    );
  }
  if (filter.paymentMethod) conditions.push(Prisma.sql`t."selectedPaymentMethod" = ${filter.paymentMethod}::"PaymentMethod"`);
  if (filter.customerPhone) conditions.push(Prisma.sql`t."customerPhone" = ${filter.customerPhone}::text`);
  if (filter.isEscrow !== undefined) conditions.push(Prisma.sql`t."isEscrow" = ${filter.isEscrow}::boolean`);
  if (filter.isMerchant !== undefined) conditions.push(Prisma.sql`t."isMerchant" = ${filter.isMerchant}::boolean`);
  if (amount.gte !== undefined) conditions.push(Prisma.sql`t.amount >= ${String(amount.gte)}::bigint`);
  if (amount.lte !== undefined) conditions.push(Prisma.sql`t.amount <= ${String(amount.lte)}::bigint`);
  if (createdAt.gte) conditions.push(Prisma.sql`t."createdAt" >= ${createdAt.gte}::timestamptz`);
  if (createdAt.lte) conditions.push(Prisma.sql`t."createdAt" <= ${createdAt.lte}::timestamptz`);
  if (filter.search) conditions.push(searchCondition(filter.search));
  return conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`TRUE`;
}

/**
 * Free text: order id, customer name (any case) or phone, product names (any case), a provider's
 * reference of a payment attempt (exact). A text written like a whole phone number, in any common
 * writing, is the customer's number (phoneSearchCandidates): an exact match through the
 * (organisation, customer phone) index, not a read of every row a pattern would need.
 */
export function searchCondition(search: string): Prisma.Sql {
  const phones = phoneSearchCandidates(search);
  if (phones) return Prisma.sql`t."customerPhone" IN (${Prisma.join(phones.map((phone) => Prisma.sql`${phone}::text`))})`;
  const contains = `%${escapeLike(search)}%`;
  return Prisma.sql`(${isUuid(search) ? Prisma.sql`t.id = ${search}::uuid OR ` : Prisma.empty}t."customerFirstName" ILIKE ${contains}::text
    OR t."customerLastName" ILIKE ${contains}::text OR t."customerPhone" LIKE ${contains}::text
    OR EXISTS (SELECT 1 FROM "PaymentAttempt" a WHERE a."transactionId" = t.id AND a."providerReference" = ${search}::text AND a."providerReference" <> '')
    OR EXISTS (SELECT 1 FROM "TransactionProduct" p WHERE p."transactionId" = t.id AND p.name ILIKE ${contains}::text))`;
}
