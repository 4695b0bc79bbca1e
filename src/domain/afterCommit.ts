/**
 * Work that must follow a commit, never precede it (telling live subscribers of a status change:
 * they must not see a change that rolls back). A statement run on `ctx.db` has committed when it
 * returns; one run inside a database transaction commits with it, so its follow-up waits for the
 * transaction, and is dropped when the transaction rolls back (or is retried: a retry runs again
 * and registers its own).
 *
 * Transactions whose statements may need a follow-up are opened with `inTransaction` (the
 * idempotency seam's, releaseEscrow's). A follow-up registered in a transaction opened otherwise
 * is dropped: never run early, at worst not run (what follows a commit here is best effort).
 */
import type { DbTransaction, GatewayContext } from './context.js';
import type { Db } from './ports.js';

const followUps = new WeakMap<object, (() => void)[]>();

/** `ctx.db.$transaction(work)`, then what `work` registered with afterCommit, once committed. */
export async function inTransaction<T>(ctx: GatewayContext, work: (tx: DbTransaction) => Promise<T>): Promise<T> {
  const registered: (() => void)[] = [];
  const result = await ctx.db.$transaction(async (tx) => {
    followUps.set(tx, registered);
    return work(tx);
  });
  for (const followUp of registered) followUp();
  return result;
}

/** Runs `followUp` once what `db` wrote is committed: now on `ctx.db`, after the transaction inside one. */
export function afterCommit(ctx: GatewayContext, db: Db | DbTransaction, followUp: () => void): void {
  if (db === ctx.db) {
    followUp();
    return;
  }
  followUps.get(db)?.push(followUp);
}

/**
 * `work` inside a database transaction: `db` itself when it already is one (its caller commits),
 * else a new one (inTransaction), so that what `work` writes commits together.
 */
export function withinTransaction<T>(ctx: GatewayContext, db: Db | DbTransaction, work: (tx: DbTransaction) => Promise<T>): Promise<T> {
  return db === ctx.db ? inTransaction(ctx, work) : work(db as DbTransaction);
}
