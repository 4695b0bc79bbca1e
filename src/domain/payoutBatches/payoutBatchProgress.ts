/**
 * Live: one payout batch's progress (the dashboard's progress bar): the batch as getPayoutBatch
 * reads it (its status, its counts per item status) at once, then again after each change of it
 * (started, an item answered, ended), at most every PROGRESS_EVERY_MS (changes meanwhile are folded
 * into the next read); the stream completes after the read that finds the batch ended.
 *
 * Fed by the live updates every status change uses (liveUpdates/events.ts: announced after the
 * commit, across instances through Redis): best effort, so a screen whose stream ends early reads
 * the batch itself. Watching starts before the first read, so no change falls between them.
 */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { watchStatusChanges, type StatusChange } from '../liveUpdates/events.js';
import { findVisibleBatch, hasEnded, viewOf, type BatchView } from './batches.js';
import { readBatch, type PayoutBatchRecord } from './store.js';

/**
 * At most five reads a second per watcher: a bar moves smoothly, and a batch of 5,000 items does
 * not cost each watcher a count over its items for every item answered.
 */
const PROGRESS_EVERY_MS = 200;

export async function payoutBatchProgress(
  ctx: GatewayContext,
  access: ReadAccess<'payoutBatchProgress'>,
  id: string,
): Promise<AsyncIterableIterator<BatchView>> {
  const batch = await findVisibleBatch(ctx.db, access.organizationId, id);
  // The batch's own organisation (an operator may watch any): only its changes reach this stream.
  const changes = await watchStatusChanges(ctx, ['payoutBatch', 'payoutBatchItem'], { ...access, organizationId: batch.organizationId });
  return new BatchProgress(ctx, batch, changes);
}

/** The stream: a flag set by the batch's changes, and a read of the batch each time it is pulled with the flag set. */
class BatchProgress implements AsyncIterableIterator<BatchView> {
  /** A change not read yet (the first read counts as one). */
  private changed = true;
  private following = false;
  /** The changes' stream ended (the client's access changed, or the hour passed): what was read is the last. */
  private unfollowed = false;
  /** The last read found the batch ended, or the client went away. */
  private finished = false;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  private wake: (() => void) | undefined;

  constructor(
    private readonly ctx: GatewayContext,
    private readonly batch: PayoutBatchRecord,
    private readonly changes: AsyncIterableIterator<StatusChange>,
  ) {}

  /** Reads the changes as they come (never queued past a flag), from the first pull: a stream never pulled lets the hub close it (events.ts's UNREAD_GRACE_MS). */
  private async follow(): Promise<void> {
    try {
      for await (const change of this.changes) {
        if (change.orderId !== this.batch.id) continue;
        this.changed = true;
        this.notify();
      }
    } finally {
      this.unfollowed = true;
      this.notify();
    }
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = undefined;
    waiting?.();
  }

  /** Waits for a change, the end of the changes, `ms` (when given), or the client going away. */
  private waitFor(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async next(): Promise<IteratorResult<BatchView>> {
    if (!this.following) {
      this.following = true;
      void this.follow();
    }
    while (!this.finished && !this.changed && !this.unfollowed) await this.waitFor();
    if (this.finished || !this.changed) return this.return();
    for (let wait = this.lastReadAt + PROGRESS_EVERY_MS - Date.now(); wait > 0 && !this.finished; wait = this.lastReadAt + PROGRESS_EVERY_MS - Date.now())
      await this.waitFor(wait);
    if (this.finished) return this.return();
    this.changed = false;
    this.lastReadAt = Date.now();
    const view = await viewOf(this.ctx.db, (await readBatch(this.ctx.db, null, this.batch.id)) ?? this.batch);
    if (hasEnded(view.batch)) this.finished = true;
    return { value: view, done: false };
  }

  /** The client went away, or the batch ended: the changes' subscription is closed at once. */
  async return(): Promise<IteratorResult<BatchView>> {
    this.finished = true;
    this.notify();
    await this.changes.return?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<BatchView> {
    return this;
  }
}
