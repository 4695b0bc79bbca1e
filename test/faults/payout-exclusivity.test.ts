/**
 * "Only one payout per organisation runs at a time; a second concurrent one gets 409" (spec,
 * POST /payouts), on two gateway instances sharing PostgreSQL and Redis, under continuous
 * pressure: clients on both instances send payouts for one organisation as fast as they are
 * answered, each provider call taking SANDBOX_LATENCY_MS.
 *
 * Proven from the provider's own books (never two payout calls of the organisation in flight at
 * once), from the answers (each a completed payout or a 409, nothing else), and from the ledger
 * (main fell by exactly amount + fees of each answered payout, no payout the client was not told of).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { statusCounts, useCluster, type Instance } from '../support/faults/cluster.js';
import { expectAnswersAgain, expectMoneyInvariants, overlappingPayouts } from '../support/faults/invariants.js';
import { faultMerchant, mainBalanceOf, payoutFeeOf, payoutPressure, type FaultMerchant } from '../support/faults/money.js';

const LATENCY_MS = 150;
const AMOUNT = 1_000;
const FLOAT = 10_000_000;

const cluster = useCluster({ env: { SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
let a: Instance;
let b: Instance;
let merchant: FaultMerchant;

beforeAll(async () => {
  [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
  merchant = await faultMerchant(cluster.gateway, { float: FLOAT });
}, 90_000);

describe('concurrent payouts of one organisation on two instances', () => {
  it('8 clients on two instances for 6 s: never two payouts in flight at the provider, every loser gets 409, balances exact', async () => {
    const tries = await payoutPressure([a, b], merchant.payoutKey, { workers: 8, durationMs: 6_000, amount: AMOUNT });
    const counts = statusCounts(tries);
    console.info(`payout pressure: ${JSON.stringify(counts)}`);

    const unexpected = tries.filter((attempt) => !(attempt.status === 409 || (attempt.status === 200 && attempt.body.payout_status === 'completed')));
    expect(unexpected, 'answers other than a completed payout or 409').toEqual([]);
    expect(counts[200] ?? 0).toBeGreaterThanOrEqual(5);
    expect(counts[409] ?? 0).toBeGreaterThanOrEqual(5);
    for (const loser of tries.filter((attempt) => attempt.status === 409)) expect(Object.keys(loser.body)).toEqual(['error']);
    // Both instances won some and refused some: the exclusion is the deployment's, not a process's.
    for (const name of ['a', 'b']) {
      expect(
        tries.some((attempt) => attempt.instance === name && attempt.status === 200),
        `instance ${name} sent a payout`,
      ).toBe(true);
      expect(
        tries.some((attempt) => attempt.instance === name && attempt.status === 409),
        `instance ${name} refused one`,
      ).toBe(true);
    }

    const db = cluster.gateway.ctx.db;
    expect(await overlappingPayouts(db, merchant.organizationId, LATENCY_MS)).toEqual([]);

    const answered = tries.filter((attempt) => attempt.status === 200).map((attempt) => attempt.body._id as string);
    const payouts = await db.payout.findMany({ where: { organizationId: merchant.organizationId } });
    expect(payouts.map((payout) => payout.id).sort()).toEqual([...answered].sort());
    expect(payouts.every((payout) => payout.status === 'completed')).toBe(true);
    const spent = BigInt(answered.length) * (BigInt(AMOUNT) + payoutFeeOf(AMOUNT));
    expect(await mainBalanceOf(cluster.gateway, merchant.organizationId)).toBe(BigInt(FLOAT) - spent);

    const { open } = await expectMoneyInvariants(db);
    expect(open).toEqual([]);
    await expectAnswersAgain(a, merchant.checkoutKey);
    await expectAnswersAgain(b, merchant.checkoutKey);
  }, 60_000);
});
