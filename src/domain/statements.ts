/**
 * Hot statements, run as named (prepared) statements straight on the database driver when the
 * infrastructure registered one for `db` (PostgreSQL), else through Prisma with the same text
 * (embedded PGlite, or a transaction's client: a statement inside a transaction stays in it).
 *
 * Why: under the bench's load Prisma's client (its request pipeline and result conversion) cost
 * about as much CPU per request as the rest of a hot request. Going direct took get from 0.47 to
 * 0.37 ms of gateway CPU per request (the floor: 0.22). Used for the hottest paths only (the
 * transaction read, a payment's claim and settlement); everything else goes through Prisma.
 *
 * Rows are typed as Prisma's raw queries type them (bigint as BigInt, timestamps as Date, json
 * parsed); enums must be cast to text by the SQL. Pass bigint values as strings (`::bigint` in the
 * SQL): both drivers then read them the same way.
 */
import { createHash } from 'node:crypto';
import type { Db } from './ports.js';

/** A named SQL statement ($1, $2... parameters): PostgreSQL parses and plans it once per connection. */
export interface PreparedStatement {
  name: string;
  text: string;
}

export type DirectStatementRunner = <Row>(statement: PreparedStatement, values: unknown[]) => Promise<Row[]>;

const directRunners = new WeakMap<object, DirectStatementRunner>();

/** Called by the infrastructure that opened `db` (PostgreSQL). */
export function registerDirectStatements(db: object, run: DirectStatementRunner): void {
  directRunners.set(db, run);
}

export async function runStatement<Row>(db: Pick<Db, '$queryRawUnsafe'>, statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
  const direct = directRunners.get(db);
  return direct ? direct<Row>(statement, values) : db.$queryRawUnsafe<Row[]>(statement.text, ...values);
}

/**
 * A statement whose text is built from the request (a list's filters): named after its text, so
 * each distinct text is prepared once per connection and never confused with another.
 */
export function namedStatement(prefix: string, query: { text: string }): PreparedStatement {
  return { name: `${prefix}_${createHash('sha1').update(query.text).digest('hex').slice(0, 16)}`, text: query.text };
}

/**
 * A unique constraint refused the statement, whichever way it ran: pg's SQLSTATE 23505, or
 * Prisma's wrapping of it (P2002 for its model calls, P2010 with the SQLSTATE for raw ones).
 */
export function isUniqueViolation(error: unknown): boolean {
  const failure = error as { code?: unknown; meta?: { code?: unknown } } | null;
  return failure?.code === '23505' || failure?.code === 'P2002' || (failure?.code === 'P2010' && failure.meta?.code === '23505');
}
