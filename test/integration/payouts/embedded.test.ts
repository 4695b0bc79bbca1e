/**
 * The payout flows on the embedded database (PGlite) with in-process coordination, the default of
 * `npm start` without DATABASE_URL and REDIS_URL: sent, refused by the provider, timed out and
 * reconciled, reviewed (approved, rejected), one at a time per organisation (409), replayed by
 * Idempotency-Key; balances exact and the ledger balanced throughout.
 */
import { describe, expect, it } from 'vitest';
import { approvePayout, rejectPayout } from '../../../src/domain/operations.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { expectCatalogueError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { PHONES, expectPayout, fundedMerchant, mainBalance, payoutBody, postPayout } from '../../support/payouts.js';

/**
 * Every provider call takes this long: long enough that the concurrent payouts of the lock test
 * reach the lock while the first still holds it. 400 ms was not, on a loaded day (a fresh-clone
 * CI run of 9 minutes): a second payout began after the first had finished, and was sent.
 */
const PROVIDER_LATENCY_MS = 1_500;

const gateway = useGateway({ embedded: true, sandboxLatencyMs: PROVIDER_LATENCY_MS });

describe('payouts on the embedded database', () => {
  it('send, fail with funds returned, time out then reconcile, and replay by key', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const sent = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 100_000 }), 'emb-1'), 'completed');
    const replay = await postPayout(gateway, key, payoutBody({ amount: 100_000 }), 'emb-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.order_id).toBe(sent.order_id);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 101_000n);

    expectCatalogueError(await postPayout(gateway, key, payoutBody({ recipient: { phone: PHONES.fails } })), 'payout_failed', 'wave');
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 101_000n);

    const slow = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 50_000, recipient: { phone: PHONES.timesOut } })), 'pending');
    const found = await gateway.rest('GET', `/api/v2/payouts?recipient_phone=${encodeURIComponent(PHONES.timesOut)}`, { key });
    expect(found.body.payouts.map((payout: { order_id: string }) => payout.order_id)).toEqual([slow.order_id]);
    expect(await settlePendingPayouts(gateway.ctx, { olderThanMs: 0 })).toMatchObject({ settled: 1 });
    expect((await gateway.rest('GET', `/api/v2/payouts/${slow.order_id}`, { key })).body.payout_status).toBe('completed');
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 101_000n - 50_500n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('review: approved is sent, rejected returns the funds', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 6_000_000 });
    const first = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 2_500_000 })), 'pending');
    const second = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 2_500_000 })), 'pending');
    expect(await mainBalance(gateway, organization.id)).toBe(6_000_000n - 2n * 2_525_000n);
    expect((await approvePayout(gateway.ctx, gateway.operator, first.order_id)).status).toBe('completed');
    expect((await rejectPayout(gateway.ctx, gateway.operator, second.order_id)).status).toBe('cancelled');
    expect(await mainBalance(gateway, organization.id)).toBe(6_000_000n - 2_525_000n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('one payout per organisation at a time (in-process lock): concurrent ones get 409', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    // The others start once the first holds the lock and waits on the provider (its row is
    // written first), so they overlap it unless they take PROVIDER_LATENCY_MS to reach the lock.
    const first = postPayout(gateway, key);
    for (let tries = 0; tries < 400 && (await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })) === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const others = await Promise.all(Array.from({ length: 4 }, () => postPayout(gateway, key)));
    const responses = [await first, ...others];
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 10_100n);
  });
});
