/**
 * Opens the gateway's database: PostgreSQL when a URL is given, else embedded PGlite in a data
 * folder (so a newcomer needs nothing but Node). Both are reached through Prisma driver adapters.
 */
import { mkdirSync } from 'node:fs';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient } from '../../generated/prisma/client.js';

export interface Database {
  prisma: PrismaClient;
  /** A connection for Prisma's schema engine (migrations, drift checks). */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: 'postgres' | 'pglite';
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; unset = embedded PGlite. */
  url?: string;
  /** PGlite data folder; 'memory://' keeps it in memory (tests). */
  dataDir?: string;
  /** Upper bound of PostgreSQL connections from this process: 2 cores gain nothing from more. */
  poolMax?: number;
}

/** Bounds why: a hung database must fail requests, not pile them up. */
const CONNECT_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 15_000;
const PING_TIMEOUT_MS = 2_000;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolMax ?? 10) : openPGlite(options.dataDir ?? './.gateway-data');
}

async function openPostgres(url: string, poolMax: number): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    adapterFactory: migrationAdapterFactory(url),
    kind: 'postgres',
    ping: () => withTimeout(pool.query('SELECT 1').then(() => true), PING_TIMEOUT_MS),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * The schema engine reads PostgreSQL's catalogue, whose `"char"` columns (OID 18) @prisma/adapter-pg
 * 7.10 cannot map ("Column type 'char' could not be deserialized"). Their values arrive as text,
 * so this connection reports them as text. Used only by the schema engine, on its own small pool
 * (its shadow databases inherit the Client class from this config).
 */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

function reportCharAsText(result: pg.QueryResult | undefined): void {
  for (const field of result?.fields ?? []) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
}

class CatalogueFriendlyClient extends pg.Client {
  // pg.Pool#query calls this with a callback; other callers use the promise form. Cover both.
  override query(...args: unknown[]): never {
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      args[args.length - 1] = (error: Error | null, result: pg.QueryResult) => {
        reportCharAsText(result);
        callback(error, result);
      };
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    return (result instanceof Promise ? result.then((value: pg.QueryResult) => (reportCharAsText(value), value)) : result) as never;
  }
}

function migrationAdapterFactory(url: string): SqlMigrationAwareDriverAdapterFactory {
  return new PrismaPg({ connectionString: url, max: 2, Client: CatalogueFriendlyClient, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
}

async function openPGlite(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const adapterFactory = new PrismaPGlite(client);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  return {
    prisma,
    adapterFactory,
    kind: 'pglite',
    ping: () => withTimeout(client.query('SELECT 1').then(() => true), PING_TIMEOUT_MS),
    close: async () => {
      await prisma.$disconnect();
      await client.close();
    },
  };
}

async function withTimeout(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([check.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
