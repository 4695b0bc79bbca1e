/** What an escrow transaction's proceeds still hold in `escrow`: the sum of its entries there (a release or a refund took the rest). */
import type { DbTransaction } from '../context.js';
import { transactionSumOn } from './store.js';

export const heldInEscrow = (tx: Pick<DbTransaction, '$queryRaw'>, organizationId: string, transactionId: string): Promise<bigint> =>
  transactionSumOn(tx, organizationId, 'escrow', transactionId);
