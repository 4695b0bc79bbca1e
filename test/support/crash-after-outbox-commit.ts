/**
 * Preloaded (`node --import`) into a gateway process by the webhook crash test: the process kills
 * itself with SIGKILL right after PostgreSQL confirms the commit of the first change that wrote a
 * webhook delivery (the outbox row), before the dispatcher can send it: the COMMIT of a database
 * transaction that wrote one, or a single statement that wrote one outside a transaction (a
 * payment's settlement). Nothing in the gateway knows about it: it wraps pg's Client#query, which
 * Prisma's adapter and the direct statements use.
 *
 * It also holds back this process's webhook claims (never sent to PostgreSQL): otherwise the
 * dispatcher's poll could claim the new row in the instant between PostgreSQL committing it and
 * this process reading the COMMIT's answer. That crash is handled too (the claim's lease runs out
 * and the sweep sends it), but later than the test waits, and the test is about a row never tried.
 */
import pg from 'pg';

const wroteDelivery = new WeakSet<object>();
const inTransaction = new WeakSet<object>();
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: killed');
};
const CLAIMS_A_DELIVERY = /UPDATE "WebhookDelivery" d SET "attemptCount"/;
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;

pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
  const config = args[0];
  const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
  const command = text.trim().toUpperCase();
  if (CLAIMS_A_DELIVERY.test(text)) return new Promise(() => undefined);
  if (command.startsWith('BEGIN')) inTransaction.add(this);
  if (command === 'COMMIT' || command === 'ROLLBACK') inTransaction.delete(this);
  const writesDelivery = /INSERT INTO "(public"\.")?WebhookDelivery"/.test(text);
  if (writesDelivery && inTransaction.has(this)) wroteDelivery.add(this);
  // Committed once PostgreSQL answers: a single statement outside a transaction, or the COMMIT.
  const killsOnAnswer = (writesDelivery && !inTransaction.has(this)) || (command === 'COMMIT' && wroteDelivery.has(this));
  if (!killsOnAnswer) return original.apply(this, args);
  // pg.Pool#query passes a callback (and gets no promise); Prisma's adapter awaits the promise.
  const callback = args.at(-1);
  if (typeof callback === 'function') {
    return original.apply(this, [...args.slice(0, -1), (error: unknown, value: unknown) => (error ? callback(error, value) : die())]);
  }
  return (original.apply(this, args) as Promise<unknown>).then(die);
} as typeof pg.Client.prototype.query;
