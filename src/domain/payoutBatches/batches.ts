/**
 * What the batch operations share: finding a batch the caller may see, its wire shape (the REST
 * body, and the `payout_batch_status` webhook body), and telling of a batch's end (the webhook's
 * outbox row and the audit entry, in the transaction that ends it).
 */
import type { Principal } from '../access/policy.js';
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

/**
 * The batch ended (completed, completed_with_failures, cancelled): its `payout_batch_status`
 * outbox rows and its audit entry, in `tx`, the transaction that ended it.
 */
export async function announceBatchEnd(ctx: GatewayContext, tx: DbTransaction, batch: PayoutBatchRecord, actor: Principal): Promise<void> {
  const view = await viewOf(tx, batch);
  const body = JSON.stringify({ ...wireBatch(view), event: 'payout_batch_status' });
  await enqueueEvent(tx, { organizationId: batch.organizationId, event: 'payout_batch_status', body }, ctx.clock.now());
  await recordAuditEvent(tx, {
    organizationId: batch.organizationId,
    actor,
    action: batch.status === 'cancelled' ? 'payout_batch.cancelled' : 'payout_batch.finished',
    target: batch.id,
    details: { status: batch.status, ...view.counts },
  });
}
