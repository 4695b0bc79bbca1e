/** GET /exports/transactions.csv: every transaction the v2 list's filters match, as rows to stream. */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { EXPORT_BATCH_ROWS, boundedExport } from '../exports.js';
import { transactionFilter, type ListTransactionsInput } from './listTransactions.js';
import { exportTransactionRows, type ExportedTransactionRow } from './store.js';

/** The list's filters; an export has no page: it holds every matching row. */
export type ExportTransactionsInput = Omit<ListTransactionsInput, 'page' | 'limit' | 'slice'>;

/**
 * The filters are checked now (a bad one throws the list's 400 before anything is sent); the rows
 * come as the returned batches are read, newest first, from the replica when there is one (an
 * export may lag the primary by a little). Reading the first batch takes one of the instance's
 * export slots (exports.ts): 429 when none is free.
 */
export function exportTransactions(
  ctx: GatewayContext,
  access: ReadAccess<'exportTransactions'>,
  input: ExportTransactionsInput,
): AsyncGenerator<ExportedTransactionRow[], void, undefined> {
  const filter = transactionFilter(access.organizationId, input);
  return boundedExport(ctx, exportTransactionRows(laggingReads(ctx), filter, EXPORT_BATCH_ROWS));
}
