/** GET /payout-batches/{id}, its items (a page), and its results as rows to stream (the CSV). */
import type { ReadAccess } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { EXPORT_BATCH_ROWS, boundedExport } from '../exports.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { findVisibleBatch, viewOf, type BatchView } from './batches.js';
import { ITEM_STATUSES, itemRowBatches, listItemsPage, type BatchItemRow, type ItemStatus } from './store.js';

export async function getPayoutBatch(ctx: GatewayContext, access: ReadAccess<'getPayoutBatch'>, id: string): Promise<BatchView> {
  return viewOf(ctx.db, await findVisibleBatch(ctx.db, access.organizationId, id));
}

export interface ListBatchItemsInput extends PageRequest {
  status?: string;
}

function parseItemStatus(value: string): ItemStatus {
  if (!(ITEM_STATUSES as readonly string[]).includes(value)) throw new DomainError('invalid_query', `status must be one of ${ITEM_STATUSES.join(', ')}`);
  return value as ItemStatus;
}

/** By line; `status` filters by the item's status (its payout's, or queued / pending / failed / cancelled). */
export async function listPayoutBatchItems(
  ctx: GatewayContext,
  access: ReadAccess<'listPayoutBatchItems'>,
  id: string,
  input: ListBatchItemsInput,
): Promise<Page<BatchItemRow>> {
  const status = input.status === undefined ? null : parseItemStatus(input.status);
  const { page, limit, skip } = resolvePage(input);
  const batch = await findVisibleBatch(ctx.db, access.organizationId, id);
  const { items, totalCount } = await listItemsPage(ctx.db, batch.id, status, skip, limit);
  return toPage(items, totalCount, page, limit);
}

/** Every item's result by line, in batches (one of the instance's export slots: exports.ts). The batch is checked now (404 before anything is sent). */
export async function exportPayoutBatchItems(
  ctx: GatewayContext,
  access: ReadAccess<'exportPayoutBatchItems'>,
  id: string,
): Promise<AsyncGenerator<BatchItemRow[], void, undefined>> {
  const batch = await findVisibleBatch(ctx.db, access.organizationId, id);
  return boundedExport(ctx, itemRowBatches(ctx.db, batch.id, EXPORT_BATCH_ROWS));
}
