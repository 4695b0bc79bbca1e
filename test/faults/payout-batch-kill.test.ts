/**
 * A payout batch survives its runner being killed (kill -9) mid-item: on two gateway processes
 * sharing PostgreSQL and Redis, instance a runs the batch; once it is under way a dies INSIDE an
 * item's provider call (the sandbox has booked the payout, a never hears the answer: it still
 * holds the organisation's payout lease and the batch's runner lease, and the item's key is in
 * flight). Instance b recognises the dead holder promptly (both leases live 5 s past their last
 * renewal, and only a live holder renews them), resumes where a was and finishes the batch.
 * Each item is sent once (the provider's own books: one call per payout, one payout per item), and
 * the ledger invariants and the provider's agreement hold.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, sleep, useCluster, type Instance } from '../support/faults/cluster.js';
import { expectMoneyInvariants } from '../support/faults/invariants.js';
import { faultMerchant, type FaultMerchant } from '../support/faults/money.js';
import { waitFor } from '../support/processes.js';

const LATENCY_MS = 60;
const ITEMS = 80;
const CRASH_INSIDE_PROVIDER_CALL = './test/support/faults/crash-inside-provider-call.ts';
/** Once this file exists, a dies inside its next payout call (crash-inside-provider-call.ts). */
const ARM_FILE = path.join(tmpdir(), `payout-batch-kill-${randomUUID()}`);
/**
 * While this file exists, a's next payout call waits before the provider records it: a stays alive
 * (its leases renewed) while b starts, however long a start takes on a loaded machine. Without it,
 * a once finished all 80 items before b was up (the full suite, 2 cores).
 */
const HOLD_FILE = path.join(tmpdir(), `payout-batch-hold-${randomUUID()}`);
/**
 * From a's death to b's first item: the leases' 5 s life, then b's runner (every 250 ms). Before
 * the leases were renewed by their holder, the payout lease lived 45 s and this took ~45 s.
 */
const RESUMED_WITHIN_MS = 12_000;

const cluster = useCluster({ env: { SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
let a: Instance;
let merchant: FaultMerchant;

beforeAll(async () => {
  a = await cluster.start('a', {
    nodeArgs: ['--import', CRASH_INSIDE_PROVIDER_CALL],
    env: { FAULT_CRASH_KIND: 'payout', FAULT_CRASH_ARMED_BY: ARM_FILE, FAULT_CRASH_HOLD_WHILE: HOLD_FILE },
  });
  merchant = await faultMerchant(cluster.gateway, { float: 10_000_000 });
}, 90_000);
afterAll(() => {
  rmSync(ARM_FILE, { force: true });
  rmSync(HOLD_FILE, { force: true });
});

const doneItems = (batchId: string) => cluster.gateway.ctx.db.payoutBatchItem.count({ where: { batchId, state: 'done' } });

describe('a payout batch when its runner is killed', () => {
  it('is resumed promptly and finished by the other instance, each item sent once, the books in agreement', async () => {
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
    const db = cluster.gateway.ctx.db;
    const runnerOf = async () => (await db.payoutBatch.findUniqueOrThrow({ where: { id: batchId } })).runnerId;
    writeFileSync(HOLD_FILE, '');
    const aRunner = await runnerOf();
    expect(aRunner, 'a runs the batch').not.toBeNull();
    const b = await cluster.start('b');
    expect(await doneItems(batchId), 'a was still sending when b started').toBeLessThan(ITEMS);
    // b has been polling for batches while a, alive, holds this one (a's payout call waits on HOLD_FILE).
    await sleep(1_000);
    expect(await runnerOf(), 'b has not taken the batch from a live a').toBe(aRunner);

    writeFileSync(ARM_FILE, '');
    rmSync(HOLD_FILE);
    expect((await a.exited).signal).toBe('SIGKILL');
    const killedAt = Date.now();
    const atKill = await doneItems(batchId);
    // a died with an item in its provider call: that item is `processing`, its payout recorded and booked by the provider.
    const inFlight = await db.payoutBatchItem.findFirstOrThrow({ where: { batchId, state: 'processing' } });
    console.info(`payout batch: ${atKill} of ${ITEMS} items done when a was killed inside line ${inFlight.line}'s provider call`);

    // Resumed: the item a died in (it takes the payout a recorded), then the next one sent by b,
    // which needs the organisation's payout slot a held.
    await waitFor(
      async () => (await doneItems(batchId)) >= atKill + 2,
      RESUMED_WITHIN_MS,
      () => `b resumes the batch within ${RESUMED_WITHIN_MS} ms of a's death (a dead holder's leases lapse in 5 s)`,
    );
    console.info(`payout batch: resumed on b ${Date.now() - killedAt} ms after a's death`);
    await waitFor(
      async () => (await db.payoutBatch.findUniqueOrThrow({ where: { id: batchId } })).status !== 'running',
      60_000,
      () => 'b finishes the batch',
    );
    const finished = await call(b, 'GET', `/api/v2/payout-batches/${batchId}`, { key: merchant.payoutKey });
    const failed = await call(b, 'GET', `/api/v2/payout-batches/${batchId}/items?status=failed`, { key: merchant.payoutKey });
    expect(finished.body.status, JSON.stringify({ counts: finished.body.counts, failed: failed.body.items })).toBe('completed');
    expect(finished.body.counts.queued).toBe(0);
    await sleep(100);

    const batchItems = await db.payoutBatchItem.findMany({ where: { batchId } });
    expect(batchItems.every((item) => item.state === 'done' && item.payoutId)).toBe(true);
    // The item a died in took the payout a recorded (no second one), and no failure is said of it.
    const resumed = batchItems.find((item) => item.line === inFlight.line)!;
    expect(resumed.failureReason).toBeNull();
    const payouts = await db.payout.findMany({ where: { organizationId: merchant.organizationId } });
    // One payout per item, no more: nothing recorded twice.
    expect(payouts).toHaveLength(ITEMS);
    expect(new Set(batchItems.map((item) => item.payoutId)).size).toBe(ITEMS);
    // The provider's books: each payout received once.
    const calls = await db.sandboxProviderCall.findMany({ where: { kind: 'payout', reference: { in: payouts.map((payout) => payout.id) } } });
    expect(calls).toHaveLength(ITEMS);
    expect(calls.every((one) => one.calls === 1)).toBe(true);
    const { open } = await expectMoneyInvariants(db, { reconcileTimeoutMs: 30_000 });
    expect(open).toEqual([]);
    expect((await db.payout.findMany({ where: { organizationId: merchant.organizationId, status: { not: 'completed' } } })).length).toBe(0);
  }, 180_000);
});
