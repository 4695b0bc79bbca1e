/**
 * Operator: releases an escrow transaction's held proceeds to the merchant (docs/architecture.md#escrow).
 * `paid_and_blocked` -> `paid`, and what the transaction still holds in `escrow` moves to `main`,
 * in ONE database transaction. The status change is conditional, so of two concurrent releases
 * (or a release racing a refund, which also takes the held proceeds) exactly one moves the money.
 */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { heldInEscrow } from '../ledger/escrow.js';
import { post } from '../ledger/posting.js';
import { findVisibleTransaction } from '../transactions/transactions.js';
import type { TransactionRecord } from '../transactions/store.js';
import { enqueuePaymentStatus } from '../webhooks/store.js';
import { markEscrowReleased } from './store.js';
import { inTransaction } from '../afterCommit.js';
import { announceStatusChange } from '../liveUpdates/events.js';

export async function releaseEscrow(ctx: GatewayContext, caller: Caller, orderId: string): Promise<TransactionRecord> {
  authorize(caller, 'releaseEscrow');
  const transaction = await findVisibleTransaction(ctx.db, null, orderId);
  if (transaction.status !== 'paid_and_blocked') throw new DomainError('not_in_escrow');

  return inTransaction(ctx, async (tx) => {
    if (!(await markEscrowReleased(tx, transaction.id))) throw new DomainError('not_in_escrow');
    const held = await heldInEscrow(tx, transaction.organizationId, transaction.id);
    await post(tx, {
      kind: 'escrow_release',
      transactionId: transaction.id,
      description: 'escrow released by an operator',
      movements: [
        { side: { organizationId: transaction.organizationId, account: 'escrow' }, amount: -held },
        { side: { organizationId: transaction.organizationId, account: 'main' }, amount: held },
      ],
    });
    const released = await findVisibleTransaction(tx, null, transaction.id);
    await enqueuePaymentStatus(tx, released, ctx.clock.now());
    announceStatusChange(ctx, tx, 'transaction', released);
    return released;
  });
}
