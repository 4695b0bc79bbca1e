/**
 * What every export shares (transactions, payouts): its batch size and the bound on how many run at
 * once in one instance. The rows and their filters are each capability's (exportTransactions.ts,
 * exportPayouts.ts); the CSV is the adapter's (src/rest/exports).
 */
import type { GatewayContext } from './context.js';
import { DomainError } from './errors.js';

/**
 * Rows per batch read from the database and written to the client at once: large enough that a
 * round trip and a write per batch cost little beside the rows, small enough that one batch (a few
 * hundred kB of CSV) is all an export holds in memory.
 */
export const EXPORT_BATCH_ROWS = 1_000;

/**
 * Exports running at once in one instance. A streamed export holds one database connection for its
 * whole duration (seconds for a million rows, longer for a slow client), out of a pool of 10 by
 * default: two leave the rest to payments and the API. A third is refused with 429 at once rather
 * than queued behind the others (the pool would make it, and whatever follows it, wait).
 */
export const MAX_CONCURRENT_EXPORTS = 2;

/**
 * The longest an export may run: a million rows take seconds; a client that reads so slowly that
 * it needs longer keeps a connection (and, streamed, a snapshot) from everyone else. Cut past it.
 */
const MAX_EXPORT_MS = 15 * 60_000;

const running = new WeakMap<GatewayContext, number>();

/**
 * `batches`, run in one of the instance's export slots: taken when the first batch is asked for
 * (429 `too_many_exports` when none is free) and given back when the export ends, however it ends
 * (done, failed, or stopped by a client that went away). Past MAX_EXPORT_MS the next batch fails.
 */
export async function* boundedExport<Row>(ctx: GatewayContext, batches: AsyncGenerator<Row[], void, undefined>): AsyncGenerator<Row[], void, undefined> {
  const inUse = running.get(ctx) ?? 0;
  if (inUse >= MAX_CONCURRENT_EXPORTS) throw new DomainError('too_many_exports');
  running.set(ctx, inUse + 1);
  const deadline = Date.now() + MAX_EXPORT_MS;
  try {
    for await (const batch of batches) {
      yield batch;
      // Headers and rows have left already: nothing to answer, the adapter cuts the response.
      if (Date.now() > deadline) throw new Error(`export stopped after ${MAX_EXPORT_MS} ms`);
    }
  } finally {
    running.set(ctx, (running.get(ctx) ?? 1) - 1);
  }
}
