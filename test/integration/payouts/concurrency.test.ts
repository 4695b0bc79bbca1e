/**
 * One payout per organisation at a time (a lease in PostgreSQL): 20 concurrent payouts of one
 * organisation -> exactly one runs, the others get 409 at once, and the balance is exact, whether
 * Redis answers or not. A payout whose provider call outlasts the lease's life keeps it (its
 * request renews it). When the lease lapses mid-payout anyway (a holder that stopped renewing)
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

  it('a payout whose provider call outlasts the lease’s life keeps it: its request renews it, the others get 409 throughout', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    // A life of 600 ms against a provider call held until the third probe (~2.1 s): without renewal
    // the lease would lapse three times over. A life long enough for a loaded machine: a renewal
    // (every quarter of a life) that a stalled event loop delays past the whole life loses the lease
    // by design (src/domain/leases.ts), and 150 ms lost it in a full run on two cores.
    gateway.ctx.settings.payoutLockTtlMs = 600;
    let releaseCall!: () => void;
    const callHeld = new Promise<void>((resolve) => (releaseCall = resolve));
    const sandbox = gateway.ctx.provider;
    let calls = 0;
    const provider = countingProvider(sandbox, {
      // The first payout's call only: a probe let through (the defect) answers at once.
      payout: async (request) => {
        if (++calls === 1) await callHeld;
        return sandbox.payout(request);
      },
    });
    await withProvider(gateway, provider, async () => {
      const started = Date.now();
      const first = postPayout(gateway, key, payoutBody({ amount: 10_000 }));
      const others: number[] = [];
      for (const at of [700, 1_400, 2_100]) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + at - Date.now())));
        others.push((await postPayout(gateway, key, payoutBody({ amount: 10_001 + others.length }))).status);
      }
      releaseCall();
      expect((await first).status).toBe(200);
      expect(others).toEqual([409, 409, 409]);
    });
    // Once the request ended (released, renewals stopped), the next payout goes at once.
    expect((await postPayout(gateway, key, payoutBody({ amount: 10_005 }))).status).toBe(200);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(2);
  });

  it('the lease lapsing mid-payout (a holder that stopped renewing): payouts overlap, main never goes below zero, nothing is sent twice', async () => {
    // Covers 3 payouts of 10,000 + 100 fee, not 4.
    const { organization, key } = await fundedMerchant(gateway, { balance: 35_000 });
    const provider = countingProvider(gateway.ctx.provider);
    let lowest = 35_000n;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const balance = await mainBalance(gateway, organization.id);
        if (balance < lowest) lowest = balance;
        // What a frozen or cut-off holder's lease does once its life passes unrenewed: it lapses
        // (a lapsed lease is never renewed again, so the holder does not get it back).
        await gateway.ctx.db.$executeRaw`UPDATE "PayoutLease" SET "expiresAt" = '-infinity' WHERE "organizationId" = ${organization.id}::uuid`;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // Every 80 ms a new one: the previous one's lease has lapsed, its provider call (600 ms) has not.
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
