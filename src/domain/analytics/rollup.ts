/**
 * The daily rollup of transactions (store.ts, prisma/schema.prisma): refreshed before a read that
 * uses it, so an answer counts every change committed before it was asked; and by a background job,
 * so the change log between two analysts' visits stays a few seconds of writes long.
 */
import type { GatewayContext } from '../context.js';
import { refreshTransactionStatsDays, transactionStatsDaysState } from './store.js';

/**
 * Folds the changes waiting in the log into the rollup (or builds it, the first time). Nothing
 * waiting: one read of two EXISTS, and nothing else. Refreshes write: always on the primary.
 */
export async function refreshTransactionRollup(ctx: Pick<GatewayContext, 'db'>): Promise<void> {
  const state = await transactionStatsDaysState(ctx.db);
  if (state.built && !state.pending) return;
  await refreshTransactionStatsDays(ctx.db);
}
