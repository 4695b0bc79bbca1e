/**
 * A payout batch survives its runner being killed (kill -9) mid-way: on two gateway processes
 * sharing PostgreSQL and Redis, instance a runs the batch; it is killed while items are being
 * sent; instance b takes the batch over once a's hold lapses, resumes where it was and finishes it.
 * Each item is sent once (the provider's own books: one call per payout, one payout per item), and
 * the ledger invariants and the provider's agreement hold.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, sleep, useCluster, type Instance } from '../support/faults/cluster.js';
import { expectMoneyInvariants } from '../support/faults/invariants.js';
import { faultMerchant, type FaultMerchant } from '../support/faults/money.js';
import { waitFor } from '../support/processes.js';

const LATENCY_MS = 60;
const ITEMS = 80;

const cluster = useCluster({ env: { SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
let a: Instance;
let merchant: FaultMerchant;

beforeAll(async () => {
  a = await cluster.start('a');
  merchant = await faultMerchant(cluster.gateway, { float: 10_000_000 });
}, 90_000);

const doneItems = (batchId: string) => cluster.gateway.ctx.db.payoutBatchItem.count({ where: { batchId, state: 'done' } });

describe('a payout batch when its runner is killed', () => {
  it('is finished by the other instance, each item sent once, the books in agreement', async () => {
    const items = Array.from({ length: ITEMS }, (_, index) => ({
      selected_payment_method: index % 2 ? 'orange_money' : 'wave',
      amount: 1_000 + index,
      recipient: { first_name: 'Driver', last_name: String(index), phone: `+22177${2_000_002 + index * 10}` /* ends in 2: the sandbox pays it */ },
    }));
    const draft = await call(a, 'POST', '/api/v2/payout-batches', { key: merchant.payoutKey, body: { items } });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const batchId: string = draft.body.id;
    expect((await call(a, 'POST', `/api/v2/payout-batches/${batchId}/start`, { key: merchant.payoutKey })).status).toBe(200);

    await waitFor(
      async () => (await doneItems(batchId)) >= 5,
      20_000,
      () => 'a sends the first items',
    );
    const b = await cluster.start('b');
    const before = await doneItems(batchId);
    expect(before, 'a was still sending when b started').toBeLessThan(ITEMS);
    await cluster.kill(a);
    const atKill = await doneItems(batchId);
    console.info(`payout batch: ${atKill} of ${ITEMS} items done when a was killed`);

    await waitFor(
      async () => (await cluster.gateway.ctx.db.payoutBatch.findUniqueOrThrow({ where: { id: batchId } })).status !== 'running',
      100_000,
      () => 'b finishes the batch',
    );
    const finished = await call(b, 'GET', `/api/v2/payout-batches/${batchId}`, { key: merchant.payoutKey });
    const failed = await call(b, 'GET', `/api/v2/payout-batches/${batchId}/items?status=failed`, { key: merchant.payoutKey });
    expect(finished.body.status, JSON.stringify({ counts: finished.body.counts, failed: failed.body.items })).toBe('completed');
    expect(finished.body.counts.queued).toBe(0);
    await sleep(100);

    const db = cluster.gateway.ctx.db;
    const batchItems = await db.payoutBatchItem.findMany({ where: { batchId } });
    expect(batchItems.every((item) => item.state === 'done' && item.payoutId)).toBe(true);
    const payouts = await db.payout.findMany({ where: { organizationId: merchant.organizationId } });
    // One payout per item, no more: nothing recorded twice.
    expect(payouts).toHaveLength(ITEMS);
    expect(new Set(batchItems.map((item) => item.payoutId)).size).toBe(ITEMS);
    // The provider's books: each payout received once.
    const calls = await db.sandboxProviderCall.findMany({ where: { kind: 'payout', reference: { in: payouts.map((payout) => payout.id) } } });
    expect(calls.every((one) => one.calls === 1)).toBe(true);
    const { open } = await expectMoneyInvariants(db, { reconcileTimeoutMs: 30_000 });
    expect(open).toEqual([]);
    expect((await db.payout.findMany({ where: { organizationId: merchant.organizationId, status: { not: 'completed' } } })).length).toBe(0);
  }, 180_000);
});
