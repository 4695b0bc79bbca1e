/**
 * Preloaded (`node --import`) into a gateway process by the webhook crash test: the process kills
 * itself with SIGKILL right after PostgreSQL confirms the COMMIT of the first database transaction
 * that wrote a webhook delivery (the outbox row), before the dispatcher can send it. Nothing in
 * the gateway knows about it: it wraps pg's Client#query, which Prisma's adapter uses.
 */
import pg from 'pg';

const wroteDelivery = new WeakSet<object>();
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;

pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
  const config = args[0];
  const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
  const result = original.apply(this, args);
  if (/INSERT INTO "(public"\.")?WebhookDelivery"/.test(text)) wroteDelivery.add(this);
  if (text.trim().toUpperCase() === 'COMMIT' && wroteDelivery.has(this) && result instanceof Promise) {
    return result.then((value) => {
      process.kill(process.pid, 'SIGKILL');
      return value;
    });
  }
  return result;
} as typeof pg.Client.prototype.query;
