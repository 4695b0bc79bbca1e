/**
 * Every SQL statement of the analyses: grouping and sums happen in PostgreSQL (money is summed as
 * bigint there), never in JavaScript. Reads take the lagging connection they are given (a replica
 * when there is one); the rollup's refresh writes, so it takes the primary.
 *
 * The transaction counts read a daily rollup, TransactionStatsDay (prisma/schema.prisma says why):
 * whole UTC days from it, the partial days at a range's edges from "Transaction" itself. The
 * rollup stays exact: a trigger appends every (organisation, day) a change touches to
 * TransactionStatsChange, and `refreshTransactionStatsDays` recomputes those days from the rows, in
 * one statement (one snapshot): a change committed after that snapshot keeps its row for the next
 * refresh, so none is lost.
 */
import { Prisma } from '../../generated/prisma/client.js';
import type { PaymentMethod, PayoutStatus, TransactionStatus } from '../../generated/prisma/enums.js';
import type { Db } from '../context.js';
import type { SplitRange, StatsDimension, StatsRange } from './ranges.js';

/** PostgreSQL's date_trunc unit of each interval ('week' starts on Monday). */
type TruncUnit = 'day' | 'week' | 'month';

interface StatsRecord<Status> {
  periodStart: Date;
  method: PaymentMethod | null;
  status: Status | null;
  organizationId: string | null;
  count: number;
  amount: bigint;
  fees: bigint;
}
export type TransactionStatsRecord = StatsRecord<TransactionStatus>;
export type PayoutStatsRecord = StatsRecord<PayoutStatus>;

export interface RefundStatsRecord {
  periodStart: Date;
  method: PaymentMethod | null;
  organizationId: string | null;
  count: number;
  amount: bigint;
}

export interface ConversionRecord {
  /** null: every method together. */
  method: PaymentMethod | null;
  created: number;
  paid: number;
}

export interface TimeToPayRecord {
  /** null: every method together. */
  method: PaymentMethod | null;
  count: number;
  medianSeconds: number | null;
  p90Seconds: number | null;
}

export interface OrganizationVolumeRecord {
  organizationId: string;
  name: string;
  count: number;
  amount: bigint;
  fees: bigint;
}

/** The rollup's name in "AnalyticsRollup", and the advisory lock its refreshes take turns on. */
const TRANSACTIONS_ROLLUP = 'transactions';
/**
 * A refresh's bound. Catching up is a few days of a few organisations (milliseconds); building from
 * scratch reads every transaction once (1.1 M rows: about 2 s on the bench machine), so this
 * leaves room for a table a hundred times that before the refresh gives up and rolls back.
 */
const REFRESH_TIMEOUT_MS = 5 * 60_000;

const isoDay = (at: Date): string => at.toISOString().slice(0, 10);

/** Whether the rollup was ever built, and whether changes wait to be folded into it: one round trip. */
export async function transactionStatsDaysState(db: Db): Promise<{ built: boolean; pending: boolean }> {
  const [row] = await db.$queryRaw<{ built: boolean; pending: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM "AnalyticsRollup" WHERE name = ${TRANSACTIONS_ROLLUP}) AS built,
           EXISTS (SELECT 1 FROM "TransactionStatsChange") AS pending`;
  return { built: row?.built ?? false, pending: row?.pending ?? false };
}

/**
 * Brings the rollup up to date, one refresh at a time (a transaction-scoped advisory lock: two
 * refreshes recomputing one day at once would each insert its rows). Built from scratch when it
 * never was (a new database, or rows loaded with triggers off: delete its "AnalyticsRollup" row),
 * else the changed days only.
 *
 * When another refresh holds the lock, an up-to-date-but-for-a-moment rollup is not waited for:
 * the caller reads it as it is (a lagging read), rather than every analyst of a busy moment
 * holding a pooled connection while queueing on the lock. Only a rollup never built is waited for
 * (empty, it would answer nothing at all).
 */
export async function refreshTransactionStatsDays(db: Db): Promise<void> {
  await db.$transaction(
    async (tx) => {
      const lock = Prisma.sql`hashtextextended(${`analytics:${TRANSACTIONS_ROLLUP}`}::text, 0)`;
      const [state] = await tx.$queryRaw<{ built: boolean; locked: boolean }[]>`
        SELECT EXISTS (SELECT 1 FROM "AnalyticsRollup" WHERE name = ${TRANSACTIONS_ROLLUP}) AS built, pg_try_advisory_xact_lock(${lock}) AS locked`;
      if (!state?.locked && state?.built) return;
      if (!state?.locked) await tx.$executeRaw`SELECT pg_advisory_xact_lock(${lock})`;
      // Read again under the lock: a build may have finished while this one waited.
      const [again] = await tx.$queryRaw<{ built: boolean }[]>`SELECT EXISTS (SELECT 1 FROM "AnalyticsRollup" WHERE name = ${TRANSACTIONS_ROLLUP}) AS built`;
      if (again?.built) {
        await tx.$executeRaw`
          WITH changed AS (DELETE FROM "TransactionStatsChange" RETURNING "organizationId", day),
          days AS (SELECT DISTINCT "organizationId", day FROM changed),
          removed AS (
            DELETE FROM "TransactionStatsDay" d USING days c WHERE d."organizationId" = c."organizationId" AND d.day = c.day)
          INSERT INTO "TransactionStatsDay" ("organizationId", day, method, status, count, amount, fees)
          SELECT c."organizationId", c.day, a.method, a.status, a.count, a.amount, a.fees
          FROM days c
          -- Per day, by index ("organizationId", "createdAt"): a join would be planned as a hash
          -- join over every transaction (600 ms on the bench data for one changed day).
          CROSS JOIN LATERAL (
            SELECT t."selectedPaymentMethod" AS method, t.status, count(*)::int AS count, sum(t.amount) AS amount, sum(t.fees) AS fees
            FROM "Transaction" t
            WHERE t."organizationId" = c."organizationId"
              AND t."createdAt" >= (c.day::timestamp AT TIME ZONE 'UTC') AND t."createdAt" < ((c.day + 1)::timestamp AT TIME ZONE 'UTC')
            GROUP BY 1, 2) a`;
        return;
      }
      await tx.$executeRaw`
        WITH cleared AS (DELETE FROM "TransactionStatsChange"),
        emptied AS (DELETE FROM "TransactionStatsDay"),
        built AS (
          INSERT INTO "AnalyticsRollup" (name, "builtAt") VALUES (${TRANSACTIONS_ROLLUP}, now())
          ON CONFLICT (name) DO UPDATE SET "builtAt" = excluded."builtAt")
        INSERT INTO "TransactionStatsDay" ("organizationId", day, method, status, count, amount, fees)
        SELECT t."organizationId", (t."createdAt" AT TIME ZONE 'UTC')::date, t."selectedPaymentMethod", t.status, count(*)::int, sum(t.amount), sum(t.fees)
        FROM "Transaction" t
        GROUP BY 1, 2, 3, 4`;
    },
    { timeout: REFRESH_TIMEOUT_MS },
  );
}

/** `AND <column> = organisation` when one is named. */
const organizationFilter = (column: Prisma.Sql, organizationId: string | null): Prisma.Sql =>
  organizationId === null ? Prisma.empty : Prisma.sql`AND ${column} = ${organizationId}::uuid`;

/** `(<column> >= from AND <column> < to) OR ...` over `ranges` (false when there is none). */
const inRanges = (column: Prisma.Sql, ranges: readonly StatsRange[]): Prisma.Sql =>
  ranges.length === 0
    ? Prisma.sql`false`
    : Prisma.sql`(${Prisma.join(
        ranges.map(({ from, to }) => Prisma.sql`(${column} >= ${from}::timestamptz AND ${column} < ${to}::timestamptz)`),
        ' OR ',
      )})`;

/**
 * The transactions of a range as rows of (at, organisation, method, status, count, amount, fees):
 * the rollup's whole days (at = the day's start) and the edges' transactions one by one.
 */
function transactionSource(split: SplitRange, organizationId: string | null): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (split.days) {
    parts.push(Prisma.sql`
      SELECT (d.day::timestamp AT TIME ZONE 'UTC') AS at, d."organizationId", d.method, d.status, d.count::bigint AS n, d.amount, d.fees
      FROM "TransactionStatsDay" d
      WHERE d.day >= ${isoDay(split.days.first)}::date AND d.day < ${isoDay(split.days.end)}::date ${organizationFilter(Prisma.sql`d."organizationId"`, organizationId)}`);
  }
  // Whole days only (the usual question): no edge, and no branch for them to plan.
  if (split.edges.length > 0 || parts.length === 0) {
    parts.push(Prisma.sql`
      SELECT t."createdAt", t."organizationId", t."selectedPaymentMethod", t.status, 1::bigint, t.amount, t.fees
      FROM "Transaction" t
      WHERE ${inRanges(Prisma.sql`t."createdAt"`, split.edges)} ${organizationFilter(Prisma.sql`t."organizationId"`, organizationId)}`);
  }
  return Prisma.join(parts, ' UNION ALL ');
}

/** The grouped columns, NULL (of the column's type) for a dimension not asked for. */
function groupColumns(dimensions: ReadonlySet<StatsDimension>, statusType: 'TransactionStatus' | 'PayoutStatus'): Prisma.Sql {
  const method = dimensions.has('METHOD') ? Prisma.sql`s.method` : Prisma.sql`NULL::"PaymentMethod"`;
  const status = dimensions.has('STATUS') ? Prisma.sql`s.status` : Prisma.raw(`NULL::"${statusType}"`);
  const organization = dimensions.has('ORGANIZATION') ? Prisma.sql`s."organizationId"` : Prisma.sql`NULL::uuid`;
  return Prisma.sql`${method} AS method, ${status} AS status, ${organization}::text AS "organizationId"`;
}

interface StatsQuery {
  split: SplitRange;
  unit: TruncUnit;
  dimensions: ReadonlySet<StatsDimension>;
  organizationId: string | null;
  /** Rows read at most (the caller asks one more than it answers, to tell "too many"). */
  limit: number;
}

/** A query over the rows themselves (no rollup): the range as given. */
type RangeQuery = Omit<StatsQuery, 'split'> & { range: StatsRange };

/**
 * transactionStats: count, amount and fees per bucket of creation time and the groups asked for.
 * Each row also says whether the rollup was up to date in the snapshot it was read from (built,
 * no change waiting): the common case then takes one round trip, not a check and a read.
 */
export async function transactionStatsRows(db: Db, query: StatsQuery): Promise<(TransactionStatsRecord & { fresh: boolean })[]> {
  return db.$queryRaw<(TransactionStatsRecord & { fresh: boolean })[]>`
    SELECT date_trunc(${query.unit}::text, s.at, 'UTC') AS "periodStart", ${groupColumns(query.dimensions, 'TransactionStatus')},
           sum(s.n)::int AS count, sum(s.amount)::bigint AS amount, sum(s.fees)::bigint AS fees,
           (SELECT EXISTS (SELECT 1 FROM "AnalyticsRollup" WHERE name = ${TRANSACTIONS_ROLLUP}) AND NOT EXISTS (SELECT 1 FROM "TransactionStatsChange")) AS fresh
    FROM (${transactionSource(query.split, query.organizationId)}) AS s(at, "organizationId", method, status, n, amount, fees)
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    LIMIT ${query.limit}`;
}

/** payoutStats: the same over payouts, read from "Payout" (by creation time; every status, archived ones too). */
export async function payoutStatsRows(db: Db, query: RangeQuery): Promise<PayoutStatsRecord[]> {
  return db.$queryRaw<PayoutStatsRecord[]>`
    SELECT date_trunc(${query.unit}::text, s."createdAt", 'UTC') AS "periodStart", ${groupColumns(query.dimensions, 'PayoutStatus')},
           count(*)::int AS count, sum(s.amount)::bigint AS amount, sum(s.fees)::bigint AS fees
    FROM (SELECT p."createdAt", p."organizationId", p."selectedPaymentMethod" AS method, p.status, p.amount, p.fees
          FROM "Payout" p
          WHERE p."createdAt" >= ${query.range.from}::timestamptz AND p."createdAt" < ${query.range.to}::timestamptz
            ${organizationFilter(Prisma.sql`p."organizationId"`, query.organizationId)}) s
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    LIMIT ${query.limit}`;
}

/** refundStats: refunds that succeeded, per bucket of when they did (the refund's last change). */
export async function refundStatsRows(db: Db, query: RangeQuery): Promise<RefundStatsRecord[]> {
  const method = query.dimensions.has('METHOD') ? Prisma.sql`r.method` : Prisma.sql`NULL::"PaymentMethod"`;
  const organization = query.dimensions.has('ORGANIZATION') ? Prisma.sql`r."organizationId"` : Prisma.sql`NULL::uuid`;
  return db.$queryRaw<RefundStatsRecord[]>`
    SELECT date_trunc(${query.unit}::text, r."updatedAt", 'UTC') AS "periodStart", ${method} AS method, ${organization}::text AS "organizationId",
           count(*)::int AS count, sum(r.amount)::bigint AS amount
    FROM "Refund" r
    WHERE r.status = 'succeeded' AND r."updatedAt" >= ${query.range.from}::timestamptz AND r."updatedAt" < ${query.range.to}::timestamptz
      ${organizationFilter(Prisma.sql`r."organizationId"`, query.organizationId)}
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
    LIMIT ${query.limit}`;
}

/**
 * conversionStats: per offered method, the transactions created in the range that offered it and
 * those paid with it; then every transaction and every paid one (method null).
 */
export async function conversionRows(db: Db, range: StatsRange, organizationId: string | null): Promise<ConversionRecord[]> {
  const created = Prisma.sql`t."createdAt" >= ${range.from}::timestamptz AND t."createdAt" < ${range.to}::timestamptz ${organizationFilter(Prisma.sql`t."organizationId"`, organizationId)}`;
  return db.$queryRaw<ConversionRecord[]>`
    SELECT method, created, paid FROM (
      SELECT m.method, count(*)::int AS created,
             (count(*) FILTER (WHERE t."paidAt" IS NOT NULL AND t."selectedPaymentMethod" = m.method))::int AS paid
      FROM "Transaction" t CROSS JOIN LATERAL unnest(t."methodOfPayment") AS m(method)
      WHERE ${created}
      GROUP BY m.method
      UNION ALL
      SELECT NULL::"PaymentMethod", count(*)::int, (count(*) FILTER (WHERE t."paidAt" IS NOT NULL))::int
      FROM "Transaction" t
      WHERE ${created}) AS rows
    ORDER BY method NULLS LAST`;
}

/** timeToPayStats: median and 90th percentile of paidAt - createdAt, per method used and overall (method null). */
export async function timeToPayRows(db: Db, range: StatsRange, organizationId: string | null): Promise<TimeToPayRecord[]> {
  return db.$queryRaw<TimeToPayRecord[]>`
    SELECT t."selectedPaymentMethod" AS method, count(*)::int AS count,
           -- To the millisecond, the precision of the timestamps (interpolation leaves float noise past it).
           round(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM t."paidAt" - t."createdAt")::float8)::numeric, 3)::float8 AS "medianSeconds",
           round(percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM t."paidAt" - t."createdAt")::float8)::numeric, 3)::float8 AS "p90Seconds"
    FROM "Transaction" t
    WHERE t."createdAt" >= ${range.from}::timestamptz AND t."createdAt" < ${range.to}::timestamptz AND t."paidAt" IS NOT NULL
      ${organizationFilter(Prisma.sql`t."organizationId"`, organizationId)}
    GROUP BY ROLLUP (t."selectedPaymentMethod")
    ORDER BY t."selectedPaymentMethod" NULLS LAST`;
}

/**
 * topOrganizations: the organisations with the largest paid volume (transactions created in the
 * range and paid: paid, held in escrow, or paid then refunded), largest first.
 */
export async function topOrganizationRows(db: Db, split: SplitRange, limit: number): Promise<OrganizationVolumeRecord[]> {
  return db.$queryRaw<OrganizationVolumeRecord[]>`
    SELECT v."organizationId"::text AS "organizationId", o.name, v.count, v.amount, v.fees
    FROM (
      SELECT s."organizationId", sum(s.n)::int AS count, sum(s.amount)::bigint AS amount, sum(s.fees)::bigint AS fees
      FROM (${transactionSource(split, null)}) AS s(at, "organizationId", method, status, n, amount, fees)
      WHERE s.status IN ('paid', 'paid_and_blocked', 'refunded')
      GROUP BY s."organizationId"
      ORDER BY amount DESC, s."organizationId"
      LIMIT ${limit}) v
    JOIN "Organization" o ON o.id = v."organizationId"
    ORDER BY v.amount DESC, v."organizationId"`;
}
