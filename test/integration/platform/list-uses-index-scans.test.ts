/**
 * Issue 6: "list page 1 and a deep page use index scans on 1M rows (an EXPLAIN test asserts it,
 * not a timing)". Asserted here on what the gateway really runs, not on a variant of it:
 *
 * - the SQL: listTransactions runs on the gateway's own database (openDatabase, as the server
 *   opens it), so the page and the count go through its direct runner as NAMED prepared
 *   statements on pg; the test records each {name, text, values} at pg's Pool.query and explains
 *   exactly that text with exactly those values;
 * - the plans: a named statement is planned with its values for its first five executions
 *   (custom plans), after which PostgreSQL may switch it to one GENERIC plan for every value
 *   (plan_cache_mode = auto). Each statement is therefore PREPAREd (types inferred from its casts,
 *   as for pg's Parse message) and explained with EXPLAIN EXECUTE under force_custom_plan AND
 *   under force_generic_plan: whichever auto picks, it is one of the two asserted here;
 * - the data: 1,000,000 transactions in one organisation, seeded as the bench seeds them
 *   (bench/seedSql.ts through test/support/seedTransactions.ts), then VACUUM ANALYZE. The
 *   database is made once for its migrations and seed code and kept (seededDatabase; the run's
 *   cluster is saved for the next runs, test/support/globalSetup.ts): a later run reads the same
 *   rows, seeded with the newest a little before that run, and the filters follow that newest row;
 * - the filters: the bench's list (status paid + method wave + one month, a month before the
 *   newest row), page 1 and page 500 of 20 (bench/scenarios.ts DEEP_PAGE), and the same without
 *   dates (the count then visits a third of the table: the case that used to be a Seq Scan).
 *
 * Seed size and cost, measured on the 2-core dev machine (PostgreSQL 15, 2 seeding sessions):
 * 1,000,000 transactions + about 191,000 products in 13.9 s on a quiet machine (16.7-22.4 s while
 * another test run shared the cores; 13.3 s against 16.6 s in one session since the seed rebuilds
 * the secondary indexes after the load, test/support/seedTransactions.ts), VACUUM ANALYZE
 * 0.6-1.5 s; the whole file 20-31 s (with
 * 200,000 rows and every product it took about 8 s). That is about the ~20 s this file may add,
 * so the bench's full size is kept rather than a smaller table: the issue names 1M rows, and the
 * plans depend on the size (a generic plan's estimate for a date range is a fixed fraction of
 * the table's rows, and a deep page of 500 only exists with enough matches: about 35,000 in the
 * month at 1M rows, about 7,000 at 200,000).
 *
 * Products: only the transactions of the month read (and 1,000 rows either side) have theirs.
 * The plans of "Transaction" do not look at "TransactionProduct" (the page reads its products in
 * a per-row subquery on the (transactionId, position) key, planned after the page's 20 rows); the
 * products' plan depends only on that table being far too big for a scan per row, which 190,000
 * rows are, and on each page's rows having products, which they do.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReadAccess } from '../../../src/domain/access/auth.js';
import type { GatewayContext } from '../../../src/domain/context.js';
import { listTransactions, type ListTransactionsInput } from '../../../src/domain/transactions/listTransactions.js';
import { openDatabase, type Database } from '../../../src/infra/prisma/database.js';
import { cloneTemplateDatabase } from '../../support/gateway.js';
import { rowsCreatedBetween, seededDatabase } from '../../support/seedTransactions.js';

/** The bench's size (bench/settings.ts SEED.transactions). */
const ROWS = 1_000_000;
const SPAN_DAYS = 365;
const DAY_MS = 86_400_000;
/** bench/scenarios.ts DEEP_PAGE, with the bench's limit. */
const DEEP_PAGE = 500;
const LIMIT = 20;

interface Statement {
  name?: string;
  text: string;
  values: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

const INDEX_SCANS = ['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'];
const PLAN_MODES = ['force_custom_plan', 'force_generic_plan'] as const;
type PlanMode = (typeof PLAN_MODES)[number];

let clone: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let explainer: pg.Client;
let database: Database;
let organizationId: string;
let seededUntil: Date;
/** Names of the indexes on "Transaction" (a Bitmap Index Scan node names its index, not its table). */
let transactionIndexes: Set<string>;
/** Every index of the seeded tables as the migrations made them (the seed drops some and rebuilds them). */
let migratedIndexes: string[];

const indexDefinitions = async (): Promise<string[]> =>
  (
    await explainer.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename IN ('Transaction', 'TransactionProduct') ORDER BY indexname`)
  ).rows.map((row) => row.indexdef);

/** Paid with wave during one month, a month before the newest row: the bench's list filters (bench/run.ts listFilters). */
const monthOfWave = (newest = seededUntil): ListTransactionsInput => {
  const endDate = new Date(newest.getTime() - 30 * DAY_MS);
  return { status: 'paid', paymentMethod: 'wave', startDate: new Date(endDate.getTime() - 30 * DAY_MS), endDate };
};

/** Paid with wave, any date: the same list without its date range. */
const allWave = (): ListTransactionsInput => ({ status: 'paid', paymentMethod: 'wave' });

beforeAll(async () => {
  // The migrations' indexes, read on a fresh clone of the migrated template.
  clone = await cloneTemplateDatabase();
  explainer = new pg.Client({ connectionString: clone.url });
  await explainer.connect();
  migratedIndexes = await indexDefinitions();
  await explainer.end();
  const seeded = await seededDatabase({
    name: inject('seededDatabase'),
    rows: ROWS,
    spanDays: SPAN_DAYS,
    productRowsFor: (end) => {
      const month = monthOfWave(end);
      return rowsCreatedBetween({ rows: ROWS, end, spanDays: SPAN_DAYS }, month.startDate!, month.endDate!);
    },
  });
  ({ organizationId, end: seededUntil } = seeded);
  console.info(
    seeded.timing
      ? `seeded ${ROWS.toLocaleString('en')} transactions + ${seeded.timing.products.toLocaleString('en')} products in ${(seeded.timing.insertMs / 1000).toFixed(1)} s, VACUUM ANALYZE ${(seeded.timing.vacuumMs / 1000).toFixed(1)} s`
      : `${ROWS.toLocaleString('en')} transactions seeded by an earlier run (newest ${seededUntil.toISOString()})`,
  );
  explainer = new pg.Client({ connectionString: seeded.url });
  await explainer.connect();
  transactionIndexes = new Set((await explainer.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'Transaction'`)).rows.map((row) => row.indexname));
  database = await openDatabase({ url: seeded.url, poolMax: 2 });
}, 120_000);

afterAll(async () => {
  await database?.close();
  await explainer?.end();
  await clone?.drop();
});

/**
 * Runs listTransactions as the gateway does and returns the page and the statements it sent to
 * pg (every Pool.query during the call: the direct runner's named statements).
 */
async function run(input: ListTransactionsInput) {
  const statements: Statement[] = [];
  const pool = pg.Pool.prototype;
  const query = pool.query;
  pool.query = function recording(this: pg.Pool, ...args: unknown[]) {
    const config = args[0] as Statement | string;
    if (typeof config === 'object' && config.text) statements.push({ name: config.name, text: config.text, values: config.values ?? [] });
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    const ctx = { db: database.prisma } as unknown as GatewayContext;
    const access: ReadAccess<'listTransactions'> = {
      operation: 'listTransactions',
      organizationId,
      caller: { kind: 'operator', role: 'analyst', tokenId: null },
    };
    const page = await listTransactions(ctx, access, input);
    return { page, statements };
  } finally {
    pool.query = query;
  }
}

/** A value as pg sends it, as an SQL literal (a Date as its ISO text, with its zone). */
const literalOf = (value: unknown): string =>
  value === null || value === undefined ? 'NULL' : explainer.escapeLiteral(value instanceof Date ? value.toISOString() : String(value));

/** The plan PostgreSQL makes for the prepared `statement` in `mode`, through PREPARE and EXPLAIN EXECUTE. */
async function planOf(statement: Statement, mode: PlanMode): Promise<PlanNode[]> {
  await explainer.query(`PREPARE probe AS ${statement.text}`);
  try {
    await explainer.query(`SET plan_cache_mode = ${mode}`);
    // EXECUTE is a utility statement: it takes no bound parameters, so the values go as literals
    // (of unknown type, each coerced to the type PREPARE inferred for its parameter).
    const { rows } = await explainer.query(`EXPLAIN (FORMAT JSON) EXECUTE probe(${statement.values.map(literalOf).join(', ')})`);
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan as PlanNode);
  } finally {
    await explainer.query(`DEALLOCATE probe; RESET plan_cache_mode`);
  }
}

const describePlan = (statement: Statement, mode: PlanMode, nodes: PlanNode[]): string =>
  `${mode}: ${statement.name}: ${statement.text}\nplan: ${nodes.map((node) => [node['Node Type'], node['Relation Name'], node['Index Name']].filter(Boolean).join(' ')).join(' / ')}`;

/**
 * The page and the count both went as named statements; in each plan mode neither scans
 * "Transaction" or "TransactionProduct" whole, and each reads "Transaction" through one of its indexes.
 */
async function expectIndexScansOnly(statements: Statement[]): Promise<void> {
  const named = statements.filter((statement) => statement.name?.startsWith('gw_'));
  expect(named.map((statement) => statement.name!.replace(/_[0-9a-f]{16}$/, '')).sort()).toEqual(['gw_count_transactions', 'gw_list_transactions']);
  for (const statement of named) {
    expect(statement.text).toMatch(/FROM "Transaction" t/);
    for (const mode of PLAN_MODES) {
      const nodes = await planOf(statement, mode);
      const seqScans = nodes.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => node['Relation Name']);
      expect(seqScans, describePlan(statement, mode, nodes)).not.toContain('Transaction');
      expect(seqScans, describePlan(statement, mode, nodes)).not.toContain('TransactionProduct');
      const indexScans = nodes.filter((node) => INDEX_SCANS.includes(node['Node Type']) && transactionIndexes.has(node['Index Name'] ?? ''));
      expect(indexScans.length, describePlan(statement, mode, nodes)).toBeGreaterThan(0);
    }
  }
}

describe('GET /transactions on 1,000,000 rows uses index scans, custom and generic plans alike', () => {
  it('runs on the indexes the migrations made (the seed rebuilt the ones it dropped)', async () => {
    expect(migratedIndexes.length).toBeGreaterThan(5);
    expect(await indexDefinitions()).toEqual(migratedIndexes);
  });

  it('status + payment method + one month, page 1', async () => {
    const { page, statements } = await run({ ...monthOfWave(), page: 1, limit: LIMIT });
    expect(page.items).toHaveLength(LIMIT);
    await expectIndexScansOnly(statements);
  });

  it(`status + payment method + one month, deep page (${DEEP_PAGE})`, async () => {
    const { page, statements } = await run({ ...monthOfWave(), page: DEEP_PAGE, limit: LIMIT });
    expect(page.items).toHaveLength(LIMIT);
    expect(
      page.items.every((item) => item.products.length > 0),
      'the deep page has its products',
    ).toBe(true);
    await expectIndexScansOnly(statements);
  });

  // Without a date range the count must visit every paid-with-wave row (a third of the table):
  // without the index on (organizationId, status, selectedPaymentMethod, isDeleted, createdAt) that
  // was a Seq Scan on "Transaction" (about 600 ms at 1,000,000 rows); with it, an Index Only Scan
  // (about 60 ms), and the month-window count above drops from about 70 to 9 ms.
  it('status + payment method, no dates, page 1', async () => {
    const { page, statements } = await run({ ...allWave(), page: 1, limit: LIMIT });
    expect(page.items).toHaveLength(LIMIT);
    await expectIndexScansOnly(statements);
  });

  it(`status + payment method, no dates, deep page (${DEEP_PAGE})`, async () => {
    const { page, statements } = await run({ ...allWave(), page: DEEP_PAGE, limit: LIMIT });
    expect(page.items).toHaveLength(LIMIT);
    await expectIndexScansOnly(statements);
  });
});
