/**
 * Preloaded (`node --import`) into a gateway process by the crash test: the process kills itself
 * with SIGKILL right after PostgreSQL confirms the COMMIT of the first database transaction that
 * wrote an Idempotency-Key row, i.e. after the change is durable and before any answer is sent.
 * That is the worst moment to crash, and the one the old "claim, then complete" design lost.
 * Nothing in the gateway knows about it: it wraps pg's Client#query, which Prisma's adapter uses.
 */
import pg from 'pg';

const wroteKey = new WeakSet<object>();
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;

pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
  const config = args[0];
  const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
  const result = original.apply(this, args);
  if (/INSERT INTO "(public"\.")?IdempotencyKey"/.test(text)) wroteKey.add(this);
  if (text.trim().toUpperCase() === 'COMMIT' && wroteKey.has(this) && result instanceof Promise) {
    return result.then((value) => {
      process.kill(process.pid, 'SIGKILL');
      return value;
    });
  }
  return result;
} as typeof pg.Client.prototype.query;
