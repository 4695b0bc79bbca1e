/**
 * The batch runner (a background job of every instance: src/jobs/background.ts). It takes ONE
 * running batch no live runner holds (store.ts claimBatch) and sends its items one at a time
 * through the one payout flow, `createPayout`, exactly as a single payout of the merchant who
 * started the batch: each item its own payout, taking the organisation's one-payout-at-a-time slot
 * like any payout. The item is its payout's idempotency (as an Idempotency-Key is a single
 * payout's, without the key's two transactions an item): phase 1's statement records the payout
 * only while the item has none, its row locked, and links it (payouts/store.ts BatchItemRef). So:
 *
 * - a single payout requested while an item is being sent gets the spec's 409, and an item that
 *   finds the slot held (a single payout got it first) gives the batch up until the next run;
 * - a runner killed mid-item leaves the item `processing`: the next runner (here or on another
 *   instance, once the lease lapsed) finds the payout linked to it, if the first got that far, and
 *   takes its state (the reconciler settles one still with the provider) instead of sending
 *   anything; two runners on one item wait on its row, and the second records nothing: an item is
 *   never recorded or sent twice;
 * - items above 2,000,000 XOF go to manual review like single payouts (their payout is pending;
 *   the batch moves on).
 */
import type { Organization, PayoutBatchItem } from '../../generated/prisma/client.js';
import type { MerchantAccess } from '../access/auth.js';
import type { OrganizationCaller } from '../access/caller.js';
import { inTransaction } from '../afterCommit.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findOrganization } from '../organizations/organizations.js';
import { createPayout } from '../payouts/createPayout.js';
import { keepLease } from '../leases.js';
import { announceBatchEnd, announceBatchProgress } from './batches.js';
import { claimBatch, claimItem, findLinkedPayout, markFinished, markItemDone, releaseBatch, renewLease, type PayoutBatchRecord } from './store.js';

/**
 * How long a runner holds a batch past its last renewal (it renews before each item, and in the
 * background while an item is sent: ../leases.ts). Short, so a killed runner's batch resumes within
 * seconds elsewhere; a lapse under a live runner is harmless (the items' idempotency keys keep a
 * second runner from sending anything twice).
 */
const BATCH_LEASE_MS = 5_000;

export interface BatchRun {
  /** Which batch was run, and how far. */
  batchId: string | null;
  itemsSent: number;
  outcome: 'idle' | 'finished' | 'waiting' | 'stopped';
}

/** One batch, as far as it goes now. `shouldStop`: the process is shutting down (the batch is given back). */
export async function runPayoutBatches(
  ctx: GatewayContext,
  runnerId: string,
  options: { leaseMs?: number; shouldStop?: () => boolean } = {},
): Promise<BatchRun> {
  const leaseMs = options.leaseMs ?? BATCH_LEASE_MS;
  const batch = await claimBatch(ctx.db, runnerId, ctx.clock.now(), leaseMs);
  if (!batch) return { batchId: null, itemsSent: 0, outcome: 'idle' };
  const keeper = keepLease(leaseMs, () => renewLease(ctx.db, batch.id, runnerId, ctx.clock.now(), leaseMs), ctx.log, { batchId: batch.id });
  try {
    return await runClaimed(ctx, batch, runnerId, leaseMs, options);
  } finally {
    keeper.stop();
  }
}

async function runClaimed(
  ctx: GatewayContext,
  batch: PayoutBatchRecord,
  runnerId: string,
  leaseMs: number,
  options: { shouldStop?: () => boolean },
): Promise<BatchRun> {
  let itemsSent = 0;
  const organizationOf = freshWithin(ORGANIZATION_FRESH_MS, () => findOrganization(ctx.db, batch.organizationId));
  for (;;) {
    if (options.shouldStop?.()) {
      await releaseBatch(ctx.db, batch.id, runnerId);
      return { batchId: batch.id, itemsSent, outcome: 'stopped' };
    }
    if (!(await renewLease(ctx.db, batch.id, runnerId, ctx.clock.now(), leaseMs))) return { batchId: batch.id, itemsSent, outcome: 'stopped' };
    const item = await claimItem(ctx.db, batch.id, ctx.clock.now());
    if (!item) {
      await finishBatch(ctx, batch);
      return { batchId: batch.id, itemsSent, outcome: 'finished' };
    }
    if ((await sendItem(ctx, batch, item, await organizationOf())) === 'wait') {
      await releaseBatch(ctx.db, batch.id, runnerId);
      return { batchId: batch.id, itemsSent, outcome: 'waiting' };
    }
    itemsSent += 1;
  }
}

/** The item through the payout flow; 'wait' when it cannot go now (the slot is held, the key still in flight, payouts switched off). */
async function sendItem(ctx: GatewayContext, batch: PayoutBatchRecord, item: PayoutBatchItem, organization: Organization): Promise<'sent' | 'wait'> {
  const caller = callerOf(batch, organization);
  const access = { operation: 'createPayout', caller, organization, organizationId: organization.id } as MerchantAccess<'createPayout'>;
  let outcome: { payoutId: string | null; failureReason: string | null };
  // Resumed after a runner died past phase 1: the item's payout exists (linked by the statement
  // that recorded it) and is never sent again; its state is the item's outcome.
  const linkedBefore = item.payoutId ? await findLinkedPayout(ctx.db, batch.id, item.line) : null;
  if (linkedBefore) outcome = outcomeOf(linkedBefore);
  else {
    try {
      const { value } = await createPayout(
        ctx,
        access,
        {
          selectedPaymentMethod: item.method,
          amount: Number(item.amount),
          recipient: { firstName: item.recipientFirstName, lastName: item.recipientLastName, phone: item.recipientPhone },
          reason: item.reason,
        },
        { batchItem: { batchId: batch.id, line: item.line } },
      );
      outcome = { payoutId: value.id, failureReason: null };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error; // unknown (the database away): the item stays processing, resumed next run
      const linked = await findLinkedPayout(ctx.db, batch.id, item.line);
      // Nothing recorded for it: the organisation's slot is held (a single payout, or the item's
      // statement waited on another runner's), or payouts are switched off: try again later.
      if (!linked && (error.status === 409 || error.status === 503)) return 'wait';
      // The payout flow refused it (its reason), or the provider failed its payout (the payout's reason).
      outcome = linked ? outcomeOf(linked, error.message) : { payoutId: null, failureReason: error.message };
    }
  }
  const now = ctx.clock.now();
  await markItemDone(ctx.db, batch.id, item.line, outcome, now, {
    organizationId: batch.organizationId,
    actor: caller,
    action: 'payout_batch.item_sent',
    target: batch.id,
    details: { line: item.line, payoutId: outcome.payoutId, ...(outcome.failureReason && { failureReason: outcome.failureReason }) },
    at: now,
  });
  announceBatchProgress(ctx, ctx.db, batch);
  return 'sent';
}

/**
 * An item's outcome from its payout: a failed one's reason (or the flow's refusal when the payout
 * has none); none while it is with the provider or awaiting review (the reconciler or the operator
 * settles it, and its payout_status webhook says how).
 */
function outcomeOf(payout: { id: string; status: string; failureReason: string | null }, refusal?: string): { payoutId: string; failureReason: string | null } {
  return { payoutId: payout.id, failureReason: payout.status === 'failed' ? (payout.failureReason ?? refusal ?? null) : null };
}

/**
 * How long the runner trusts its read of the organisation (payouts enabled, limits, fees) before
 * reading it again: an operator's change reaches the batch within a second, and a batch of 5,000
 * items does not read the same row 5,000 times.
 */
const ORGANIZATION_FRESH_MS = 1_000;

/** `read`'s last answer while younger than `maxAgeMs`, else a new read. */
function freshWithin<T>(maxAgeMs: number, read: () => Promise<T>): () => Promise<T> {
  let last: { value: T; at: number } | null = null;
  return async () => {
    if (!last || performance.now() - last.at > maxAgeMs) last = { value: await read(), at: performance.now() };
    return last.value;
  };
}

async function finishBatch(ctx: GatewayContext, batch: PayoutBatchRecord): Promise<void> {
  const organization = await findOrganization(ctx.db, batch.organizationId);
  await inTransaction(ctx, async (tx) => {
    const finished = await markFinished(tx, batch.id, ctx.clock.now());
    if (finished) await announceBatchEnd(ctx, tx, finished, callerOf(batch, organization));
  });
}

/** The merchant who started the batch, as the items' payouts' caller (their audit entries name them). */
function callerOf(batch: PayoutBatchRecord, organization: OrganizationCaller['organization']): OrganizationCaller {
  const by = (batch.startedBy ?? {}) as { kind?: string; id?: string; scope?: string; email?: string; role?: string };
  if (by.kind === 'merchantUser')
    return { kind: 'merchantUser', userId: by.id ?? '', email: by.email ?? '', role: by.role, organization, sessionId: '' } as OrganizationCaller;
  return { kind: 'merchant', apiKeyId: by.id ?? '', scope: 'payout', organization } as OrganizationCaller;
}
