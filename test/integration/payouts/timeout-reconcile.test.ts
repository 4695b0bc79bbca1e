/**
 * A payout whose provider does not answer (sandbox wallet ...1111, or a call that fails on the
 * way) stays `pending` with its funds debited, and the caller finds it by `recipient_phone` as the
 * spec says. The reconciler settles it later by ASKING the provider (payoutStatus), never by
 * sending it again: succeeded -> completed; failed -> failed, funds returned; still pending or
 * never received ("not found": unknown is not failed) -> left open, asked again with backoff,
 * until the provider knows or an operator decides. Several reconcilers at once settle it once.
 */
import { describe, expect, it } from 'vitest';
import { settleProviderCall } from '../../../src/domain/operations.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { PHONES, countingProvider, expectPayout, fundedMerchant, mainBalance, payoutBody, postPayout, withProvider } from '../../support/payouts.js';

const gateway = useGateway();

const reconcile = () => settlePendingPayouts(gateway.ctx, { olderThanMs: 0 });

describe('a payout the provider did not answer', () => {
  it('stays pending (funds debited), is found by recipient_phone, then completed by the reconciler without a second send', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider);
    await withProvider(gateway, provider, async () => {
      const payout = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 30_000, recipient: { phone: PHONES.timesOut } })), 'pending');
      expect(payout).toMatchObject({ paid_at: null, provider_reference: '' });
      expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 30_300n);

      const found = await gateway.rest('GET', `/api/v2/payouts?recipient_phone=${encodeURIComponent(PHONES.timesOut)}&status=pending`, { key });
      expect(found.body.payouts.map((item: { order_id: string; amount: number }) => [item.order_id, item.amount])).toEqual([[payout.order_id, 30_000]]);
      // The lock went with the request: the organisation's next payout runs.
      expectPayout(await postPayout(gateway, key), 'completed');

      // Too recent for the default delay (the request may still be waiting on its answer).
      await settlePendingPayouts(gateway.ctx);
      expect(provider.asked).toEqual([]);

      expect(await reconcile()).toEqual({ settled: 1, stillPending: 0, errors: 0 });
      const read = await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key });
      expect(read.body).toMatchObject({ payout_status: 'completed', paid_at: expect.any(String), provider_reference: expect.stringMatching(/^sbx_payout_/) });
      expect(provider.asked).toEqual([payout.order_id]);
      expect(provider.sent.get(payout.order_id)).toBe(1);
      expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 30_300n - 10_100n);

      // Settled payouts are not asked about again.
      expect(await reconcile()).toEqual({ settled: 0, stillPending: 0, errors: 0 });
    });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('that the provider says it never received (the call failed on the way) stays open with its next question scheduled, and is failed only by an operator', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider, {
      payout: async () => {
        throw new Error('connection reset before the provider read the request');
      },
    });
    await withProvider(gateway, provider, async () => {
      const payout = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 50_000 })), 'pending');
      expect(await reconcile()).toMatchObject({ settled: 0, stillPending: 1 });
      const open = await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.order_id } });
      expect(open).toMatchObject({ status: 'pending', providerChecks: 1, nextProviderCheckAt: expect.any(Date) });
      expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 50_500n);
      await settleProviderCall(gateway.ctx, gateway.operator, { kind: 'payout', id: payout.order_id, outcome: 'failed' }, 'not in the provider statement');
      const row = await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.order_id } });
      expect(row).toMatchObject({ status: 'failed', failureReason: 'decided by an operator: not in the provider statement' });
      expect(provider.sent.get(payout.order_id)).toBe(1);
    });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('whose provider call hangs is answered pending at the provider timeout, then settled by asking', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider, {
      payout: () => new Promise(() => undefined), // never answers
      payoutStatus: async () => ({ status: 'succeeded', providerReference: 'prv_late' }),
    });
    gateway.ctx.settings.providerTimeoutMs = 300;
    try {
      await withProvider(gateway, provider, async () => {
        const started = Date.now();
        const payout = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 40_000 })), 'pending');
        // Answered at the deadline, not held for as long as the provider hangs.
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.order_id } })).toMatchObject({ status: 'pending', failureReason: null });
        expect(await reconcile()).toEqual({ settled: 1, stillPending: 0, errors: 0 });
        expect((await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body).toMatchObject({
          payout_status: 'completed',
          provider_reference: 'prv_late',
        });
        expect(provider.sent.get(payout.order_id)).toBe(1);
      });
    } finally {
      delete gateway.ctx.settings.providerTimeoutMs;
    }
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 40_400n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('that the provider later reports failed is failed, funds returned; one still pending is left for later', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    let verdict: 'pending' | 'failed' = 'pending';
    const provider = countingProvider(gateway.ctx.provider, {
      payout: async () => ({ status: 'pending', providerReference: 'prv_1', reason: 'queued' }),
      payoutStatus: async () => ({ status: verdict, providerReference: 'prv_1', reason: 'wallet closed' }),
    });
    await withProvider(gateway, provider, async () => {
      const payout = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 20_000 })), 'pending');
      expect(payout.provider_reference).toBe('prv_1');
      expect(await reconcile()).toEqual({ settled: 0, stillPending: 1, errors: 0 });
      expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 20_200n);
      verdict = 'failed';
      expect(await reconcile()).toEqual({ settled: 1, stillPending: 0, errors: 0 });
      expect((await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('failed');
      expect(provider.sent.get(payout.order_id)).toBe(1);
    });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('is settled once when several reconcilers run at once', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider, {
      payout: async () => ({ status: 'pending', providerReference: '', reason: 'no answer' }),
      payoutStatus: async () => ({ status: 'failed', providerReference: '', reason: 'refused' }),
    });
    await withProvider(gateway, provider, async () => {
      const ids: string[] = [];
      for (let index = 0; index < 3; index += 1)
        ids.push(expectPayout(await postPayout(gateway, key, payoutBody({ amount: 1_000 + index })), 'pending').order_id);
      await Promise.all([reconcile(), reconcile(), reconcile()]);
      for (const id of ids) expect((await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id } })).status).toBe('failed');
      // Exactly one reversal per payout.
      expect(await gateway.ctx.db.ledgerEntry.count({ where: { payoutId: { in: ids }, kind: 'payout_reversal', accountId: { not: null } } })).toBe(3);
    });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('keeps going when asking about one payout fails: no answer leaves it open and counted as a question', async () => {
    const { key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider, {
      payout: async () => ({ status: 'pending', providerReference: '', reason: 'no answer' }),
      payoutStatus: async () => {
        throw new Error('provider status endpoint down');
      },
    });
    await withProvider(gateway, provider, async () => {
      const payout = expectPayout(await postPayout(gateway, key), 'pending');
      const tally = await reconcile();
      expect(tally.stillPending).toBeGreaterThanOrEqual(1);
      expect(await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.order_id } })).toMatchObject({ status: 'pending', providerChecks: 1 });
    });
    // Left for a later run with a provider that answers.
    await reconcile();
  });
});
