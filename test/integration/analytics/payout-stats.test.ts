/**
 * payoutStats answers what the rows say: checked against a model computed here from the payouts
 * this file inserted, for every interval and grouping, on a range cut mid-day and on whole days;
 * every status counted (cancelled and failed too).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { GROUPINGS, INTERVALS, insertPayouts, model, sortRows, type Dimension, type Fact, type Interval, type StatsRow } from '../../support/analytics.js';
import { PayoutStatsDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();
let facts: Fact[];
let orgA: string;

const START = new Date('2026-05-25T00:00:00.000Z');
const END = new Date('2026-09-05T00:00:00.000Z');
const CUT = { from: new Date('2026-06-03T22:10:00.000Z'), to: new Date('2026-08-30T02:00:00.000Z') };
const WHOLE_DAYS = { from: new Date('2026-06-01T00:00:00.000Z'), to: new Date('2026-09-01T00:00:00.000Z') };

async function stats(range: { from: Date; to: Date }, interval: Interval, groupBy: Dimension[] | null, organizationId?: string): Promise<StatsRow[]> {
  const data = await graphqlDataTyped(gateway, PayoutStatsDocument, {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    interval,
    groupBy,
    organizationId,
  });
  return data.payoutStats;
}

beforeAll(async () => {
  orgA = (await gateway.createOrganization({ name: 'Payout stats A' })).id;
  const orgB = (await gateway.createOrganization({ name: 'Payout stats B' })).id;
  facts = await insertPayouts(gateway, [orgA, orgB], 400, START, END, 23);
});

describe('payoutStats against a model of the inserted payouts', () => {
  for (const [label, range] of [
    ['a range cut mid-day', CUT],
    ['whole days', WHOLE_DAYS],
  ] as const) {
    for (const interval of INTERVALS) {
      it(`${label}, by ${interval}: every grouping matches the model`, async () => {
        for (const groupBy of GROUPINGS) {
          expect(sortRows(await stats(range, interval, groupBy)), `${interval} ${groupBy.join('+')}`).toEqual(model(facts, range, interval, groupBy));
        }
      });
    }
  }

  it('counts every status, cancelled and failed included', async () => {
    const statuses = (await stats(WHOLE_DAYS, 'MONTH', ['STATUS'])).map((row) => row.status);
    expect(new Set(statuses)).toEqual(new Set(['pending', 'completed', 'failed', 'cancelled']));
  });

  it('names one organisation: only its payouts', async () => {
    expect(sortRows(await stats(CUT, 'WEEK', ['METHOD', 'STATUS'], orgA))).toEqual(model(facts, CUT, 'WEEK', ['METHOD', 'STATUS'], orgA));
  });
});
