/**
 * Reading a large result (an export) in batches, with constant memory, without the domain
 * importing a driver: the infrastructure that opened `db` registers how it streams a statement
 * (PostgreSQL: a server-side cursor on one pooled connection, src/infra/prisma/database.ts). A
 * `db` without one (embedded PGlite) gets null, and its store pages through the rows itself
 * (keyset pagination), which costs a statement per batch but holds nothing between batches.
 *
 * Rows are typed as Prisma's raw queries type them (statements.ts): bigint as BigInt, timestamps
 * as Date, enums cast to text by the SQL.
 */
import type { Db } from './ports.js';

export interface StreamedQuery {
  /** SQL with $1, $2... parameters (bound, never spliced). */
  text: string;
  values: unknown[];
}

/**
 * Yields the rows of `query` in batches of at most `batchRows`, fetching the next batch only when
 * the consumer asks for it (backpressure). Ending the iteration early (`return()`, as a consumer
 * that stops does) must give the connection back at once.
 */
export type RowBatchStreamer = <Row>(query: StreamedQuery, batchRows: number) => AsyncGenerator<Row[], void, undefined>;

const streamers = new WeakMap<object, RowBatchStreamer>();

/** Called by the infrastructure that opened `db` (PostgreSQL, and its replica when there is one). */
export function registerRowStreams(db: object, streamer: RowBatchStreamer): void {
  streamers.set(db, streamer);
}

/** The rows of `query` in batches through `db`'s streamer, or null when `db` has none (page through instead). */
export function streamRowBatches<Row>(db: Pick<Db, '$queryRawUnsafe'>, query: StreamedQuery, batchRows: number): AsyncGenerator<Row[], void, undefined> | null {
  const streamer = streamers.get(db);
  return streamer ? streamer<Row>(query, batchRows) : null;
}
