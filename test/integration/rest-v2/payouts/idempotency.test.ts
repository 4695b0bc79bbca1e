/**
 * Idempotency-Key on POST /payouts (the domain's two-phase mechanism): a retry replays the
 * recorded payout (completed, pending, or the provider's refusal) with `Idempotent-Replayed:
 * true` and never sends a second payout; another request under the key is 422; the same request
 * while the first runs is 409. A refusal (4xx) is replayed too.
 */
import { describe, expect, it } from 'vitest';
import { settlePendingPayouts } from '../../../../src/domain/payouts/payouts.js';
import { expectCatalogueError } from '../../../support/assertions.js';
import { useGateway } from '../../../support/gateway.js';
import { expectBalancedLedger } from '../../../support/ledger.js';
import { PHONES, countingProvider, expectPayout, fundedMerchant, mainBalance, payoutBody, postPayout, withProvider } from '../../../support/payouts.js';

const gateway = useGateway({ sandboxLatencyMs: 150 });

const replayed = (response: { headers: Headers }) => response.headers.get('idempotent-replayed');

describe('POST /api/v2/payouts with an Idempotency-Key', () => {
  it('replays a completed payout: same body, one payout, one send, one debit', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider);
    const [first, second] = await withProvider(gateway, provider, async () => [
      await postPayout(gateway, key, payoutBody(), 'pay-1'),
      await postPayout(gateway, key, payoutBody(), 'pay-1'),
    ]);
    expectPayout(first, 'completed');
    expect(replayed(first)).toBeNull();
    expect(second.status).toBe(200);
    expect(replayed(second)).toBe('true');
    expect(second.body).toEqual(first.body);
    expect([...provider.sent]).toEqual([[first.body.order_id, 1]]);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 10_100n);
  });

  it('answers 422 to another request under the same key, without sending it', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    expectPayout(await postPayout(gateway, key, payoutBody(), 'pay-2'), 'completed');
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ amount: 10_001 }), 'pay-2'), 'idempotency_key_reused');
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
  });

  it('replays the provider’s refusal (500) instead of sending a new payout', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider);
    const body = payoutBody({ recipient: { phone: PHONES.fails } });
    const [first, second] = await withProvider(gateway, provider, async () => [
      await postPayout(gateway, key, body, 'pay-3'),
      await postPayout(gateway, key, body, 'pay-3'),
    ]);
    expectCatalogueError(first, 'payout_failed', 'wave');
    expectCatalogueError(second, 'payout_failed', 'wave');
    expect(replayed(second)).toBe('true');
    expect(provider.sent.size).toBe(1);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('replays a payout that timed out as it was recorded (pending); the reconciler settles it without a second send', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider);
    const body = payoutBody({ recipient: { phone: PHONES.timesOut } });
    await withProvider(gateway, provider, async () => {
      const first = expectPayout(await postPayout(gateway, key, body, 'pay-4'), 'pending');
      const retry = await postPayout(gateway, key, body, 'pay-4');
      expect(replayed(retry)).toBe('true');
      expect(retry.body).toEqual(first);
      await settlePendingPayouts(gateway.ctx, { olderThanMs: 0 });
      expect((await gateway.rest('GET', `/api/v2/payouts/${first.order_id}`, { key })).body.payout_status).toBe('completed');
      expect((await postPayout(gateway, key, body, 'pay-4')).body.order_id).toBe(first.order_id);
      expect([...provider.sent]).toEqual([[first.order_id, 1]]);
    });
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
  });

  it('replays a payout waiting for review without recording a second one', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 3_000_000 });
    const body = payoutBody({ amount: 2_100_000 });
    const first = expectPayout(await postPayout(gateway, key, body, 'pay-5'), 'pending');
    const retry = await postPayout(gateway, key, body, 'pay-5');
    expect(replayed(retry)).toBe('true');
    expect(retry.body.order_id).toBe(first.order_id);
    expect(await mainBalance(gateway, organization.id)).toBe(3_000_000n - 2_121_000n);
  });

  it('replays a refusal (400 Insufficient balance) even once the balance would cover it', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 1_000 });
    expectCatalogueError(await postPayout(gateway, key, payoutBody(), 'pay-6'), 'insufficient_balance');
    await fundedMerchant(gateway); // (another organisation; this one stays short)
    const retry = await postPayout(gateway, key, payoutBody(), 'pay-6');
    expectCatalogueError(retry, 'insufficient_balance');
    expect(replayed(retry)).toBe('true');
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('answers 409 to the same request while the first is still running, and sends once', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider);
    const responses = await withProvider(gateway, provider, () => Promise.all([1, 2, 3].map(() => postPayout(gateway, key, payoutBody(), 'pay-7'))));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    expect(provider.sent.size).toBe(1);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
    // Once it finished, the key replays it.
    const after = await postPayout(gateway, key, payoutBody(), 'pay-7');
    expect(replayed(after)).toBe('true');
    expect(provider.sent.size).toBe(1);
  });

  it('refuses a malformed key with 400 before anything runs', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    expectCatalogueError(await postPayout(gateway, key, payoutBody(), 'é'.repeat(3)), 'invalid_idempotency_key');
    expectCatalogueError(await postPayout(gateway, key, payoutBody(), 'x'.repeat(256)), 'invalid_idempotency_key');
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});
