/**
 * The bench's seed (bench/seedSql.ts: INSERT ... SELECT FROM generate_series, every value derived
 * from the row number) for tests that need a big "Transaction" table: `rows` transactions in one
 * organisation, inserted in chunks by `workers` sessions at once, with products only for the
 * transactions numbered in `productRows` (the ones a test reads), then VACUUM ANALYZE.
 *
 * The tables' secondary indexes are dropped for the load and built again after it from their own
 * definitions (pg_indexes), as a bulk load is done: one sorted build per index instead of a
 * million scattered inserts into each. Measured at 1,000,000 rows on the dev machine: 10.0 s and
 * 16 CPU-seconds against 12.1 s and 20 (constraint indexes, the primary keys, stay).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { INSERT_PRODUCTS_SQL, INSERT_TRANSACTIONS_SQL, prepareSeedSession } from '../../bench/seedSql.js';
import { TEST_POSTGRES_URL, databaseUrl } from './env.js';
import { cloneTemplateDatabase } from './gateway.js';

export interface SeedTransactionsOptions {
  url: string;
  organizationId: string;
  rows: number;
  /** Newest created_at; rows spread over `spanDays` days before it, as the bench's. */
  end: Date;
  spanDays: number;
  /** Inclusive range of row numbers (1..rows) that get their products. */
  productRows: [number, number];
  chunk?: number;
  workers?: number;
}

export interface SeedTiming {
  insertMs: number;
  vacuumMs: number;
  products: number;
}

/**
 * Row numbers whose created_at falls in [from, to], give or take `margin` rows: the inverse of the
 * seed's date formula (created = end - span * (1 - (i / n) ^ 0.7) days, minus up to 10 minutes).
 */
export function rowsCreatedBetween(
  options: Pick<SeedTransactionsOptions, 'rows' | 'end' | 'spanDays'>,
  from: Date,
  to: Date,
  margin = 1_000,
): [number, number] {
  const rowAt = (date: Date) => options.rows * Math.max(0, 1 - (options.end.getTime() - date.getTime()) / (options.spanDays * 86_400_000)) ** (1 / 0.7);
  return [Math.max(1, Math.floor(rowAt(from)) - margin), Math.min(options.rows, Math.ceil(rowAt(to)) + margin)];
}

async function withSession<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The seeded tables' indexes that back no constraint: the ones a bulk load may drop and rebuild. */
const SECONDARY_INDEXES_SQL = `
SELECT i.indexname, i.indexdef FROM pg_indexes i
JOIN pg_class c ON c.relname = i.indexname AND c.relkind = 'i'
WHERE i.schemaname = current_schema() AND i.tablename IN ('Transaction', 'TransactionProduct')
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)`;

/**
 * Runs `work` on every item, `sessions` database sessions at once, each readied by `prepare` and
 * taking the next item left when it is done with one.
 */
async function inSessions<T>(
  url: string,
  items: T[],
  sessions: number,
  prepare: (client: pg.Client) => Promise<unknown>,
  work: (client: pg.Client, item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const session = () =>
    withSession(url, async (client) => {
      await prepare(client);
      for (let item = items[next++]; item !== undefined; item = items[next++]) await work(client, item);
    });
  await Promise.all(Array.from({ length: sessions }, session));
}

/** Seeds (the organisation must exist) and analyses; returns how long each part took. */
export async function seedTransactions(options: SeedTransactionsOptions): Promise<SeedTiming> {
  const { url, organizationId, rows, end, spanDays, productRows, chunk = 50_000, workers = 2 } = options;
  const chunks: [number, number][] = [];
  for (let first = 1; first <= rows; first += chunk) chunks.push([first, Math.min(first + chunk - 1, rows)]);
  const started = performance.now();
  const secondary = await withSession(url, async (client) => {
    const indexes = (await client.query<{ indexname: string; indexdef: string }>(SECONDARY_INDEXES_SQL)).rows;
    for (const index of indexes) await client.query(`DROP INDEX "${index.indexname}"`);
    return indexes.map((index) => index.indexdef);
  });
  await inSessions(url, chunks, workers, prepareSeedSession, (client, [first, last]) =>
    client.query(INSERT_TRANSACTIONS_SQL, [organizationId, first, last, rows, end.toISOString(), spanDays]),
  );
  const products = await withSession(url, async (client) => {
    await prepareSeedSession(client);
    return (await client.query(INSERT_PRODUCTS_SQL, productRows)).rowCount ?? 0;
  });
  // Each build sorts in memory (maintenance_work_mem), the builds `workers` at a time.
  await inSessions(
    url,
    secondary,
    workers,
    (client) => client.query(`SET maintenance_work_mem = '256MB'`),
    (client, definition) => client.query(definition),
  );
  const insertMs = performance.now() - started;
  await withSession(url, (client) => client.query(`VACUUM (ANALYZE) "Transaction", "TransactionProduct"`));
  return { insertMs, vacuumMs: performance.now() - started - insertMs, products };
}

/** What a seeded database holds, written in its comment (COMMENT ON DATABASE) when it is made. */
interface SeedRecord {
  organizationId: string;
  rows: number;
  spanDays: number;
  /** The newest created_at, ISO. */
  end: string;
  productRows: [number, number];
}

export interface SeededDatabase {
  url: string;
  organizationId: string;
  end: Date;
  /** How long the seed took, when this call made it; undefined when it was found made. */
  timing?: SeedTiming;
}

const readRecord = async (admin: pg.Client, name: string): Promise<SeedRecord | undefined> => {
  const about = (
    await admin.query<{ about: string | null }>(`SELECT shobj_description(oid, 'pg_database') AS about FROM pg_database WHERE datname = $1`, [name])
  ).rows[0]?.about;
  try {
    return about ? (JSON.parse(about) as SeedRecord) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The database `name` (test/support/globalSetup.ts names it after the migrations and the seed's
 * code): `rows` transactions of one organisation, seeded by seedTransactions above and analysed.
 * Made from the migrated template the first time; found made when the run's cluster is a copy of
 * an earlier run's that made it (globalSetup keeps one), or on a server TEST_DATABASE_URL names.
 * A database whose record differs from the shape asked for is made again. Callers only read it.
 */
export async function seededDatabase(options: {
  name: string;
  rows: number;
  spanDays: number;
  /** The transactions that get their products, given the newest created_at. */
  productRowsFor: (end: Date) => [number, number];
}): Promise<SeededDatabase> {
  const { name, rows, spanDays, productRowsFor } = options;
  return withSession(TEST_POSTGRES_URL, async (admin) => {
    const matching = (record: SeedRecord | undefined): SeededDatabase | undefined => {
      if (!record || record.rows !== rows || record.spanDays !== spanDays) return undefined;
      const end = new Date(record.end);
      return productRowsFor(end).join() === record.productRows.join() ? { url: databaseUrl(name), organizationId: record.organizationId, end } : undefined;
    };
    const found = await readRecord(admin, name);
    const made = matching(found);
    if (made) return made;
    const clone = await cloneTemplateDatabase();
    const organizationId = randomUUID();
    const end = new Date(Math.floor(Date.now() / 1000) * 1000);
    const productRows = productRowsFor(end);
    await withSession(clone.url, (client) =>
      client.query(`INSERT INTO "Organization" (id, name, verified, "businessSector", "updatedAt") VALUES ($1, 'Big shop', true, 'retail', now())`, [
        organizationId,
      ]),
    );
    const timing = await seedTransactions({ url: clone.url, organizationId, rows, end, spanDays, productRows });
    const record: SeedRecord = { organizationId, rows, spanDays, end: end.toISOString(), productRows };
    await admin.query(`COMMENT ON DATABASE "${clone.name}" IS ${admin.escapeLiteral(JSON.stringify(record))}`);
    // One made for another shape goes; one that is not there may be made meanwhile by a run
    // sharing this server (TEST_DATABASE_URL): then that one is used, and this copy dropped.
    if (found) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    try {
      await admin.query(`ALTER DATABASE "${clone.name}" RENAME TO "${name}"`);
    } catch (error) {
      await admin.query(`DROP DATABASE IF EXISTS "${clone.name}" WITH (FORCE)`);
      const theirs = matching(await readRecord(admin, name));
      if (!theirs) throw error;
      return theirs;
    }
    return { url: databaseUrl(name), organizationId, end, timing };
  });
}
