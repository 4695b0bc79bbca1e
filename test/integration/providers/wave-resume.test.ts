/**
 * Issue 28 part A against the Wave simulator: calls Wave de-duplicates are resumed with the same
 * key instead of stranded, a 429 never fails what can still be sent, refusals say why (and funds
 * come back), and a revoked key shows in the provider's health. Wave's pages behind each
 * behaviour: test/support/providers/waveSimulator.ts (its header) and docs/providers.md.
 */
import { describe, expect, it, vi } from 'vitest';
import { logProvidersDown } from '../../../src/domain/providerCalls/providerHealth.js';
import { runCli } from '../../support/cli.js';
import { payTransaction } from '../../../src/domain/payments/payTransaction.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { settlePendingRefunds } from '../../../src/domain/refunds/refunds.js';
import type { ProviderRouter } from '../../../src/infra/providers/router.js';
import { adjustAccount } from '../../../src/domain/operations.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { expectPayout, fundedMerchant, mainBalance, payoutBody, postPayout } from '../../support/payouts.js';
import { expectWaveAgrees, startWaveCheckout, useWaveGateway, waveTransaction } from '../../support/providers/wave.js';

const setup = useWaveGateway({ metrics: true });

const payoutSends = (payoutId: string) =>
  setup.wave.calls.filter((call) => call.method === 'POST' && call.path === '/v1/payout' && call.idempotencyKey === payoutId);
const readPayout = async (key: string, id: string) => (await setup.gateway.rest('GET', `/api/v2/payouts/${id}`, { key })).body;

async function withProviderTimeout<T>(ms: number, work: () => Promise<T>): Promise<T> {
  setup.gateway.ctx.settings.providerTimeoutMs = ms;
  try {
    return await work();
  } finally {
    setup.gateway.ctx.settings.providerTimeoutMs = undefined;
  }
}

describe('a Wave payout left without an answer', () => {
  it('a 5xx after Wave did the work: asked, found, completed; never sent twice', async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    setup.wave.failAfterDoingNext(/^POST \/v1\/payout$/, 500);
    const payout = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 6_000 })), 'pending');
    await settlePendingPayouts(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await readPayout(key, payout.order_id)).payout_status).toBe('completed');
    expect(payoutSends(payout.order_id)).toHaveLength(1);
    await expectWaveAgrees(setup.gateway);
  });

  it('rate limited past what the request may wait: pending, the keyed retry reads its current state, resumed in the background with the same key', async () => {
    const { key, organization } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    setup.wave.rateLimitNext(/^POST \/v1\/payout$/, 60);
    const first = await postPayout(setup.gateway, key, payoutBody({ amount: 8_000 }), 'retry-me-429');
    const payout = expectPayout(first, 'pending');
    // Nothing was sent; the funds stay held for the payout (it is not failed: it can still be sent).
    expect(await mainBalance(setup.gateway, organization.id)).toBeLessThan(100_000n);
    const retried = await postPayout(setup.gateway, key, payoutBody({ amount: 8_000 }), 'retry-me-429');
    expect(retried.status).toBe(200);
    expect(retried.body.order_id).toBe(payout.order_id);
    expect(retried.body.payout_status).toBe('pending');
    await settlePendingPayouts(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await readPayout(key, payout.order_id)).payout_status).toBe('completed');
    const again = await postPayout(setup.gateway, key, payoutBody({ amount: 8_000 }), 'retry-me-429');
    expect(again.body.payout_status).toBe('completed');
    expect(payoutSends(payout.order_id).map((call) => call.status)).toEqual([429, 200]);
    await expectWaveAgrees(setup.gateway);
  });

  it('refused because the business wallet is empty: failed with a reason that names the operator, funds returned', async () => {
    const { key, organization } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    const balance = setup.wave.balance;
    setup.wave.balance = 0n;
    try {
      const refused = await postPayout(setup.gateway, key, payoutBody({ amount: 5_000 }));
      expect(refused.status).toBe(500);
      expect(refused.body.error).toMatch(/^Failed to withdraw.*Reason: wave: the gateway's Wave business wallet does not hold enough funds.*operator/);
      const payout = await setup.gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id }, orderBy: { createdAt: 'desc' } });
      expect(payout.status).toBe('failed');
      expect(payout.failureReason).toMatch(/business wallet/);
      expect(await mainBalance(setup.gateway, organization.id)).toBe(100_000n);
    } finally {
      setup.wave.balance = balance;
    }
  });

  it("a recipient Wave refuses: failed with Wave's reason in words", async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    setup.wave.refusedPayoutMobiles.set('+221770000043', 'recipient-limit-exceeded');
    const refused = await postPayout(setup.gateway, key, payoutBody({ amount: 5_000, recipient: { first_name: 'A', last_name: 'B', phone: '+221770000043' } }));
    expect(refused.status).toBe(500);
    expect(refused.body.error).toMatch(/Reason: wave: the recipient’s Wave wallet cannot receive this amount/);
  });
});

describe('a Wave refund whose call never arrived', () => {
  it('stays unconfirmed (the keyed retry says so, not 409), then is sent again with the same key and succeeds once', async () => {
    const merchant = await setup.gateway.merchant({ name: 'Boutique Reprise', scope: 'readAndWrite' });
    const { orderId, checkoutUrl } = await waveTransaction(setup.gateway, merchant.key, { fees_customer_side: false });
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    await setup.wave.completeSession(session.id);
    await adjustAccount(setup.gateway.ctx, setup.gateway.operator, { organizationId: merchant.organization.id, amount: 1_000, reason: 'cover the refund' });
    setup.wave.loseNextCall(new RegExp(`^POST /v1/checkout/sessions/${session.id}/refund$`));
    const headers = { 'idempotency-key': 'refund-resume-1' };
    const first = await withProviderTimeout(1_000, () => setup.gateway.rest('GET', `/api/v2/refund/${orderId}`, { key: merchant.key, headers }));
    expect(first.status).toBe(500);
    expect(first.body.error).toMatch(/has not confirmed it yet/);
    const retried = await setup.gateway.rest('GET', `/api/v2/refund/${orderId}`, { key: merchant.key, headers });
    expect(retried.status).toBe(500);
    expect(retried.body.error).toMatch(/has not confirmed it yet/);
    await settlePendingRefunds(setup.gateway.ctx, { olderThanMs: 0 });
    const refund = await setup.gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(refund.status).toBe('succeeded');
    const sends = setup.wave.calls.filter((call) => call.path === `/v1/checkout/sessions/${session.id}/refund`);
    expect(sends.map((call) => call.idempotencyKey)).toEqual([refund.id]);
    const done = await setup.gateway.rest('GET', `/api/v2/refund/${orderId}`, { key: merchant.key, headers });
    expect(done.status).toBe(200);
    expect((await setup.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key: merchant.key })).body.transaction_status).toBe('refunded');
    await expectBalancedLedger(setup.gateway.ctx.db);
  });
});

describe('a revoked Wave key', () => {
  it('refuses the payout with a reason for the operator, returns the funds, and shows in the provider health', async () => {
    const { key, organization } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    const router = setup.gateway.ctx.provider as ProviderRouter;
    expect(router.healthOf('wave').healthy).toBe(true);
    setup.wave.revokeKey();
    const refused = await postPayout(setup.gateway, key, payoutBody({ amount: 5_000 }));
    expect(refused.status).toBe(500);
    expect(refused.body.error).toMatch(/Wave API key was revoked \(the gateway operator must act\)/);
    expect(await mainBalance(setup.gateway, organization.id)).toBe(100_000n);
    const health = router.healthOf('wave');
    expect(health).toMatchObject({ provider: 'wave', healthy: false });
    expect(health.reason).toMatch(/refuses the gateway's credentials \(HTTP 401\)/);
    expect(router.healthOf('orange_money')).toMatchObject({ provider: 'sandbox', healthy: true });

    // The checkout does not send a customer into Wave now: the method is unavailable (the page offers the other one).
    const buyer = await setup.gateway.merchant({ name: 'Boutique Panne', scope: 'readAndWrite' });
    const { orderId } = await waveTransaction(setup.gateway, buyer.key);
    await expect(payTransaction(setup.gateway.ctx, { kind: 'customer' }, orderId, { method: 'wave', phone: '+221771234567' })).rejects.toMatchObject({
      code: 'payment_method_unavailable',
    });

    // Operators see it: the CLI (DESIGN.md's contract), GraphQL underneath it, /healthz, /metrics, and one error line per period.
    const status = await runCli(setup.gateway, ['provider', 'status']);
    expect(status.code).toBe(0);
    expect(status.json).toEqual({
      providers: [
        { method: 'wave', provider: 'wave', healthy: false, reason: expect.stringMatching(/credentials \(HTTP 401\)/) },
        { method: 'orange_money', provider: 'sandbox', healthy: true, reason: '' },
      ],
    });
    const healthz = await (await fetch(`${setup.gateway.url}/healthz`)).json();
    expect(healthz).toEqual({
      status: 'ok',
      providers: [
        { method: 'wave', provider: 'wave', healthy: false },
        { method: 'orange_money', provider: 'sandbox', healthy: true },
      ],
    });
    const metrics = await (await fetch(`${setup.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_provider_healthy\{method="wave",provider="wave"\} 0/);
    expect(metrics).toMatch(/gateway_provider_healthy\{method="orange_money",provider="sandbox"\} 1/);
    const errors = vi.spyOn(setup.gateway.ctx.log, 'error');
    try {
      expect(await logProvidersDown(setup.gateway.ctx)).toBe(1);
      expect(await logProvidersDown(setup.gateway.ctx)).toBe(1);
      const lines = errors.mock.calls.filter(([, message]) => /a wallet provider is down/.test(String(message)));
      expect(lines).toHaveLength(1);
      expect(JSON.stringify(lines[0])).not.toContain(setup.wave.apiKey);
    } finally {
      errors.mockRestore();
    }
  });
});
