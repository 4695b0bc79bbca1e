/**
 * Live updates over SSE at /graphql, through Redis pub/sub: a committed status change reaches the
 * subscribers of its organisation within a second; a merchant hears only its own organisation
 * (naming another is refused like the queries), an operator every one; payouts too, and payout
 * batches (their status changes, and one batch's progress until it ends); no token, 401.
 */
import { describe, expect, it } from 'vitest';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { useGateway } from '../../support/gateway.js';
import { RejectPayoutWithReasonDocument, ReleaseEscrowDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';
import { fundedMerchant, PHONES, postPayout, payoutBody } from '../../support/payouts.js';
import { runPayoutBatches } from '../../../src/domain/payoutBatches/runPayoutBatches.js';
import { PAYOUT_BATCH_PROGRESS, PAYOUT_BATCH_STATUS_CHANGED, PAYOUT_STATUS_CHANGED, TRANSACTION_STATUS_CHANGED, subscribe } from '../../support/sse.js';

const gateway = useGateway({ redis: true });

/** Delivery bound of the live updates' contract (docs/graphql.md#live-updates), asserted once on a single payment below. */
const WITHIN_MS = 1_000;
/**
 * How long the other tests wait for an event they expect. Their files share two cores with three
 * others, and a status event after a burst of work (a batch's last item) once came later than a
 * second; how fast events arrive under load is the bench's to measure ("live updates: 1,000 SSE
 * subscribers", p99 <= 1 s), what arrives and in which order is these tests'.
 */
const EVENT_WAIT_MS = 5_000;

describe('transactionStatusChanged', () => {
  it('tells a merchant of its transaction paid, within a second of the payment’s answer', async () => {
    const { organization, key } = await gateway.merchant();
    const orderId = await pendingTransaction(gateway, key);
    const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
    expect(live.status).toBe(200);
    expect(live.contentType).toMatch(/^text\/event-stream/);
    try {
      await sandboxPay(gateway, orderId);
      const answeredAt = Date.now();
      const event = await live.next(WITHIN_MS);
      expect(event.payload.data.transactionStatusChanged).toMatchObject({ orderId, organizationId: organization.id, status: 'paid' });
      expect(event.receivedAt - answeredAt).toBeLessThan(WITHIN_MS);
    } finally {
      live.close();
    }
  });

  it('tells of escrow (paid_and_blocked), its release (paid), a cancel and a refund', async () => {
    const { key } = await gateway.merchant({ escrowEnabled: true, scope: 'readAndWrite' });
    const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
    try {
      const held = await pendingTransaction(gateway, key, { isEscrow: true });
      await sandboxPay(gateway, held);
      expect((await live.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId: held, status: 'paid_and_blocked' });
      await graphqlDataTyped(gateway, ReleaseEscrowDocument, { orderId: held });
      expect((await live.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId: held, status: 'paid' });

      const cancelled = await pendingTransaction(gateway, key);
      expect((await gateway.rest('DELETE', `/api/v2/transactions/${cancelled}`, { key })).status).toBe(200);
      expect((await live.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId: cancelled, status: 'cancelled' });

      const refunded = await pendingTransaction(gateway, key);
      await sandboxPay(gateway, refunded);
      expect((await live.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId: refunded, status: 'paid' });
      const refund = await gateway.rest('GET', `/api/v2/refund/${refunded}`, { key });
      expect(refund.status, JSON.stringify(refund.body)).toBe(200);
      expect((await live.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId: refunded, status: 'refunded' });
    } finally {
      live.close();
    }
  });

  it('does not tell a merchant of another organisation’s payment, and refuses it naming another organisation', async () => {
    const mine = await gateway.merchant();
    const theirs = await gateway.merchant();
    const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, mine.key);
    try {
      await sandboxPay(gateway, await pendingTransaction(gateway, theirs.key));
      expect(await live.quiet(500)).toEqual([]);
    } finally {
      live.close();
    }

    const refused = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, { organizationId: theirs.organization.id }, mine.key);
    const event = await refused.next(EVENT_WAIT_MS);
    expect(event.payload.data ?? null).toBeNull();
    expect(event.payload.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    refused.close();
  });

  it('refuses a key whose scope may not list transactions (payout)', async () => {
    const { key } = await gateway.merchant({ scope: 'payout' });
    const refused = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
    const event = await refused.next(EVENT_WAIT_MS);
    expect(event.payload.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    refused.close();
  });

  it('tells an operator of every organisation’s payments, or of the one it names', async () => {
    const first = await gateway.merchant();
    const second = await gateway.merchant();
    const everyone = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, gateway.adminToken);
    const onlySecond = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, { organizationId: second.organization.id }, gateway.adminToken);
    try {
      const a = await pendingTransaction(gateway, first.key);
      const b = await pendingTransaction(gateway, second.key);
      await sandboxPay(gateway, a);
      await sandboxPay(gateway, b);
      const seen = [await everyone.next(EVENT_WAIT_MS), await everyone.next(EVENT_WAIT_MS)].map((event) => event.payload.data.transactionStatusChanged);
      expect(seen.map((change) => [change.organizationId, change.orderId, change.status]).sort()).toEqual(
        [
          [first.organization.id, a, 'paid'],
          [second.organization.id, b, 'paid'],
        ].sort(),
      );
      expect((await onlySecond.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId: b, status: 'paid' });
      expect(await onlySecond.quiet(300)).toEqual([]);
    } finally {
      everyone.close();
      onlySecond.close();
    }
  });

  it('answers 401 without a token, before any stream', async () => {
    const refused = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {});
    expect(refused.status).toBe(401);
    refused.close();
  });
});

describe('payoutStatusChanged', () => {
  it('tells a payout key of its payouts completed, failed, and cancelled by an operator', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 5_000_000 });
    const live = await subscribe(gateway.url, PAYOUT_STATUS_CHANGED, {}, key);
    try {
      const completed = await postPayout(gateway, key);
      expect(completed.status, JSON.stringify(completed.body)).toBe(200);
      expect((await live.next(EVENT_WAIT_MS)).payload.data.payoutStatusChanged).toMatchObject({ organizationId: organization.id, status: 'completed' });

      await postPayout(gateway, key, payoutBody({ recipient: { first_name: 'A', last_name: 'B', phone: PHONES.fails } }));
      expect((await live.next(EVENT_WAIT_MS)).payload.data.payoutStatusChanged).toMatchObject({ status: 'failed' });

      const large = await postPayout(gateway, key, payoutBody({ amount: 2_500_000 }));
      expect(large.status, JSON.stringify(large.body)).toBe(200);
      const { rejectPayout } = await graphqlDataTyped(gateway, RejectPayoutWithReasonDocument, { orderId: large.body._id ?? large.body.order_id });
      expect(rejectPayout.status).toBe('cancelled');
      expect((await live.next(EVENT_WAIT_MS)).payload.data.payoutStatusChanged).toMatchObject({ orderId: rejectPayout.orderId, status: 'cancelled' });
    } finally {
      live.close();
    }
  });

  it('tells of a payout and a refund settled inside an Idempotency-Key’s transaction, once, and not again on the replay', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const checkoutKey = await gateway.createKey(organization.id, 'readAndWrite');
    const payouts = await subscribe(gateway.url, PAYOUT_STATUS_CHANGED, {}, key);
    const transactions = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, checkoutKey);
    try {
      const idempotencyKey = `live-${Date.now()}`;
      const sent = await postPayout(gateway, key, payoutBody(), idempotencyKey);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect((await payouts.next(EVENT_WAIT_MS)).payload.data.payoutStatusChanged).toMatchObject({ status: 'completed' });
      expect((await postPayout(gateway, key, payoutBody(), idempotencyKey)).headers.get('idempotent-replayed')).toBe('true');

      const orderId = await pendingTransaction(gateway, checkoutKey);
      await sandboxPay(gateway, orderId);
      expect((await transactions.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId, status: 'paid' });
      const refund = await gateway.rest('GET', `/api/v2/refund/${orderId}`, { key: checkoutKey, headers: { 'idempotency-key': `${idempotencyKey}-refund` } });
      expect(refund.status, JSON.stringify(refund.body)).toBe(200);
      expect((await transactions.next(EVENT_WAIT_MS)).payload.data.transactionStatusChanged).toMatchObject({ orderId, status: 'refunded' });

      expect(await payouts.quiet(300)).toEqual([]);
      expect(await transactions.quiet(0)).toEqual([]);
    } finally {
      payouts.close();
      transactions.close();
    }
  });

  it('does not tell a payout subscriber of transactions', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'read' });
    const live = await subscribe(gateway.url, PAYOUT_STATUS_CHANGED, {}, key);
    try {
      await sandboxPay(gateway, await pendingTransaction(gateway, await gateway.createKey(organization.id, 'checkout')));
      expect(await live.quiet(300)).toEqual([]);
    } finally {
      live.close();
    }
  });
});

describe('payoutBatchStatusChanged and payoutBatchProgress', () => {
  /** A draft of `count` valid items (nothing sent). */
  async function draftBatch(key: string, count: number): Promise<string> {
    const items = Array.from({ length: count }, (_, index) => ({
      selected_payment_method: 'wave',
      amount: 1_000 + index,
      recipient: { phone: `+2217700${String(10_002 + index * 10).padStart(5, '0')}` },
    }));
    const draft = await gateway.rest('POST', '/api/v2/payout-batches', { key, body: { items } });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    return draft.body.id;
  }
  const runUntilFinished = async () => {
    while ((await runPayoutBatches(gateway.ctx, 'e0000000-0000-4000-8000-00000000b0b0')).outcome !== 'finished');
  };

  it('streams a batch’s progress from its draft to its end, then completes; tells the organisation’s watchers it started and ended', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const batchId = await draftBatch(key, 4);
    const statuses = await subscribe(gateway.url, PAYOUT_BATCH_STATUS_CHANGED, {}, await gateway.createKey(organization.id, 'read'));
    const progress = await subscribe(gateway.url, PAYOUT_BATCH_PROGRESS, { id: batchId }, key);
    try {
      // The batch at once, as it is.
      expect((await progress.next(EVENT_WAIT_MS)).payload.data.payoutBatchProgress).toEqual({
        id: batchId,
        status: 'draft',
        validCount: 4,
        counts: { queued: 4, pending: 0, completed: 0, failed: 0, cancelled: 0 },
      });
      expect((await gateway.rest('POST', `/api/v2/payout-batches/${batchId}/start`, { key })).status).toBe(200);
      expect((await statuses.next(EVENT_WAIT_MS)).payload.data.payoutBatchStatusChanged).toMatchObject({
        batchId,
        organizationId: organization.id,
        status: 'running',
      });
      expect((await progress.next(EVENT_WAIT_MS)).payload.data.payoutBatchProgress).toMatchObject({ status: 'running', counts: { queued: 4 } });

      await runUntilFinished();
      expect((await statuses.next(EVENT_WAIT_MS)).payload.data.payoutBatchStatusChanged).toMatchObject({ batchId, status: 'completed' });
      // Each item answered moved it (changes closer than 200 ms apart are folded into one read); the last read is the end, and the stream completes.
      const seen: any[] = [];
      for (let next = await progress.next(EVENT_WAIT_MS).catch(() => null); next; next = await progress.next(EVENT_WAIT_MS).catch(() => null))
        seen.push(next.payload.data.payoutBatchProgress);
      expect(progress.ended, 'the stream completed after the end').toBe(true);
      expect(seen.at(-1)).toEqual({
        id: batchId,
        status: 'completed',
        validCount: 4,
        counts: { queued: 0, pending: 0, completed: 4, failed: 0, cancelled: 0 },
      });
      expect(seen.slice(0, -1).every((view) => view.status === 'running')).toBe(true);
      // The status watchers heard nothing of the items (only the batch's status changes).
      expect(await statuses.quiet(100)).toEqual([]);
    } finally {
      statuses.close();
      progress.close();
    }
  });

  it('completes at once for a batch that has ended; another organisation’s batch is not found, and a key that may not read batches is refused', async () => {
    const { key } = await fundedMerchant(gateway);
    const batchId = await draftBatch(key, 1);
    expect((await gateway.rest('POST', `/api/v2/payout-batches/${batchId}/cancel`, { key })).status).toBe(200);
    const ended = await subscribe(gateway.url, PAYOUT_BATCH_PROGRESS, { id: batchId }, key);
    expect((await ended.next(EVENT_WAIT_MS)).payload.data.payoutBatchProgress).toMatchObject({ status: 'cancelled', counts: { cancelled: 1 } });
    await expect.poll(() => ended.ended, { timeout: EVENT_WAIT_MS }).toBe(true);

    const other = await fundedMerchant(gateway);
    const foreign = await subscribe(gateway.url, PAYOUT_BATCH_PROGRESS, { id: batchId }, other.key);
    const checkout = await subscribe(gateway.url, PAYOUT_BATCH_PROGRESS, { id: batchId }, await gateway.createKey(other.organization.id, 'checkout'));
    try {
      const notFound = foreign.body ?? (await foreign.next(EVENT_WAIT_MS)).payload;
      expect(notFound.errors?.[0]).toMatchObject({ message: 'Payout batch not found', extensions: { code: 'PAYOUT_BATCH_NOT_FOUND' } });
      const refused = checkout.body ?? (await checkout.next(EVENT_WAIT_MS)).payload;
      expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    } finally {
      foreign.close();
      checkout.close();
    }
  });
});
