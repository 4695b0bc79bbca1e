/** GET /exports/payouts.csv: every payout the v2 list's filters match, as rows to stream. */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { EXPORT_BATCH_ROWS, boundedExport } from '../exports.js';
import { payoutFilter, type ListPayoutsInput } from './listPayouts.js';
import { exportPayoutRows, type PayoutRecord } from './store.js';

/** The list's filters; an export has no page: it holds every matching row. */
export type ExportPayoutsInput = Omit<ListPayoutsInput, 'page' | 'limit' | 'slice'>;

/**
 * The filters are checked now (a bad one throws the list's 400 before anything is sent); the rows
 * come as the returned batches are read, newest first, from the replica when there is one. Reading
 * the first batch takes one of the instance's export slots (exports.ts): 429 when none is free.
 */
export function exportPayouts(
  ctx: GatewayContext,
  access: ReadAccess<'exportPayouts'>,
  input: ExportPayoutsInput,
): AsyncGenerator<PayoutRecord[], void, undefined> {
  const filter = payoutFilter(access.organizationId, input);
  return boundedExport(ctx, exportPayoutRows(laggingReads(ctx), filter, EXPORT_BATCH_ROWS));
}
