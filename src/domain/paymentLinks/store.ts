/**
 * Payment links' SQL (issue 30). A link holds no money: its figures (paid count and amount) are
 * read from its transactions, and its one guard against a second payment of a single-use link is
 * the conditional claim below, taken in the database transaction that makes the transaction.
 */
import { Prisma } from '../../generated/prisma/client.js';
import type { PaymentMethod, TransactionStatus } from '../../generated/prisma/enums.js';
import type { Db, DbTransaction } from '../ports.js';
import { isUuid } from '../ids.js';
import { escapeLike } from '../text.js';
import { transactionRecordOf, transactionWithProductsColumns, type RawTransactionRow } from '../transactions/transactions.js';
import { searchCondition as transactionSearchCondition, type TransactionRecord } from '../transactions/store.js';

export type PaymentLinkStatus = 'active' | 'expired' | 'used' | 'deactivated';

/** What a link's transactions carry as products: the v2 product fields. */
export interface LinkProduct {
  name: string;
  price: number;
  quantity: number;
  description: string | null;
}

/** A link as read: what it was created with, its state, and what it has collected. */
export interface PaymentLinkRecord extends NewPaymentLink {
  deactivatedAt: Date | null;
  claimTransactionId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Computed at `now` of the read: deactivated, then used, then expired, else active. */
  status: PaymentLinkStatus;
  /** Its transactions that are paid now (refunded ones no longer count). */
  paidCount: number;
  paidAmount: bigint;
}

export interface NewPaymentLink {
  id: string;
  organizationId: string;
  name: string;
  amount: bigint;
  products: LinkProduct[];
  methodOfPayment: PaymentMethod[];
  singleUse: boolean;
  expiresAt: Date | null;
  successUrl: string | null;
  errorUrl: string | null;
  feesCustomerSide: boolean;
}

type RawLinkRow = Omit<PaymentLinkRecord, 'amount' | 'paidAmount'> & { amount: string; paidAmount: string };

const recordOf = (row: RawLinkRow): PaymentLinkRecord => ({ ...row, amount: BigInt(row.amount), paidAmount: BigInt(row.paidAmount) });

/**
 * A link's columns with its status at `now` and, when asked, its paid figures (counted over its
 * transactions: the merchant's reads; the customer's page and form need none, and a popular link
 * would pay for them on every customer); `l` the link, `c` its claiming transaction.
 */
const linkColumns = (now: Date, stats = true) => Prisma.sql`
  l.id, l."organizationId", l.name, l.amount::text AS amount, l.products, l."methodOfPayment"::text[] AS "methodOfPayment",
  l."singleUse", l."expiresAt", l."successUrl", l."errorUrl", l."feesCustomerSide", l."deactivatedAt",
  l."claimTransactionId", l."createdAt", l."updatedAt",
  CASE WHEN l."deactivatedAt" IS NOT NULL THEN 'deactivated'
       WHEN l."singleUse" AND c.status IN ('paid', 'paid_and_blocked', 'refunded') THEN 'used'
       WHEN l."expiresAt" IS NOT NULL AND l."expiresAt" <= ${now}::timestamptz THEN 'expired'
       ELSE 'active' END AS status, ${stats ? paidFigures : Prisma.sql`0 AS "paidCount", '0' AS "paidAmount"`}`;

const paidFigures = Prisma.sql`
  (SELECT count(*)::int FROM "Transaction" t WHERE t."paymentLinkId" = l.id AND t.status IN ('paid', 'paid_and_blocked')) AS "paidCount",
  (SELECT COALESCE(sum(t.amount), 0)::text FROM "Transaction" t WHERE t."paymentLinkId" = l.id AND t.status IN ('paid', 'paid_and_blocked')) AS "paidAmount"`;

const linkSource = Prisma.sql`"PaymentLink" l LEFT JOIN "Transaction" c ON c.id = l."claimTransactionId"`;

export async function insertPaymentLink(db: Pick<Db, '$queryRaw'>, link: NewPaymentLink, now: Date): Promise<PaymentLinkRecord> {
  await db.$queryRaw`
    INSERT INTO "PaymentLink" (id, "organizationId", name, amount, products, "methodOfPayment", "singleUse", "expiresAt",
      "successUrl", "errorUrl", "feesCustomerSide", "createdAt", "updatedAt")
    VALUES (${link.id}::uuid, ${link.organizationId}::uuid, ${link.name}, ${String(link.amount)}::bigint, ${JSON.stringify(link.products)}::jsonb,
      string_to_array(${link.methodOfPayment.join(',')}::text, ',')::"PaymentMethod"[], ${link.singleUse}, ${link.expiresAt}::timestamptz,
      ${link.successUrl}::text, ${link.errorUrl}::text, ${link.feesCustomerSide}, now(), now())`;
  return (await readPaymentLink(db, link.id, link.organizationId, now))!;
}

/**
 * One link, of `organizationId` (null: any organisation: operators, the customer's page).
 * `stats: false`: paidCount and paidAmount are left at 0 (the customer's side reads no figures).
 */
export async function readPaymentLink(
  db: Pick<Db, '$queryRaw'>,
  id: string,
  organizationId: string | null,
  now: Date,
  { stats = true }: { stats?: boolean } = {},
): Promise<PaymentLinkRecord | null> {
  const rows = await db.$queryRaw<RawLinkRow[]>`
    SELECT ${linkColumns(now, stats)} FROM ${linkSource}
    WHERE l.id = ${id}::uuid AND (${organizationId}::uuid IS NULL OR l."organizationId" = ${organizationId}::uuid)`;
  return rows[0] ? recordOf(rows[0]) : null;
}

export interface LinkFilter {
  organizationId: string | null;
  status?: PaymentLinkStatus;
  /** Free text (linkSearchCondition). */
  search?: string;
  /** Whether the search also looks through the links' transactions (only for a caller who may read them). */
  searchTransactions?: boolean;
}

/**
 * Free text: the link's name (any case) or id, or any of its transactions the transactions'
 * search finds (order id, the customer's phone in any writing, name, a provider's reference): a
 * merchant who knows only the customer's number finds the link they paid through.
 */
function linkSearchCondition(search: string, organizationId: string | null, searchTransactions: boolean): Prisma.Sql {
  const contains = `%${escapeLike(search)}%`;
  const throughTransactions = searchTransactions
    ? Prisma.sql` OR s.id IN (SELECT t."paymentLinkId" FROM "Transaction" t WHERE t."paymentLinkId" IS NOT NULL
      AND (${organizationId}::uuid IS NULL OR t."organizationId" = ${organizationId}::uuid) AND ${transactionSearchCondition(search)})`
    : Prisma.empty;
  return Prisma.sql`(s.name ILIKE ${contains}::text${isUuid(search) ? Prisma.sql` OR s.id = ${search}::uuid` : Prisma.empty}${throughTransactions})`;
}

/** A page of links, newest first, with the count of all that match. */
export async function listPaymentLinksPage(
  db: Pick<Db, '$queryRaw'>,
  filter: LinkFilter,
  page: { limit: number; skip: number },
  now: Date,
): Promise<{ links: PaymentLinkRecord[]; total: number }> {
  const where = Prisma.sql`(${filter.organizationId}::uuid IS NULL OR s."organizationId" = ${filter.organizationId}::uuid)
    AND (${filter.status ?? null}::text IS NULL OR s.status = ${filter.status ?? null}::text)
    AND ${filter.search ? linkSearchCondition(filter.search, filter.organizationId, filter.searchTransactions ?? false) : Prisma.sql`TRUE`}`;
  const rows = await db.$queryRaw<(RawLinkRow & { total: number })[]>`
    SELECT s.*, count(*) OVER ()::int AS total FROM (SELECT ${linkColumns(now)} FROM ${linkSource}) s
    WHERE ${where} ORDER BY s."createdAt" DESC, s.id DESC LIMIT ${page.limit} OFFSET ${page.skip}`;
  if (rows.length === 0 && page.skip > 0) {
    const counted = await db.$queryRaw<{ total: number }[]>`
      SELECT count(*)::int AS total FROM (SELECT ${linkColumns(now)} FROM ${linkSource}) s WHERE ${where}`;
    return { links: [], total: counted[0]?.total ?? 0 };
  }
  return { links: rows.map(({ total: _total, ...row }) => recordOf(row)), total: rows[0]?.total ?? 0 };
}

/**
 * Deactivates a link (once: a second deactivation keeps the first time). Null when it is not the
 * organisation's; else whether this call deactivated it (the row locked first, so of two at once
 * only one is told it did: the audit log records one deactivation).
 */
export async function markPaymentLinkDeactivated(
  db: Pick<Db, '$queryRaw'>,
  id: string,
  organizationId: string | null,
): Promise<{ organizationId: string; name: string; newly: boolean } | null> {
  const rows = await db.$queryRaw<{ organizationId: string; name: string; newly: boolean }[]>`
    WITH before AS (
      SELECT id, "deactivatedAt" FROM "PaymentLink"
      WHERE id = ${id}::uuid AND (${organizationId}::uuid IS NULL OR "organizationId" = ${organizationId}::uuid) FOR UPDATE)
    UPDATE "PaymentLink" l SET "deactivatedAt" = COALESCE(l."deactivatedAt", now()), "updatedAt" = now()
    FROM before WHERE l.id = before.id
    RETURNING l."organizationId", l.name, before."deactivatedAt" IS NULL AS newly`;
  return rows[0] ?? null;
}

/**
 * Locks the link for the database transaction that makes a transaction from it: a single-use
 * link exclusively (two customers paying it at once are served one after the other, and the
 * second sees the first one's claim), a reusable one shared (payers do not wait for each other;
 * a deactivation waits for them, and they for it). Then the link as it is now.
 */
export async function lockPaymentLink(tx: DbTransaction, id: string, exclusive: boolean, now: Date): Promise<PaymentLinkRecord | null> {
  const locked = exclusive
    ? await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "PaymentLink" WHERE id = ${id}::uuid FOR UPDATE`
    : await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "PaymentLink" WHERE id = ${id}::uuid FOR SHARE`;
  if (locked.length === 0) return null;
  // A statement after the lock: under READ COMMITTED it sees what the previous holder committed.
  return readPaymentLink(tx, id, null, now, { stats: false });
}

/** The state of the transaction that holds a single-use link, read under the link's lock. */
export async function readClaim(tx: DbTransaction, transactionId: string): Promise<{ status: TransactionStatus; customerPhone: string | null } | null> {
  const rows = await tx.$queryRaw<{ status: TransactionStatus; customerPhone: string | null }[]>`
    SELECT status::text AS status, "customerPhone" FROM "Transaction" WHERE id = ${transactionId}::uuid`;
  return rows[0] ?? null;
}

/**
 * Gives a single-use link to `transactionId`, only while nobody holds it or its holder was
 * cancelled (a cancelled transaction can never be paid). One conditional UPDATE under the lock;
 * the unique claimTransactionId is a second guard. False: someone else holds it.
 */
export async function claimPaymentLink(tx: DbTransaction, linkId: string, transactionId: string): Promise<boolean> {
  const changed = await tx.$executeRaw`
    UPDATE "PaymentLink" l SET "claimTransactionId" = ${transactionId}::uuid, "updatedAt" = now()
    WHERE l.id = ${linkId}::uuid AND l."deactivatedAt" IS NULL
      AND (l."claimTransactionId" IS NULL
           OR EXISTS (SELECT 1 FROM "Transaction" t WHERE t.id = l."claimTransactionId" AND t.status = 'cancelled'))`;
  return changed === 1;
}

/** A page of the link's transactions, newest first. */
export async function listLinkTransactions(
  db: Pick<Db, '$queryRaw'>,
  linkId: string,
  page: { limit: number; skip: number },
): Promise<{ transactions: TransactionRecord[]; total: number }> {
  const rows = await db.$queryRaw<RawTransactionRow[]>`
    SELECT ${transactionWithProductsColumns(Prisma.raw('"TransactionProduct"'))} FROM "Transaction" t
    WHERE t."paymentLinkId" = ${linkId}::uuid ORDER BY t."createdAt" DESC, t.id DESC LIMIT ${page.limit} OFFSET ${page.skip}`;
  const counted = await db.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM "Transaction" WHERE "paymentLinkId" = ${linkId}::uuid`;
  return { transactions: rows.map(transactionRecordOf), total: counted[0]?.total ?? 0 };
}

/** A link with its organisation's name, as the customer's page shows them: one statement, no paid figures. */
export async function readLinkForPage(db: Pick<Db, '$queryRaw'>, id: string, now: Date): Promise<(PaymentLinkRecord & { organizationName: string }) | null> {
  const rows = await db.$queryRaw<(RawLinkRow & { organizationName: string })[]>`
    SELECT ${linkColumns(now, false)}, o.name AS "organizationName"
    FROM ${linkSource} JOIN "Organization" o ON o.id = l."organizationId"
    WHERE l.id = ${id}::uuid`;
  return rows[0] ? { ...recordOf(rows[0]), organizationName: rows[0].organizationName } : null;
}
