/**
 * What the batch operations share: finding a batch the caller may see, its wire shape (the REST
 * body, and the `payout_batch_status` webhook body), and telling of a batch's changes: its live
 * updates (liveUpdates/events.ts) and, at its end, the webhook's outbox row and the audit entry,
 * in the transaction that ends it.
 */
import type { PayoutBatchStatus } from '../../generated/prisma/enums.js';
import type { Principal } from '../access/policy.js';
import { announceStatusChange } from '../liveUpdates/events.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { Db, DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { toWireAmount } from '../money.js';
import { enqueueEvent } from '../webhooks/store.js';
import { wireTimestamp } from '../wire.js';
import type { BatchLineError } from './rules.js';
import { countItems, readBatch, type ItemStatus, type PayoutBatchRecord } from './store.js';

export interface BatchView {
  batch: PayoutBatchRecord;
  counts: Record<ItemStatus, number>;
}

/** The batch `id` of the caller's organisation (any, for operators: null); another's answers 404 like a missing one. */
export async function findVisibleBatch(db: Pick<Db, 'payoutBatch'>, organizationId: string | null, id: string): Promise<PayoutBatchRecord> {
  const batch = isUuid(id) ? await readBatch(db, organizationId, id) : null;
  if (!batch) throw new DomainError('payout_batch_not_found');
  return batch;
}

export async function viewOf(db: Pick<Db, '$queryRaw'>, batch: PayoutBatchRecord): Promise<BatchView> {
  return { batch, counts: await countItems(db, batch.id) };
}

/** The batch as GET /payout-batches/{id} reads it (docs/payouts.md#batch-payouts). */
export function wireBatch({ batch, counts }: BatchView) {
  return {
    id: batch.id,
    status: batch.status,
    item_count: batch.itemCount,
    valid_count: batch.validCount,
    total_amount: toWireAmount(batch.totalAmount),
    total_fees: toWireAmount(batch.totalFees),
    errors: batch.errors as unknown as BatchLineError[],
    counts,
    created_at: wireTimestamp(batch.createdAt),
    started_at: batch.startedAt ? wireTimestamp(batch.startedAt) : null,
    finished_at: batch.finishedAt ? wireTimestamp(batch.finishedAt) : null,
  };
}

/** The statuses a batch ends in: its `payout_batch_status` webhook is written then, and its live progress completes. */
const ENDED_STATUSES: readonly PayoutBatchStatus[] = ['completed', 'completed_with_failures', 'cancelled'];
export const hasEnded = (batch: Pick<PayoutBatchRecord, 'status'>): boolean => ENDED_STATUSES.includes(batch.status);

/** The `payout_batch_status` body: the batch exactly as GET /payout-batches/{id} reads it, then `event`. */
function payoutBatchStatusBody(view: BatchView): string {
  return JSON.stringify({ ...wireBatch(view), event: 'payout_batch_status' });
}

/** The `payout_batch_status` body for the batch as it is now, or null until it has ended (no event is written before). `gateway listen` forwards it. */
export function payoutBatchStatusWebhookBodyOf(view: BatchView): string | null {
  return hasEnded(view.batch) ? payoutBatchStatusBody(view) : null;
}

/** The batch's status changed (started, ended): told to its live subscribers once `db`'s work commits. */
export function announceBatchStatus(ctx: GatewayContext, db: Db | DbTransaction, batch: PayoutBatchRecord): void {
  announceStatusChange(ctx, db, 'payoutBatch', batch);
}

/** An item of the running batch was answered: its progress, told to its live subscribers once `db`'s work commits. */
export function announceBatchProgress(ctx: GatewayContext, db: Db | DbTransaction, batch: PayoutBatchRecord): void {
  announceStatusChange(ctx, db, 'payoutBatchItem', { id: batch.id, organizationId: batch.organizationId, status: 'running' });
}

/**
 * The batch ended (completed, completed_with_failures, cancelled): its `payout_batch_status`
 * outbox rows, its audit entry and its live update, in `tx`, the transaction that ended it.
 */
export async function announceBatchEnd(ctx: GatewayContext, tx: DbTransaction, batch: PayoutBatchRecord, actor: Principal): Promise<void> {
  const view = await viewOf(tx, batch);
  const body = payoutBatchStatusBody(view);
  await enqueueEvent(tx, { organizationId: batch.organizationId, event: 'payout_batch_status', body }, ctx.clock.now());
  announceBatchStatus(ctx, tx, batch);
  await recordAuditEvent(tx, {
    organizationId: batch.organizationId,
    actor,
    action: batch.status === 'cancelled' ? 'payout_batch.cancelled' : 'payout_batch.finished',
    target: batch.id,
    details: { status: batch.status, ...view.counts },
  });
}
