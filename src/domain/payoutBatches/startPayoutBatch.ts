/**
 * POST /payout-batches/{id}/start and .../cancel. Starting checks what may have changed since the
 * draft (the balance against the valid lines' amounts and fees, another payout of the organisation
 * running: the spec's 409) and refuses a draft with refused lines unless the caller says to send
 * the valid ones only (`skipInvalidLines`: the dashboard's "start the valid lines"). The runner
 * (runPayoutBatches.ts) then sends the items. Cancelling stops a draft or a running batch: items
 * not yet handed to the payout flow are cancelled; the one being sent finishes.
 */
import type { MerchantAccess } from '../access/auth.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import { inTransaction } from '../afterCommit.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { releasePayoutLease, takePayoutLease } from '../payouts/store.js';
import { announceBatchEnd, announceBatchStatus, findVisibleBatch, viewOf, type BatchView } from './batches.js';
import { mainBalanceOf, markCancelled, markRunning } from './store.js';

export async function startPayoutBatch(
  ctx: GatewayContext,
  access: MerchantAccess<'startPayoutBatch'>,
  id: string,
  options: { skipInvalidLines?: boolean } = {},
): Promise<BatchView> {
  const batch = await findVisibleBatch(ctx.db, access.organizationId, id);
  if (batch.status !== 'draft') throw new DomainError('payout_batch_not_draft', batch.status);
  const errors = batch.errors as unknown as { line: number }[];
  if (errors.some((error) => error.line > 0) && !options.skipInvalidLines)
    throw new DomainError('payout_batch_has_errors', `${errors.length} line(s) refused; fix them, or start the ${batch.validCount} valid line(s) only`);
  if (batch.validCount === 0) throw new DomainError('payout_batch_has_errors', 'no valid line to send');
  const needed = batch.totalAmount + batch.totalFees;
  const balance = await mainBalanceOf(ctx.db, access.organizationId);
  if (needed > balance) throw new DomainError('insufficient_balance', `the batch needs ${needed} XOF, main holds ${balance} XOF`);
  // The organisation's one-payout-at-a-time slot, as a single payout takes it: held now = 409.
  const lease = await takePayoutLease(ctx, access.organizationId);
  await releasePayoutLease(ctx, lease);
  const started = await inTransaction(ctx, async (tx) => {
    const running = await markRunning(tx, batch.id, startedByOf(access), ctx.clock.now());
    if (!running) return null;
    await recordAuditEvent(tx, { organizationId: access.organizationId, actor: access.caller, action: 'payout_batch.started', target: batch.id });
    announceBatchStatus(ctx, tx, running);
    return running;
  });
  if (!started) throw new DomainError('payout_batch_not_draft', (await findVisibleBatch(ctx.db, access.organizationId, id)).status);
  return viewOf(ctx.db, started);
}

export async function cancelPayoutBatch(ctx: GatewayContext, access: MerchantAccess<'cancelPayoutBatch'>, id: string): Promise<BatchView> {
  const batch = await findVisibleBatch(ctx.db, access.organizationId, id);
  const cancelled = await inTransaction(ctx, async (tx) => {
    const row = await markCancelled(tx, batch.id, ctx.clock.now());
    if (row) await announceBatchEnd(ctx, tx, row, access.caller);
    return row;
  });
  if (!cancelled) throw new DomainError('payout_batch_finished', batch.status);
  return viewOf(ctx.db, cancelled);
}

/** Who started it: the runner sends its items in their name (each payout's audit entry names them). */
function startedByOf(access: MerchantAccess<'startPayoutBatch'>) {
  const { caller } = access;
  return caller.kind === 'merchant'
    ? { kind: 'merchant', id: caller.apiKeyId, scope: caller.scope }
    : { kind: 'merchantUser', id: caller.userId, email: caller.email, role: caller.role };
}
