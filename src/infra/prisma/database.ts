/**
 * Opens the gateway's database: PostgreSQL when a URL is given, else embedded PGlite in a data
 * folder (so a newcomer needs nothing but Node). Both are reached through Prisma driver adapters.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient } from '../../generated/prisma/client.js';
import { registerDirectStatements, type DirectStatementRunner } from '../../domain/statements.js';
import { registerRowStreams, type RowBatchStreamer, type StreamedQuery } from '../../domain/rowStreams.js';
import { acquireDataFolderLock } from '../dataFolderLock.js';
import { postgresStartupError } from '../startupErrors.js';
import { createPGlite, seedFromTemplate } from './pglite.js';

/**
 * Interactive transactions (every money movement) wait up to 10 s for a connection and run at most
 * 20 s. Prisma's defaults (2 s / 5 s) turned a busy moment into a 500 for a valid request: PGlite
 * has one connection, and a 2-core machine under a load test queues work for seconds. Still bounded,
 * so a stuck transaction cannot hold row locks forever (statement_timeout bounds each statement).
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 } as const;

export interface Database {
  prisma: PrismaClient;
  /** A connection for Prisma's schema engine (migrations, drift checks). */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: 'postgres' | 'pglite';
  /** PGlite: this start made the data folder, as a copy of the template (pglite.ts). */
  fromTemplate?: boolean;
  /** Connection counts of the pool, for /metrics (PostgreSQL only: PGlite has no pool). */
  poolStats?: () => { total: number; idle: number; waiting: number };
  /** The PostgreSQL pool itself, for the infrastructure only: a read replica falls back on it (replica.ts). */
  pool?: pg.Pool;
  /** Plain SQL straight to the driver, without Prisma: start-up checks that must not wait for Prisma's engine. */
  query<Row>(sql: string): Promise<Row[]>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; unset = embedded PGlite. */
  url?: string;
  /** PGlite data folder; 'memory://' keeps it in memory (tests). */
  dataDir?: string;
  /**
   * Upper bound of PostgreSQL connections from this process. Default 10 (pg's own default): not
   * yet chosen by measurement; the benchmark is where to choose it (each connection is a server
   * process, and on 2 cores more connections mostly queue inside PostgreSQL instead of here).
   */
  poolMax?: number;
  /** Told when the data folder's lock, left by a process that is gone, was taken over. */
  onLockTakenOver?: (description: string) => void;
}

/** Bounds why: a hung database must fail requests, not pile them up. */
export const CONNECT_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 15_000;
export const PING_TIMEOUT_MS = 2_000;

/** The settings of every pool of the gateway's PostgreSQL servers (the primary's, a replica's). */
export function postgresPoolConfig(url: string, poolMax: number): pg.PoolConfig {
  return {
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolMax ?? 10) : openPGlite(options.dataDir ?? './.gateway-data', options.onLockTakenOver);
}

/**
 * A session the server ends (pg_terminate_backend, a restart, a failover) makes its client emit
 * 'error'. The pool listens on its idle clients only: a client checked out (by a transaction
 * between statements, a stream, a lock) had no listener, and an unhandled 'error' event ended the
 * whole process. Every client of `pool` gets one for its life; the statement that was running on it
 * fails on its own, and the pool discards the client when it is released (it is no longer
 * queryable), so the next request gets a new connection.
 */
export function surviveEndedSessions(pool: pg.Pool): pg.Pool {
  // A pool's clients are made by pool.connect(): 'connect' fires for each before its first use.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

async function openPostgres(url: string, poolMax: number): Promise<Database> {
  const pool = surviveEndedSessions(new pg.Pool(postgresPoolConfig(url, poolMax)));
  await checkConnection(pool, url);
  const adapter = new PrismaPg(pool, { statementNameGenerator: preparedStatementNames() });
  const prisma = new PrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS });
  registerDirectStatements(prisma, directStatementRunner(pool));
  registerRowStreams(prisma, cursorStreamer(pool));
  const migrations = migrationAdapterFactory(url);
  return {
    prisma,
    adapterFactory: migrations.factory,
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    pool,
    query: async <Row>(sql: string) => (await pool.query(sql)).rows as Row[],
    ping: () =>
      withTimeout(
        pool.query('SELECT 1').then(() => true),
        PING_TIMEOUT_MS,
      ),
    close: async () => {
      await prisma.$disconnect();
      await migrations.close();
      await pool.end();
    },
  };
}

/**
 * Names Prisma's statements so that pg prepares each once per connection: PostgreSQL then parses
 * and plans a hot statement once, not on every request (the bench's CPU profiles showed that cost;
 * its floors are prepared statements too). Names are per SQL text. Bounded: statements whose text
 * varies with the data (an IN list's length) must not fill every connection with prepared
 * statements, so past MAX_PREPARED_STATEMENTS distinct texts, new ones run unnamed as before.
 * Statements without parameters (BEGIN, COMMIT) stay on the one-message simple protocol.
 */
const MAX_PREPARED_STATEMENTS = 500;

export function preparedStatementNames(max = MAX_PREPARED_STATEMENTS, prefix = 'gw'): (query: { sql: string; args: unknown[] }) => string {
  const names = new Map<string, string>();
  return ({ sql, args }) => {
    let name = names.get(sql);
    if (name === undefined && args.length > 0 && names.size < max) {
      name = `${prefix}_${names.size}`;
      names.set(sql, name);
    }
    // The adapter hands `name` to pg as is, and pg runs a query without a name unnamed (the type says string only).
    return name as string;
  };
}

/**
 * The hot read's statements straight through pg (see registerDirectStatements): one round trip,
 * no Prisma request pipeline. Rows are typed as Prisma's raw queries type them, where pg's
 * defaults differ: bigint becomes BigInt (pg gives a string), and a `timestamp` without a zone, if a
 * column ever is one, a Date read as UTC as Prisma does (pg reads it in the process's time zone).
 * timestamptz, json, text[], booleans and integers keep pg's parsers, which agree with Prisma's.
 */
const PG_INT8_OID = 20;
const PG_TIMESTAMP_OID = 1114;
const utcTimestamp = (text: string): Date => new Date(`${text.replace(' ', 'T')}Z`);
const bigIntOf = (text: string): bigint => BigInt(text);
const PRISMA_RAW_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === PG_INT8_OID) return bigIntOf;
    if (oid === PG_TIMESTAMP_OID) return utcTimestamp;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function directStatementRunner(pool: pg.Pool): DirectStatementRunner {
  return async <Row>(statement: { name: string; text: string }, values: unknown[]) =>
    (await pool.query({ name: statement.name, text: statement.text, values, types: PRISMA_RAW_TYPES })).rows as Row[];
}

/**
 * How long a streamed read may wait for its consumer between two batches (a client that stopped
 * reading without closing): past it PostgreSQL ends the session, which frees the connection and
 * the snapshot the read holds (a long-open snapshot keeps VACUUM from cleaning up behind it).
 */
const STREAM_IDLE_TIMEOUT_MS = 60_000;

/**
 * Streams a statement through a server-side cursor (DECLARE ... CURSOR, then FETCH n at a time) on
 * one connection of the pool, inside a read-only transaction: PostgreSQL computes rows as they are
 * fetched, and a batch is fetched only when the consumer asks for the next one, so memory holds one
 * batch whatever the result's size. PostgreSQL's own cursor rather than a dependency (pg-cursor,
 * pg-query-stream) for the same protocol work. statement_timeout (the pool's) bounds each FETCH,
 * not the whole read. Ended early (the consumer stopped: a client gone), the transaction is rolled
 * back and the connection returned, or destroyed if it cannot even do that.
 */
export function cursorStreamer(pool: pg.Pool): RowBatchStreamer {
  return async function* streamBatches<Row>(query: StreamedQuery, batchRows: number) {
    const client = await pool.connect();
    let broken: Error | undefined;
    let finished = false;
    // The session may end while no query runs (the idle timeout above, a server restart): the
    // client then emits 'error', which must not be unhandled (it would end the process).
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`SET LOCAL idle_in_transaction_session_timeout = ${STREAM_IDLE_TIMEOUT_MS}`);
      await client.query({ text: `DECLARE gw_stream NO SCROLL CURSOR FOR ${query.text}`, values: query.values });
      const fetch = { text: `FETCH ${Math.max(1, Math.floor(batchRows))} FROM gw_stream`, types: PRISMA_RAW_TYPES };
      const fetchNext = () => {
        const fetched = client.query(fetch);
        // Awaited below; this keeps a failure while the consumer is away from being unhandled.
        fetched.catch(() => undefined);
        return fetched;
      };
      // One batch read ahead: PostgreSQL computes the next batch while the consumer writes this one
      // (two batches in memory at most, instead of one round trip's wait per batch).
      let next = fetchNext();
      for (;;) {
        const { rows } = await next;
        const more = rows.length === batchRows;
        if (more) next = fetchNext();
        if (rows.length > 0) yield rows as Row[];
        if (!more) break;
      }
      await client.query('COMMIT');
      finished = true;
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      if (!finished && !broken) {
        // Stopped early by the consumer: the connection is healthy, only its transaction is open
        // (and maybe a batch read ahead: pg runs the ROLLBACK after it).
        await client.query('ROLLBACK').catch((error: Error) => (broken = error));
      }
      client.off('error', onError);
      // A failed connection (or one whose transaction failed) is destroyed rather than pooled again.
      client.release(broken ?? undefined);
    }
  };
}

/**
 * Connects once before anything else, so that a wrong DATABASE_URL fails the start within
 * CONNECT_TIMEOUT_MS with one line naming the server or database, instead of surfacing later
 * from inside the schema engine's WASM.
 */
async function checkConnection(pool: pg.Pool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw postgresStartupError(error, url, CONNECT_TIMEOUT_MS);
  }
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
  // The schema engine's pools (and their shadow databases') are made by the adapter, which listens
  // on idle clients only: a session ended while a migration statement runs must fail that
  // statement, not the process (see surviveEndedSessions).
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }

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
    return (
      result instanceof Promise
        ? result.then((value: pg.QueryResult) => {
            reportCharAsText(value);
            return value;
          })
        : result
    ) as never;
  }
}

/** The schema engine's factory, and a way to close what it opened (it does not on its own). */
function migrationAdapterFactory(url: string): { factory: SqlMigrationAwareDriverAdapterFactory; close: () => Promise<void> } {
  // Discrete fields, not connectionString: the adapter makes its shadow database's pool from this
  // config plus `database`, and pg lets a connectionString override `database`, which would point
  // the "shadow" at the real database.
  const { database, host, port, user, password, ssl } = parseConnectionString(url);
  const config: pg.PoolConfig = {
    database: database ?? undefined,
    host: host ?? undefined,
    port: port ? Number(port) : undefined,
    user,
    password,
    ssl: ssl as pg.PoolConfig['ssl'],
    max: 2,
    Client: CatalogueFriendlyClient,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  };
  const factory = new PrismaPg(config);
  // The adapter drops its shadow database before closing the pool that uses it, which
  // PostgreSQL refuses; this one closes the pool first, then drops.
  factory.connectToShadowDb = async () => {
    const name = `prisma_migrate_shadow_db_${randomUUID()}`;
    const admin = new pg.Client({ ...config, Client: undefined } as pg.ClientConfig);
    admin.on('error', () => undefined);
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const adapter = await new PrismaPg({ ...config, database: name }).connect();
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    };
    return adapter;
  };
  const opened: { dispose(): Promise<void> }[] = [];
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    opened.push(adapter);
    return adapter;
  };
  return { factory, close: async () => void (await Promise.allSettled(opened.splice(0).map((adapter) => adapter.dispose()))) };
}

async function openPGlite(dataDir: string, onLockTakenOver?: (description: string) => void): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  // PGlite is single-process: the lock is taken BEFORE opening it, or a second process would
  // already have read (and could write) the files the first one owns. It creates the folder.
  const lock = inMemory ? undefined : await acquireDataFolderLock(dataDir, { onTakeOver: onLockTakenOver });
  let client: PGlite;
  let fromTemplate = false;
  try {
    // Under the lock: no other gateway can be opening the folder while it is filled.
    fromTemplate = !inMemory && (await seedFromTemplate(dataDir));
    client = await createPGlite(dataDir);
  } catch (error) {
    lock?.release();
    throw error;
  }
  const closable = closableClient(client);
  // Imported here, not at the top: it loads PGlite's modules, which a gateway on PostgreSQL never needs.
  const { PrismaPGlite } = await import('pglite-prisma-adapter');
  const adapterFactory = new PrismaPGlite(closable.client);
  const prisma = new PrismaClient({ adapter: adapterFactory, transactionOptions: TRANSACTION_OPTIONS });
  return {
    prisma,
    adapterFactory,
    kind: 'pglite',
    fromTemplate,
    query: async <Row>(sql: string) => (await closable.client.query<Row>(sql)).rows,
    ping: () =>
      withTimeout(
        closable.client.query('SELECT 1').then(() => true),
        PING_TIMEOUT_MS,
      ),
    close: async () => {
      try {
        await prisma.$disconnect();
        await closable.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** PGlite's methods that run SQL: refused once closing began. */
const PGLITE_SQL_METHODS = new Set<PropertyKey>(['query', 'sql', 'exec', 'transaction', 'describeQuery']);

/**
 * PGlite's close() takes none of its locks: a query still queued behind another (a background
 * job's, a request's) then runs after it, and spins for ever inside PostgreSQL's WASM main loop,
 * the event loop with it. Seen: a gateway stopped by SIGTERM right after its first answer, while
 * its first queries were in flight, never exited (3 stops in 4). So everything of the gateway
 * reaches PGlite through `client`, which refuses SQL once closing began, and close() first waits
 * for what was already queued: PGlite's transaction lock serves in arrival order.
 */
/**
 * pglite-prisma-adapter 0.7.2 starts a transaction as `client.transaction(body).catch(reject)`
 * and its commit() awaits that caught promise, so a COMMIT PostgreSQL refused (a deferred
 * constraint: the ledger's balanced-posting trigger) answered as if it had committed. The promise
 * handed to it keeps the rejection: its `.catch` gives the handler the error (startTransaction's
 * own refusal still rejects) and returns the original, whose rejection commit() then throws.
 */
function keepingCommitErrors(transaction: (...args: unknown[]) => Promise<unknown>) {
  return (...args: unknown[]): Promise<unknown> => {
    const outcome = transaction(...args);
    return Object.assign(outcome, {
      catch: (handler: (error: unknown) => unknown) => {
        outcome.then(undefined, handler);
        return outcome;
      },
    });
  };
}

function closableClient(pglite: PGlite): { client: PGlite; close(): Promise<void> } {
  let closing = false;
  const refuse = () => Promise.reject(new Error('the embedded database is closing'));
  const client = new Proxy(pglite, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (closing && PGLITE_SQL_METHODS.has(property)) return refuse;
      // PGlite keeps its state in private fields: its methods must run on the PGlite itself.
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      return property === 'transaction' ? keepingCommitErrors(bound as (...args: unknown[]) => Promise<unknown>) : bound;
    },
  });
  return {
    client,
    close: async () => {
      closing = true;
      await pglite.transaction(async () => undefined).catch(() => undefined);
      await pglite.close();
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
