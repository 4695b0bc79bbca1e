/**
 * GET /transactions on a big table must read through an index, never a sequential scan of
 * "Transaction": asserted on the plans PostgreSQL makes for the SQL listTransactions really sends
 * (captured at the pg pool while it runs: this test's Prisma client has no direct runner, so the
 * statements go through the adapter's pool), not on timings. The table is seeded as the bench
 * seeds it (bench/seedSql.ts: one organisation, statuses, methods and dates spread over a year,
 * rows in time order), then VACUUM ANALYZE, as autovacuum keeps a live table.
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSeedChunk, prepareSeedSession } from '../../bench/seedSql.js';
import type { ReadAccess } from '../../src/domain/auth.js';
import type { GatewayContext } from '../../src/domain/context.js';
import { listTransactions, type ListTransactionsInput } from '../../src/domain/operations/listTransactions.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { cloneTemplateDatabase } from '../support/gateway.js';

/** Enough rows that an index is the planner's right choice (the bench has 1,000,000). */
const ROWS = 200_000;
const CHUNK = 50_000;
const SPAN_DAYS = 365;
const DAY_MS = 86_400_000;
/** About the middle of the month's matches here (about 7,000 rows: 20 per page). */
const DEEP_PAGE = 150;

interface Statement {
  text: string;
  values: unknown[];
}

/** A pool that remembers every statement given to it: the adapter sends Prisma's SQL through pool.query. */
class RecordingPool extends pg.Pool {
  statements: Statement[] = [];

  override query(...args: unknown[]): never {
    const config = args[0] as { text?: string; values?: unknown[] } | string;
    if (typeof config === 'object' && config.text) this.statements.push({ text: config.text, values: config.values ?? [] });
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

const INDEX_SCANS = ['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'];

let clone: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let pool: RecordingPool;
let explainer: pg.Client;
let prisma: PrismaClient;
let organizationId: string;
let seededUntil: Date;
/** Names of the indexes on "Transaction" (a Bitmap Index Scan node names its index, not its table). */
let transactionIndexes: Set<string>;

beforeAll(async () => {
  clone = await cloneTemplateDatabase();
  explainer = new pg.Client({ connectionString: clone.url });
  await explainer.connect();
  organizationId = (await explainer.query(`SELECT gen_random_uuid() AS id`)).rows[0].id;
  seededUntil = new Date();
  await explainer.query(`INSERT INTO "Organization" (id, name, verified, "businessSector", "updatedAt") VALUES ($1, 'Big shop', true, 'retail', now())`, [organizationId]);
  await prepareSeedSession(explainer);
  for (let first = 1; first <= ROWS; first += CHUNK) {
    await insertSeedChunk(explainer, [organizationId, first, Math.min(first + CHUNK - 1, ROWS), ROWS, seededUntil.toISOString(), SPAN_DAYS]);
  }
  await explainer.query(`SET session_replication_role = origin`);
  await explainer.query(`VACUUM (ANALYZE) "Transaction", "TransactionProduct"`);
  transactionIndexes = new Set((await explainer.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'Transaction'`)).rows.map((row) => row.indexname));
  pool = new RecordingPool({ connectionString: clone.url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
}, 120_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await explainer?.end();
  await clone?.drop();
});

/** The statements listTransactions sends for `input`, and PostgreSQL's plan of each. */
async function plansOf(input: ListTransactionsInput) {
  pool.statements = [];
  const ctx = { db: prisma } as unknown as GatewayContext;
  const access: ReadAccess<'listTransactions'> = { operation: 'listTransactions', organizationId };
  const page = await listTransactions(ctx, access, input);
  const plans = [];
  for (const statement of pool.statements.filter((s) => /^\s*SELECT/i.test(s.text))) {
    const { rows } = await explainer.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
    plans.push({ sql: statement.text, nodes: nodesOf(rows[0]['QUERY PLAN'][0].Plan as PlanNode) });
  }
  return { page, plans };
}

const describePlan = (sql: string, nodes: PlanNode[]): string =>
  `${sql}\nplan: ${nodes.map((node) => [node['Node Type'], node['Relation Name'], node['Index Name']].filter(Boolean).join(' ')).join(' / ')}`;

/**
 * No statement scans "Transaction" or "TransactionProduct" whole, and each that reads
 * "Transaction" (the page and the count) goes through one of its indexes.
 */
function expectIndexScansOnly(plans: { sql: string; nodes: PlanNode[] }[]): void {
  const readsTransaction = plans.filter((plan) => /FROM ("public"\.)?"Transaction"/.test(plan.sql));
  expect(readsTransaction.length, 'the page and the count').toBeGreaterThanOrEqual(2);
  for (const { sql, nodes } of plans) {
    const seqScans = nodes.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => node['Relation Name']);
    expect(seqScans, describePlan(sql, nodes)).not.toContain('Transaction');
    expect(seqScans, describePlan(sql, nodes)).not.toContain('TransactionProduct');
  }
  for (const { sql, nodes } of readsTransaction) {
    const indexScans = nodes.filter((node) => INDEX_SCANS.includes(node['Node Type']) && transactionIndexes.has(node['Index Name'] ?? ''));
    expect(indexScans.length, describePlan(sql, nodes)).toBeGreaterThan(0);
  }
}

/** Paid with wave during one month, a month before the newest row: the bench's list filters. */
const monthOfWave = (): ListTransactionsInput => {
  const endDate = new Date(seededUntil.getTime() - 30 * DAY_MS);
  return { status: 'paid', paymentMethod: 'wave', startDate: new Date(endDate.getTime() - 30 * DAY_MS), endDate };
};

/** Paid with wave, any date: the same list without its date range. */
const allWave = (): ListTransactionsInput => ({ status: 'paid', paymentMethod: 'wave' });

describe('GET /transactions on a large table uses index scans', () => {
  it('status + payment method + one month, page 1', async () => {
    const { page, plans } = await plansOf({ ...monthOfWave(), page: 1 });
    expect(page.items).toHaveLength(20);
    expectIndexScansOnly(plans);
  });

  it(`status + payment method + one month, deep page (${DEEP_PAGE})`, async () => {
    const { page, plans } = await plansOf({ ...monthOfWave(), page: DEEP_PAGE });
    expect(page.items).toHaveLength(20);
    expectIndexScansOnly(plans);
  });

  // Without a date range the count must visit every paid-with-wave row (a third of the table):
  // without the index on (organizationId, status, selectedPaymentMethod, isDeleted, createdAt) that
  // was a Seq Scan on "Transaction" (about 600 ms at 1,000,000 rows); with it, an Index Only Scan
  // (about 60 ms), and the month-window count above drops from about 70 to 9 ms.
  it('status + payment method, no dates, page 1', async () => {
    const { page, plans } = await plansOf({ ...allWave(), page: 1 });
    expect(page.items).toHaveLength(20);
    expectIndexScansOnly(plans);
  });

  it(`status + payment method, no dates, deep page (${DEEP_PAGE})`, async () => {
    const { page, plans } = await plansOf({ ...allWave(), page: DEEP_PAGE });
    expect(page.items).toHaveLength(20);
    expectIndexScansOnly(plans);
  });
});
