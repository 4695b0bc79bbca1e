/**
 * One payout per organisation at a time (a lease in PostgreSQL): 20 concurrent payouts of one
 * organisation -> exactly one runs, the others get 409 at once, and the balance is exact, whether
 * Redis answers or not. When the lease expires mid-payout (a short TTL and a slow provider)
 * payouts overlap, and still main never goes below zero (the conditional debit in PostgreSQL) and
 * no payout is sent twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorUnavailableError } from '../../../src/infra/redis/circuitBreaker.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger, ledgerFacts } from '../../support/ledger.js';
import { countingProvider, fundedMerchant, mainBalance, payoutBody, postPayout, withProvider } from '../../support/payouts.js';

const LATENCY_MS = 600;
const gateway = useGateway({ redis: true, sandboxLatencyMs: LATENCY_MS });

afterEach(() => {
  delete gateway.ctx.settings.payoutLockTtlMs;
});

describe('concurrent payouts of one organisation', () => {
  it('20 at once: exactly one runs, 19 get 409 at once, the balance is exact', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 1_000_000 });
    const provider = countingProvider(gateway.ctx.provider);
    await gateway.rest('GET', '/api/v2/payouts', { key }); // the key is known (cached) before the race
    const started = Date.now();
    const timed = async (body: Record<string, unknown>) => {
      const response = await postPayout(gateway, key, body);
      return { ...response, ms: Date.now() - started };
    };
    const responses = await withProvider(gateway, provider, () =>
      Promise.all(Array.from({ length: 20 }, (_, index) => timed(payoutBody({ amount: 10_000 + index })))),
    );

    const sent = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 409);
    expect(sent).toHaveLength(1);
    expect(refused).toHaveLength(19);
    for (const response of refused) expect(response.body).toEqual({ error: 'A payout is already in progress. Please wait.' });
    // "At once": refused requests do not wait for the running payout's provider call.
    expect(Math.max(...refused.map((response) => response.ms))).toBeLessThan(sent[0]!.ms);

    const winner = sent[0]!.body;
    expect(winner.payout_status).toBe('completed');
    expect([...provider.sent]).toEqual([[winner.order_id, 1]]);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - BigInt(winner.amount + winner.fees));
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('other organisations are not held up by one organisation’s payout', async () => {
    const merchants = await Promise.all(Array.from({ length: 4 }, () => fundedMerchant(gateway)));
    const responses = await Promise.all(merchants.map(({ key }) => postPayout(gateway, key)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
  });

  it('with the coordinator (Redis) unable to answer, PostgreSQL still lets one run and answers 409 to the others', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    const coordination = gateway.ctx.coordination;
    const down = async (): Promise<never> => {
      throw new CoordinatorUnavailableError('coordinator did not answer');
    };
    let asked = 0;
    const counted = async (): Promise<never> => {
      asked++;
      return down();
    };
    // Every call a request could make to the coordinator fails: the lease is PostgreSQL's alone.
    gateway.ctx.coordination = {
      ...coordination,
      rateLimiter: { hit: counted },
      scheduler: { schedule: counted, cancel: counted, claimDue: counted },
      invalidations: { ...coordination.invalidations, publish: counted },
    };
    try {
      const responses = await Promise.all(Array.from({ length: 4 }, () => postPayout(gateway, key, payoutBody({ amount: 10_000 }))));
      expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409]);
      expect(asked).toBeGreaterThanOrEqual(4); // the coordinator was asked (the rate limit) and could not answer
    } finally {
      gateway.ctx.coordination = coordination;
    }
    expect(await mainBalance(gateway, organization.id)).toBe(100_000n - 10_100n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('the lock expiring mid-payout: payouts overlap, main never goes below zero, nothing is sent twice', async () => {
    // Covers 3 payouts of 10,000 + 100 fee, not 4.
    const { organization, key } = await fundedMerchant(gateway, { balance: 35_000 });
    gateway.ctx.settings.payoutLockTtlMs = 50;
    const provider = countingProvider(gateway.ctx.provider);
    let lowest = 35_000n;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const balance = await mainBalance(gateway, organization.id);
        if (balance < lowest) lowest = balance;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // Every 80 ms a new one: the previous one's lock (50 ms) has lapsed, its provider call (600 ms) has not.
    const responses = await withProvider(gateway, provider, () =>
      Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          await new Promise((resolve) => setTimeout(resolve, index * 80));
          return postPayout(gateway, key, payoutBody({ amount: 10_000 }));
        }),
      ),
    );
    watching = false;
    await watcher;

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    // The others: insufficient balance (400) or, when a lock was still held, 409.
    expect(statuses.every((status) => [200, 400, 409].includes(status))).toBe(true);
    expect(statuses.filter((status) => status === 400).length).toBeGreaterThan(0);
    expect(lowest >= 0n).toBe(true);
    expect(await mainBalance(gateway, organization.id)).toBe(35_000n - 3n * 10_100n);
    // Each recorded payout was sent exactly once, under its own reference.
    const payouts = await gateway.ctx.db.payout.findMany({ where: { organizationId: organization.id } });
    expect(payouts).toHaveLength(3);
    expect(payouts.every((payout) => payout.status === 'completed')).toBe(true);
    expect(new Map([...provider.sent].sort())).toEqual(new Map(payouts.map((payout) => [payout.id, 1] as const).sort()));
    // They did overlap: the lock alone did not serialise them.
    const sentAt = payouts.map((payout) => payout.sentAt!.getTime()).sort((a, b) => a - b);
    expect(sentAt[1]! - sentAt[0]!).toBeLessThan(LATENCY_MS);
    const facts = await expectBalancedLedger(gateway.db.prisma);
    expect(facts.negativeAccounts).toEqual([]);
    expect((await ledgerFacts(gateway.db.prisma)).driftingAccounts).toEqual([]);
  });
});
