/**
 * Preloaded (`node --import`) into a gateway process by the payout crash test: the process kills
 * itself with SIGKILL when it opens the database transaction that follows the COMMIT of one that
 * wrote an Idempotency-Key row. For a two-phase operation (a payout) that is phase 2 opening:
 * phase 1 (intent, debit, key `in_progress`) is durable AND the provider has been called, but its
 * answer is not recorded. The worst moment to crash for "never send twice". Nothing in the
 * gateway knows about it: it wraps pg's Client#query, which Prisma's adapter uses.
 */
import pg from 'pg';

const wroteKey = new WeakSet<object>();
let keyCommitted = false;
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;

pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
  const config = args[0];
  const text = (typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '')).trim().toUpperCase();
  if (keyCommitted && text === 'BEGIN') process.kill(process.pid, 'SIGKILL');
  const result = original.apply(this, args);
  if (/INSERT INTO "(PUBLIC"\.")?IDEMPOTENCYKEY"/.test(text)) wroteKey.add(this);
  if (text === 'COMMIT' && wroteKey.has(this) && result instanceof Promise) {
    return result.then((value) => {
      keyCommitted = true;
      return value;
    });
  }
  return result;
} as typeof pg.Client.prototype.query;
