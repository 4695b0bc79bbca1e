/**
 * Stuck provider calls, as an operator meets them: a payout whose provider never says what became
 * of it stays pending (unknown is never failed), is asked about with backoff, and once asked
 * STUCK_AFTER_CHECKS times shows as stuck in `gateway provider-call list --stuck` and in /metrics
 * (`gateway_provider_calls_stuck`). `gateway provider-call settle payout ID --outcome failed`
 * returns its funds, once; a second decision is refused. Analysts and support cannot decide.
 */
import { describe, expect, it } from 'vitest';
import { settlePendingPayouts } from '../../src/domain/payouts/payouts.js';
import { STUCK_AFTER_CHECKS } from '../../src/domain/providerFlow.js';
import { runCli } from '../support/cli.js';
import { useGateway } from '../support/gateway.js';
import { OpenProviderCallIdsDocument } from '../support/graphql/generated.js';
import { graphqlTyped } from '../support/graphql/typed.js';
import { expectBalancedLedger } from '../support/ledger.js';
import { countingProvider, expectPayout, fundedMerchant, mainBalance, payoutBody, postPayout, withProvider } from '../support/payouts.js';

const gateway = useGateway({ metrics: true });

describe('gateway provider-call list / settle', () => {
  it('a payout the provider never confirms becomes stuck, shows in the list and /metrics, and an operator returns its funds once', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    // The call fails on the way and the provider never heard of it: "not found", every time.
    const provider = countingProvider(gateway.ctx.provider, {
      payout: async () => {
        throw new Error('connection reset');
      },
    });
    const payout = await withProvider(gateway, provider, async () => {
      const created = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 20_000 })), 'pending');
      for (let question = 0; question < STUCK_AFTER_CHECKS; question += 1) {
        expect(await settlePendingPayouts(gateway.ctx, { olderThanMs: 0 })).toMatchObject({ settled: 0, stillPending: 1 });
      }
      return created;
    });
    expect(await mainBalance(gateway, organization.id)).toBe(100_000n - 20_200n);

    const listed = await runCli(gateway, ['provider-call', 'list', '--stuck']);
    expect(listed.code).toBe(0);
    expect(listed.json).toEqual({
      calls: [
        expect.objectContaining({ kind: 'PAYOUT', id: payout.order_id, organizationId: organization.id, providerChecks: STUCK_AFTER_CHECKS, stuck: true }),
      ],
    });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_provider_calls_stuck\{kind="payout"\} 1/);
    expect(metrics).toMatch(/gateway_provider_calls_open\{kind="payout"\} 1/);

    const usage = await runCli(gateway, ['provider-call', 'settle', 'payout', payout.order_id, '--outcome', 'failed']);
    expect(usage).toMatchObject({ code: 1, json: { error: expect.stringMatching(/--reason is required/) } });

    const decided = await runCli(gateway, [
      'provider-call',
      'settle',
      'payout',
      payout.order_id,
      '--outcome',
      'failed',
      '--reason',
      'not in the Wave statement',
    ]);
    expect(decided).toMatchObject({ code: 0, json: { kind: 'PAYOUT', id: payout.order_id, outcome: 'FAILED' } });
    expect(await mainBalance(gateway, organization.id)).toBe(100_000n);
    expect((await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('failed');

    const again = await runCli(gateway, ['provider-call', 'settle', 'payout', payout.order_id, '--outcome', 'succeeded', '--reason', 'changed my mind']);
    expect(again).toMatchObject({ code: 1, json: { error: expect.stringMatching(/not open/) } });
    expect(await mainBalance(gateway, organization.id)).toBe(100_000n);
    expect((await runCli(gateway, ['provider-call', 'list'])).json).toEqual({ calls: [] });
    expect(provider.sent.get(payout.order_id)).toBe(1);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('refuses a merchant key', async () => {
    const { key } = await gateway.merchant();
    const answer = await graphqlTyped(gateway, OpenProviderCallIdsDocument, {}, key);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
