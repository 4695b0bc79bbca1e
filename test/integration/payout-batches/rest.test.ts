/**
 * Payout batches through REST v2 (docs/payouts.md#batch-payouts): a draft names its invalid lines
 * before anything is sent; started, its items go one at a time through the payout flow (each an
 * ordinary payout, above 2,000,000 XOF to review), holding the organisation's payout slot (a
 * single payout meanwhile gets 409; the batch waits for one that got the slot first); its
 * progress, items and results; cancel; the webhooks of the subscribed endpoint.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller } from '../../../src/domain/access/auth.js';
import { createWebhook } from '../../../src/domain/operations.js';
import { createPayout } from '../../../src/domain/payouts/createPayout.js';
import { runPayoutBatches } from '../../../src/domain/payoutBatches/runPayoutBatches.js';
import { releasePayoutLease, takePayoutLease } from '../../../src/domain/payouts/store.js';
import { useGateway } from '../../support/gateway.js';
import { eventually } from '../../support/webhookReceiver.js';
import { countingProvider, fundedMerchant, mainBalance, PHONES, payoutBody, postPayout, withProvider } from '../../support/payouts.js';
import { useDispatching } from '../../support/webhooks.js';
import { useContract } from '../../support/contract.js';
import { V2_DEFINITION } from '../../../src/rest/v2/surface.js';
import { expectBalancedLedger } from '../../support/ledger.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 100, maxRetries: 2, timeoutMs: 1_000 } });
const delivering = useDispatching(gateway);
const { expectConforms } = useContract(V2_DEFINITION, '/api/v2');

const line = (amount: number, phone: string = PHONES.succeeds, extra: Record<string, unknown> = {}) => ({
  selected_payment_method: 'wave',
  amount,
  recipient: { first_name: 'Awa', last_name: 'Diop', phone },
  reason: 'Driver week 47',
  ...extra,
});

/** Runs the batch runner (as the background job does) until the batch ends or `rounds` runs passed. */
async function runUntilEnded(runnerId = 'a0000000-0000-4000-8000-000000000001', rounds = 50) {
  for (let round = 0; round < rounds; round += 1) {
    const run = await runPayoutBatches(gateway.ctx, runnerId);
    if (run.outcome === 'idle') return;
    if (run.outcome === 'waiting') await sleep(20);
  }
}

describe('payout batches (REST v2)', () => {
  it('drafts with the invalid lines named, starts the valid ones, sends each once through the payout flow, and reports the results', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 10_000_000 });
    const hook = await createWebhook(gateway.ctx, gateway.operator, {
      organizationId: organization.id,
      url: `${delivering.receiver.url}/batch-events`,
      events: ['payout_status', 'payout_batch_status'],
    });
    delivering.receiver.configure('/batch-events', { secret: hook.secret });
    const items = [
      line(10_000),
      line(5), // amount rule
      line(12_000, '+22177000'), // Senegal numbers have 9 digits
      line(10_000), // duplicate of line 1
      line(13_000, PHONES.fails),
      line(2_500_000, '+221770000002'), // manual review
      line(14_000, '+221770000003', { selected_payment_method: 'orange_money', reference: 'INV-7' }),
    ];
    const draft = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items } });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expectConforms('createPayoutBatch', 200, draft.body);
    expect(draft.body).toMatchObject({ status: 'draft', item_count: 7, valid_count: 4, total_amount: 10_000 + 13_000 + 2_500_000 + 14_000 });
    expect(draft.body.errors).toEqual([
      { line: 2, field: 'amount', error: 'the amount must be greater than 10 XOF' },
      { line: 3, field: 'phone', error: 'a +221 number has 9 digits after the prefix' },
      { line: 4, field: 'line', error: 'duplicate of line 1' },
    ]);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);

    const refused = await gateway.rest('POST', `/api/v2/payout-batches/${draft.body.id}/start`, { key });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/refused lines/);

    const provider = countingProvider(gateway.ctx.provider);
    await withProvider(gateway, provider, async () => {
      const started = await gateway.rest('POST', `/api/v2/payout-batches/${draft.body.id}/start`, { key, body: { skip_invalid_lines: true } });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(started.body).toMatchObject({ status: 'running', counts: { queued: 4 } });
      await runUntilEnded();
    });

    const done = await gateway.rest('GET', `/api/v2/payout-batches/${draft.body.id}`, { key });
    expectConforms('getPayoutBatch', 200, done.body);
    expect(done.body).toMatchObject({ status: 'completed_with_failures', counts: { queued: 0, pending: 1, completed: 2, failed: 1, cancelled: 0 } });
    const listed = await gateway.rest('GET', `/api/v2/payout-batches/${draft.body.id}/items?limit=10`, { key });
    expectConforms('listPayoutBatchItems', 200, listed.body);
    expect(listed.body.items.map((item: any) => [item.line, item.payout_status])).toEqual([
      [1, 'completed'],
      [5, 'failed'],
      [6, 'pending'],
      [7, 'completed'],
    ]);
    expect(listed.body.items[1].failure_reason).toBeTruthy();
    expect(listed.body.items[3]).toMatchObject({ reference: 'INV-7', fees: 140 });
    // Each item is an ordinary payout, sent once (the review one not at all).
    for (const item of listed.body.items) {
      const payout = await gateway.rest('GET', `/api/v2/payouts/${item.order_id}`, { key });
      expect(payout.body.payout_status).toBe(item.payout_status);
    }
    expect([...provider.sent.values()]).toEqual([1, 1, 1]);
    const failedOnly = await gateway.rest('GET', `/api/v2/payout-batches/${draft.body.id}/items?status=failed`, { key });
    expect(failedOnly.body.items.map((item: any) => item.line)).toEqual([5]);
    // Money: completed debited with fees, the failed one returned, the review one reserved.
    const expectedDebit = 10_000 + 100 + 14_000 + 140 + 2_500_000 + 25_000;
    expect(await mainBalance(gateway, organization.id)).toBe(10_000_000n - BigInt(expectedDebit));
    await expectBalancedLedger(gateway.db.prisma);

    // The subscribed endpoint: a payout_status per settled item, one payout_batch_status at the end.
    const received = await eventually(() => (delivering.receiver.on('/batch-events').length >= 4 ? delivering.receiver.on('/batch-events') : null));
    const types = received.map((request) => request.headers['x-event-type']).sort();
    expect(types).toEqual(['payout_batch_status', 'payout_status', 'payout_status', 'payout_status']);
    const batchEvent = JSON.parse(received.find((request) => request.headers['x-event-type'] === 'payout_batch_status')!.raw.toString('utf8'));
    expect(batchEvent).toEqual({ ...done.body, event: 'payout_batch_status' });
    // The audit log holds the batch and each item.
    const audit = await gateway.ctx.db.auditEvent.findMany({ where: { organizationId: organization.id, target: draft.body.id } });
    expect(audit.map((event) => event.action).sort()).toEqual([
      'payout_batch.created',
      'payout_batch.finished',
      'payout_batch.item_sent',
      'payout_batch.item_sent',
      'payout_batch.item_sent',
      'payout_batch.item_sent',
      'payout_batch.started',
    ]);
  });

  it('refuses the total beyond the balance with fees, and limits: an empty batch, more than 5,000 items, a body over 2 MiB', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 20_000 });
    const over = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items: [line(10_000), line(9_900, '+221770000002')] } });
    expect(over.status).toBe(200);
    expect(over.body.errors[0]).toMatchObject({ line: 0, field: 'total' });
    expect(over.body.errors[0].error).toMatch(/the valid lines need 20099 XOF/);
    const notStarted = await gateway.rest('POST', `/api/v2/payout-batches/${over.body.id}/start`, { key, body: { skip_invalid_lines: true } });
    expect(notStarted.status).toBe(400);
    expect(notStarted.body.error).toMatch(/Insufficient balance/);

    const empty = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items: [] } });
    expect(empty).toMatchObject({ status: 400, body: { error: expect.stringMatching(/at least one payout/) } });
    const many = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items: Array.from({ length: 5_001 }, (_, index) => line(11 + index)) } });
    expect(many).toMatchObject({ status: 400, body: { error: expect.stringMatching(/at most 5000 items/) } });
    const huge = await gateway.rest('POST', '/api/v2/payout-batches', {
      key,
      rawBody: JSON.stringify({ items: [line(11, PHONES.succeeds, { reason: 'x'.repeat(3 * 1024 * 1024) })] }),
    });
    expect(huge.status).toBe(413);
    const readKey = await gateway.createKey(organization.id, 'read');
    expect((await gateway.rest('POST', '/api/v2/payout-batches', { key: readKey, body: { items: [line(100)] } })).status).toBe(403);
  });

  it('holds the organisation’s payout slot: a single payout meanwhile gets 409; a batch started while one runs gets 409, and waits for one that got the slot first', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 1_000_000 });
    const draft = await gateway.rest('POST', '/api/v2/payout-batches', {
      key,
      body: { items: [line(1_000), line(1_100, '+221770000002'), line(1_200, '+221770000003')] },
    });
    // A single payout holds the slot: the start answers 409.
    const single = await takePayoutLease(gateway.ctx, organization.id);
    const busy = await gateway.rest('POST', `/api/v2/payout-batches/${draft.body.id}/start`, { key });
    expect(busy).toMatchObject({ status: 409, body: { error: 'A payout is already in progress. Please wait.' } });
    await releasePayoutLease(gateway.ctx, single);
    expect((await gateway.rest('POST', `/api/v2/payout-batches/${draft.body.id}/start`, { key })).status).toBe(200);

    // An item being sent holds it: a single payout requested meanwhile gets 409.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inFlight!: () => void;
    const reached = new Promise<void>((resolve) => (inFlight = resolve));
    const sandbox = gateway.ctx.provider;
    const slowed = countingProvider(sandbox, {
      payout: async (request) => {
        inFlight();
        await gate;
        return sandbox.payout(request);
      },
    });
    await withProvider(gateway, slowed, async () => {
      const running = runPayoutBatches(gateway.ctx, 'b0000000-0000-4000-8000-000000000001');
      await reached;
      const meanwhile = await postPayout(gateway, key, payoutBody({ amount: 5_000 }));
      expect(meanwhile).toMatchObject({ status: 409, body: { error: 'A payout is already in progress. Please wait.' } });
      release();
      expect(await running).toMatchObject({ outcome: 'finished', itemsSent: 3 });
    });

    // A single payout that got the slot first: the batch waits (gives the batch back), then resumes.
    const second = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items: [line(2_000), line(2_100, '+221770000002')] } });
    await gateway.rest('POST', `/api/v2/payout-batches/${second.body.id}/start`, { key });
    const held = await takePayoutLease(gateway.ctx, organization.id);
    expect(await runPayoutBatches(gateway.ctx, 'c0000000-0000-4000-8000-000000000001')).toMatchObject({
      batchId: second.body.id,
      outcome: 'waiting',
      itemsSent: 0,
    });
    await releasePayoutLease(gateway.ctx, held);
    expect(await runPayoutBatches(gateway.ctx, 'c0000000-0000-4000-8000-000000000001')).toMatchObject({
      batchId: second.body.id,
      outcome: 'finished',
      itemsSent: 2,
    });
    const finished = await gateway.rest('GET', `/api/v2/payout-batches/${second.body.id}`, { key });
    expect(finished.body).toMatchObject({ status: 'completed', counts: { completed: 2 } });
  });

  it('cancels: a draft is discarded, a running batch keeps what was sent and cancels the rest; nothing is sent twice', async () => {
    const { key } = await fundedMerchant(gateway, { balance: 1_000_000 });
    const draft = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items: [line(1_000)] } });
    const discarded = await gateway.rest('POST', `/api/v2/payout-batches/${draft.body.id}/cancel`, { key });
    expect(discarded.body).toMatchObject({ status: 'cancelled', counts: { cancelled: 1 } });
    expect((await gateway.rest('POST', `/api/v2/payout-batches/${draft.body.id}/start`, { key })).status).toBe(409);

    const items = Array.from({ length: 6 }, (_, index) => line(1_000 + index, `+22177000010${index}`));
    const batch = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items } });
    await gateway.rest('POST', `/api/v2/payout-batches/${batch.body.id}/start`, { key });
    let sentCount = 0;
    const sandbox = gateway.ctx.provider;
    const cancelling = countingProvider(sandbox, {
      payout: async (request) => {
        sentCount += 1;
        if (sentCount === 2) await gateway.rest('POST', `/api/v2/payout-batches/${batch.body.id}/cancel`, { key });
        return sandbox.payout(request);
      },
    });
    await withProvider(gateway, cancelling, () => runUntilEnded());
    const after = await gateway.rest('GET', `/api/v2/payout-batches/${batch.body.id}`, { key });
    expect(after.body).toMatchObject({ status: 'cancelled', counts: { completed: 2, cancelled: 4, queued: 0 } });
    expect([...cancelling.sent.values()]).toEqual([1, 1]);
    expect((await gateway.rest('POST', `/api/v2/payout-batches/${batch.body.id}/cancel`, { key })).status).toBe(409);
    expect((await gateway.rest('GET', `/api/v2/payout-batches/${crypto.randomUUID()}`, { key })).status).toBe(404);
  });

  it('an item is its payout’s idempotency: a second send of one item records and sends nothing, and a runner resuming it takes its payout', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 1_000_000 });
    const batch = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items: [line(7_000, '+221770000201')] } });
    await gateway.rest('POST', `/api/v2/payout-batches/${batch.body.id}/start`, { key });
    // A runner claimed the item (as claimItem does) and died before recording anything.
    await gateway.ctx.db.payoutBatchItem.updateMany({ where: { batchId: batch.body.id }, data: { state: 'processing', claimedAt: new Date() } });

    const provider = countingProvider(gateway.ctx.provider);
    const access = authorizeMerchant({ kind: 'merchant', apiKeyId: 'runner', scope: 'payout', organization } satisfies MerchantCaller, 'createPayout');
    const input = { selectedPaymentMethod: 'wave', amount: 7_000, recipient: { phone: '+221770000201' } };
    // One after the other: the first completes (the organisation's lease released); the second
    // finds the item linked and records nothing, though the lease was free.
    const send = () => createPayout(gateway.ctx, access, input, { batchItem: { batchId: batch.body.id, line: 1 } });
    await withProvider(gateway, provider, async () => {
      expect((await send()).value.status).toBe('completed');
      await expect(send()).rejects.toMatchObject({ code: 'payout_in_progress' });
    });
    const payouts = await gateway.ctx.db.payout.findMany({ where: { organizationId: organization.id } });
    expect(payouts).toHaveLength(1);
    expect([...provider.sent.values()]).toEqual([1]);
    const item = await gateway.ctx.db.payoutBatchItem.findFirstOrThrow({ where: { batchId: batch.body.id } });
    expect(item).toMatchObject({ state: 'processing', payoutId: payouts[0]!.id });

    // The next runner finds the item's payout and takes its state; nothing more is sent.
    await withProvider(gateway, provider, () => runUntilEnded('e0000000-0000-4000-8000-000000000001'));
    const ended = await gateway.rest('GET', `/api/v2/payout-batches/${batch.body.id}`, { key });
    expect(ended.body).toMatchObject({ status: 'completed', counts: { completed: 1 } });
    expect(await gateway.ctx.db.payoutBatchItem.findFirstOrThrow({ where: { batchId: batch.body.id } })).toMatchObject({
      state: 'done',
      payoutId: payouts[0]!.id,
    });
    expect([...provider.sent.values()]).toEqual([1]);
    await expectBalancedLedger(gateway.ctx.db);
  });
});
