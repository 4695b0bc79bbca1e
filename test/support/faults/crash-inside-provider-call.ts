/**
 * Preloaded (`node --import`) into a gateway process by the fault suite: the process kills itself
 * (SIGKILL) INSIDE a provider call, at its worst moment: the sandbox provider has recorded the call
 * of kind FAULT_CRASH_KIND (`collect` | `refund` | `payout`) in its books, i.e. the wallet moved
 * the money, and the gateway dies before it hears the answer. Whatever recovers it must ask the
 * provider, never send again, and settle it exactly once.
 *
 * With FAULT_CRASH_ARMED_BY (a file's path) it lets calls through until that file exists, then
 * dies inside the next one: the test chooses the moment (a batch's item once the batch is under way).
 * With FAULT_CRASH_HOLD_WHILE (a file's path), a call of our kind waits before the provider records
 * it for as long as that file exists: the process stays alive and renews its leases, but sends
 * nothing, so a test can start another instance beside it however long that takes.
 *
 * Nothing in the gateway knows about it: it wraps the database driver the sandbox writes its books
 * through (pg's Client#query on PostgreSQL, PGlite#query when embedded).
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const kind = process.env.FAULT_CRASH_KIND ?? '';
const armedBy = process.env.FAULT_CRASH_ARMED_BY;
const holdWhile = process.env.FAULT_CRASH_HOLD_WHILE;
const RECORDS_A_CALL = /INSERT INTO "(public"\.")?SandboxProviderCall"/;

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: killed');
};

const textOf = (config: unknown): string => (typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? ''));
const valuesOf = (args: unknown[]): unknown[] =>
  (Array.isArray(args[1]) ? args[1] : ((args[0] as { values?: unknown[] } | undefined)?.values ?? [])) as unknown[];

/** The sandbox's statement recording a call of our kind (the kind is its first parameter). */
const recordsOurCall = (args: unknown[]): boolean => RECORDS_A_CALL.test(textOf(args[0])) && valuesOf(args)[0] === kind;
const armed = (): boolean => armedBy === undefined || existsSync(armedBy);
const held = (): boolean => holdWhile !== undefined && existsSync(holdWhile);

/** Runs `send` now, or once the hold file is gone; armed or not is decided then. */
function afterHold<T>(send: () => T): T | Promise<T> {
  if (!held()) return send();
  return (async () => {
    while (held()) await sleep(50);
    return send();
  })();
}

if (process.env.DATABASE_URL) {
  const { default: pg } = await import('pg');
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
    if (!recordsOurCall(args)) return original.apply(this, args);
    // pg.Pool#query passes a callback (and gets no promise); other callers await the promise.
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      const dying = (error: unknown, value: unknown) => (error ? callback(error, value) : die());
      const sent = afterHold(() => original.apply(this, armed() ? [...args.slice(0, -1), dying] : args));
      return sent instanceof Promise ? undefined : sent;
    }
    return afterHold(() => (armed() ? (original.apply(this, args) as Promise<unknown>).then(die) : original.apply(this, args)));
  } as typeof pg.Client.prototype.query;
} else {
  const { PGlite } = await import('@electric-sql/pglite');
  const original = PGlite.prototype.query as (...args: unknown[]) => Promise<unknown>;
  PGlite.prototype.query = function (this: unknown, ...args: unknown[]) {
    if (!recordsOurCall(args)) return original.apply(this, args);
    return afterHold(() => (armed() ? original.apply(this, args).then(die) : original.apply(this, args)));
  } as typeof PGlite.prototype.query;
}
