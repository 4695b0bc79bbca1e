/**
 * The concurrent refund race on two gateway instances (issue 16): 50 GET /api/v2/refund/{id} of
 * one paid transaction at once, split across two processes sharing PostgreSQL and Redis, no
 * sandbox latency. Before the fix, settling deadlocked in some rounds (no 200, or 500s), a
 * reconciler then failed a refund the provider had executed, and a later request refunded again.
 *
 * 50 rounds, one transaction each, run one after the other (the measure): every round has
 * exactly one 200, no 500, and the rest 409 (in flight) or 400 (already refunded). Then the
 * provider executed exactly one refund per transaction, sent once, and the ledger shows it once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useCluster, statusCounts, type Instance, type Answer } from '../support/faults/cluster.js';
import { expectAnswersAgain, expectMoneyInvariants } from '../support/faults/invariants.js';
import { faultMerchant, paidOn, refund, type FaultMerchant } from '../support/faults/money.js';

const ROUNDS = 50;
const CONCURRENT = 50;
const PRICE = 1_000;

const cluster = useCluster({ env: { SANDBOX_LATENCY_MS: '0' } });
let a: Instance;
let b: Instance;
let merchant: FaultMerchant;

beforeAll(async () => {
  [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
  merchant = await faultMerchant(cluster.gateway);
}, 90_000);

describe('the concurrent refund race across two instances', () => {
  it(`${ROUNDS} rounds of ${CONCURRENT} concurrent refunds split across two instances: exactly one 200 per round, zero 500s, the provider refunds once`, async () => {
    const orders: string[] = [];
    for (let i = 0; i < ROUNDS; i++) orders.push(await paidOn(i % 2 === 0 ? a : b, merchant.checkoutKey, PRICE));

    const bad: { round: number; counts: Record<string, number>; sample: unknown }[] = [];
    const started = performance.now();
    for (const [round, orderId] of orders.entries()) {
      const answers: Answer[] = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => refund(i % 2 === 0 ? a : b, merchant.checkoutKey, orderId, { timeoutMs: 15_000 })),
      );
      const counts = statusCounts(answers);
      const losersOk = answers.every((answer) => answer.status === 200 || answer.status === 409 || answer.status === 400);
      if (counts[200] !== 1 || !losersOk)
        bad.push({ round, counts, sample: answers.find((answer) => answer.status !== 200 && answer.status !== 409 && answer.status !== 400)?.body });
      for (const answer of answers.filter((x) => x.status === 400)) expect(answer.body.error).toMatch(/^This Transaction cannot be refund/);
    }
    console.info(`refund race: ${ROUNDS} rounds in ${Math.round(performance.now() - started)} ms`);
    expect(bad, 'rounds without exactly one 200, or with an answer other than 200/409/400').toEqual([]);

    const db = cluster.gateway.ctx.db;
    const transactions = await db.transaction.findMany({ where: { id: { in: orders } }, select: { status: true } });
    expect(transactions.every((transaction) => transaction.status === 'refunded')).toBe(true);
    const calls = await db.$queryRaw<{ reference: string; status: string; calls: number }[]>`
      SELECT c.reference, c.status, c.calls FROM "SandboxProviderCall" c JOIN "Refund" r ON r.id::text = split_part(c.reference, ':', 1)
      WHERE c.kind = 'refund' AND r."transactionId" = ANY(${orders}::uuid[])`;
    expect(calls).toHaveLength(ROUNDS);
    expect(calls.every((row) => row.status === 'succeeded' && row.calls === 1)).toBe(true);

    const { open } = await expectMoneyInvariants(db);
    expect(open).toEqual([]);
    await expectAnswersAgain(a, merchant.checkoutKey);
    await expectAnswersAgain(b, merchant.checkoutKey);
  }, 180_000);
});
