/**
 * transactionStats answers what the rows say: checked against a model computed here from the rows
 * this file inserted, for every interval (UTC days, weeks from Monday, months) and every grouping,
 * on a range cut mid-day at both ends (partial days read from the rows, whole ones from the rollup)
 * and on whole days; cancelled transactions counted, the method null while unpaid. And it stays
 * exact as transactions change after the rollup was built.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { GROUPINGS, INTERVALS, insertTransactions, model, sortRows, type Dimension, type Fact, type Interval, type StatsRow } from '../../support/analytics.js';
import { TransactionStatsDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();
let facts: Fact[];
let orgA: string;
let orgB: string;

const START = new Date('2025-12-20T00:00:00.000Z');
const END = new Date('2026-04-10T00:00:00.000Z');
/** Cut mid-day at both ends: the partial days come from the rows, the whole days from the rollup. */
const CUT = { from: new Date('2026-01-05T13:30:00.000Z'), to: new Date('2026-04-02T08:15:00.000Z') };
const WHOLE_DAYS = { from: new Date('2026-01-01T00:00:00.000Z'), to: new Date('2026-04-01T00:00:00.000Z') };

async function stats(range: { from: Date; to: Date }, interval: Interval, groupBy: Dimension[] | null, organizationId?: string): Promise<StatsRow[]> {
  const data = await graphqlDataTyped(gateway, TransactionStatsDocument, {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    interval,
    groupBy,
    organizationId,
  });
  return data.transactionStats;
}

beforeAll(async () => {
  orgA = (await gateway.createOrganization({ name: 'Stats A' })).id;
  orgB = (await gateway.createOrganization({ name: 'Stats B' })).id;
  facts = await insertTransactions(gateway, [orgA, orgB], 600, START, END, 19);
  // Exactly on the range's edges: `from` counts, `to` does not.
  const edges = [
    { organizationId: orgA, createdAt: CUT.from, status: 'paid', method: 'wave', amount: 7_000, fees: 70 },
    { organizationId: orgA, createdAt: CUT.to, status: 'paid', method: 'wave', amount: 9_000, fees: 90 },
    { organizationId: orgB, createdAt: WHOLE_DAYS.to, status: 'cancelled', method: null, amount: 1_234, fees: 0 },
  ] as const;
  await gateway.ctx.db.transaction.createMany({
    data: edges.map((e) => ({
      organizationId: e.organizationId,
      amount: BigInt(e.amount),
      fees: BigInt(e.fees),
      methodOfPayment: ['wave'],
      selectedPaymentMethod: e.method,
      status: e.status,
      createdAt: e.createdAt,
    })),
  });
  facts.push(...edges.map((e) => ({ ...e })));
});

describe('transactionStats against a model of the inserted rows', () => {
  for (const [label, range] of [
    ['a range cut mid-day', CUT],
    ['whole days', WHOLE_DAYS],
  ] as const) {
    for (const interval of INTERVALS) {
      it(`${label}, by ${interval}: every grouping matches the model`, async () => {
        for (const groupBy of GROUPINGS) {
          const answer = await stats(range, interval, groupBy);
          expect(sortRows(answer), `${interval} ${groupBy.join('+')}`).toEqual(model(facts, range, interval, groupBy));
          // In time order.
          expect(answer.map((row) => row.periodStart)).toEqual([...answer.map((row) => row.periodStart)].sort());
        }
      });
    }
  }

  it('counts a transaction created exactly at `from`, not one created exactly at `to`', async () => {
    const day = await stats({ from: CUT.from, to: new Date(CUT.from.getTime() + 1) }, 'DAY', null, orgA);
    expect(day).toEqual([{ periodStart: '2026-01-05T00:00:00.000Z', method: null, status: null, organizationId: null, count: 1, amount: 7_000, fees: 70 }]);
    const justBefore = await stats({ from: new Date(CUT.to.getTime() - 1), to: CUT.to }, 'DAY', null, orgA);
    expect(justBefore).toEqual([]);
  });

  it('counts cancelled transactions, and leaves the method null while unpaid', async () => {
    const rows = await stats(WHOLE_DAYS, 'MONTH', ['METHOD', 'STATUS']);
    const cancelled = rows.filter((row) => row.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    expect(cancelled.every((row) => row.method === null && row.fees === 0)).toBe(true);
    expect(rows.filter((row) => row.status === 'pending').every((row) => row.method === null)).toBe(true);
    expect(rows.filter((row) => row.status === 'paid').every((row) => row.method !== null)).toBe(true);
  });

  it('weeks start on Monday (UTC)', async () => {
    const rows = await stats(WHOLE_DAYS, 'WEEK', null);
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(new Date(row.periodStart).getUTCDay()).toBe(1);
  });

  it('names one organisation: only its transactions', async () => {
    expect(sortRows(await stats(CUT, 'DAY', ['METHOD'], orgB))).toEqual(model(facts, CUT, 'DAY', ['METHOD'], orgB));
  });
});

describe('the rollup stays exact as transactions change', () => {
  it('a payment, a cancellation, a new and a deleted transaction show in the next answer', async () => {
    const range = { from: new Date('2026-02-01T00:00:00.000Z'), to: new Date('2026-03-01T00:00:00.000Z') };
    const organization = (await gateway.createOrganization({ name: 'Stats changes' })).id;
    const local = await insertTransactions(gateway, [organization], 40, range.from, range.to, 7);
    expect(sortRows(await stats(range, 'DAY', ['METHOD', 'STATUS'], organization))).toEqual(model(local, range, 'DAY', ['METHOD', 'STATUS'], organization));

    const rows = await gateway.ctx.db.transaction.findMany({ where: { organizationId: organization }, orderBy: { createdAt: 'asc' } });
    const pending = rows.find((row) => row.status === 'pending')!;
    await gateway.ctx.db.transaction.update({
      where: { id: pending.id },
      data: { status: 'paid', selectedPaymentMethod: 'orange_money', fees: 55n, paidAt: new Date() },
    });
    const paid = rows.find((row) => row.status === 'paid' && row.id !== pending.id)!;
    await gateway.ctx.db.transaction.update({ where: { id: paid.id }, data: { status: 'refunded' } });
    const removed = rows.find((row) => row.status === 'cancelled')!;
    await gateway.ctx.db.transaction.delete({ where: { id: removed.id } });
    const added = await insertTransactions(gateway, [organization], 5, range.from, range.to, 8);

    const expected = [...local, ...added]
      .filter((fact) => !(fact.createdAt.getTime() === removed.createdAt.getTime() && fact.status === 'cancelled' && fact.amount === Number(removed.amount)))
      .map((fact) => {
        if (fact.createdAt.getTime() === pending.createdAt.getTime() && fact.status === 'pending' && fact.amount === Number(pending.amount))
          return { ...fact, status: 'paid', method: 'orange_money' as const, fees: 55 };
        if (fact.createdAt.getTime() === paid.createdAt.getTime() && fact.status === 'paid' && fact.amount === Number(paid.amount))
          return { ...fact, status: 'refunded' };
        return fact;
      });
    expect(sortRows(await stats(range, 'DAY', ['METHOD', 'STATUS'], organization))).toEqual(model(expected, range, 'DAY', ['METHOD', 'STATUS'], organization));
  });

  it('analysts asking at once while changes wait: every answer is the rows before or after them, and the rollup holds each group once', async () => {
    const range = { from: new Date('2026-03-01T00:00:00.000Z'), to: new Date('2026-03-15T00:00:00.000Z') };
    const organization = (await gateway.createOrganization({ name: 'Stats at once' })).id;
    const before = await insertTransactions(gateway, [organization], 30, range.from, range.to, 31);
    const expectedBefore = model(before, range, 'DAY', ['METHOD', 'STATUS'], organization);
    expect(sortRows(await stats(range, 'DAY', ['METHOD', 'STATUS'], organization))).toEqual(expectedBefore);
    const after = [...before, ...(await insertTransactions(gateway, [organization], 30, range.from, range.to, 32))];
    const expectedAfter = model(after, range, 'DAY', ['METHOD', 'STATUS'], organization);
    const answers = await Promise.all(Array.from({ length: 8 }, () => stats(range, 'DAY', ['METHOD', 'STATUS'], organization)));
    for (const answer of answers) expect([expectedBefore, expectedAfter]).toContainEqual(sortRows(answer));
    expect(sortRows(await stats(range, 'DAY', ['METHOD', 'STATUS'], organization))).toEqual(expectedAfter);
    const duplicates = await gateway.ctx.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM (SELECT 1 FROM "TransactionStatsDay" GROUP BY "organizationId", day, method, status HAVING count(*) > 1) d`;
    expect(duplicates[0]!.n).toBe(0);
  });

  it('a rollup built again from scratch answers the same', async () => {
    const before = await stats(CUT, 'WEEK', ['METHOD', 'STATUS', 'ORGANIZATION']);
    await gateway.ctx.db.analyticsRollup.deleteMany({});
    await gateway.ctx.db.transactionStatsDay.deleteMany({});
    expect(await stats(CUT, 'WEEK', ['METHOD', 'STATUS', 'ORGANIZATION'])).toEqual(before);
  });
});
