/**
 * What the analytics tests share: rows a test inserts (seeded pseudo-random, so a failure
 * reproduces), and the model the answers are checked against, computed here in JavaScript from
 * those rows: UTC buckets (weeks from Monday), [from, to), the groups asked for.
 */
import type { PaymentMethod, PayoutStatus, TransactionStatus } from '../../src/generated/prisma/enums.js';
import type { TestGateway } from './gateway.js';

export type Interval = 'DAY' | 'WEEK' | 'MONTH';
export type Dimension = 'METHOD' | 'STATUS' | 'ORGANIZATION';
export const INTERVALS: Interval[] = ['DAY', 'WEEK', 'MONTH'];
/** Every subset of the dimensions (the empty one too). */
export const GROUPINGS: Dimension[][] = [
  [],
  ['METHOD'],
  ['STATUS'],
  ['ORGANIZATION'],
  ['METHOD', 'STATUS'],
  ['METHOD', 'ORGANIZATION'],
  ['STATUS', 'ORGANIZATION'],
  ['METHOD', 'STATUS', 'ORGANIZATION'],
];

const DAY_MS = 86_400_000;

/** mulberry32: a small seeded generator. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The start of the UTC bucket holding `at`: written here independently of the gateway's. */
function bucketOf(at: Date, interval: Interval): string {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  if (interval === 'MONTH') return new Date(Date.UTC(y, m, 1)).toISOString();
  const day = Date.UTC(y, m, at.getUTCDate());
  if (interval === 'DAY') return new Date(day).toISOString();
  const weekday = new Date(day).getUTCDay(); // 0 = Sunday
  const back = weekday === 0 ? 6 : weekday - 1;
  return new Date(day - back * DAY_MS).toISOString();
}

export interface Fact {
  organizationId: string;
  createdAt: Date;
  method: PaymentMethod | null;
  status: string;
  amount: number;
  fees: number;
}

export interface StatsRow {
  periodStart: string;
  method: string | null;
  status: string | null;
  organizationId: string | null;
  count: number;
  amount: number;
  fees: number;
}

const keyOf = (row: Omit<StatsRow, 'count' | 'amount' | 'fees'>) => JSON.stringify([row.periodStart, row.method, row.status, row.organizationId]);

/** The expected answer: facts in [from, to), bucketed and grouped, sorted by their key. */
export function model(facts: Fact[], range: { from: Date; to: Date }, interval: Interval, groupBy: Dimension[], organizationId?: string): StatsRow[] {
  const rows = new Map<string, StatsRow>();
  for (const fact of facts) {
    if (fact.createdAt < range.from || fact.createdAt >= range.to) continue;
    if (organizationId && fact.organizationId !== organizationId) continue;
    const group = {
      periodStart: bucketOf(fact.createdAt, interval),
      method: groupBy.includes('METHOD') ? fact.method : null,
      status: groupBy.includes('STATUS') ? fact.status : null,
      organizationId: groupBy.includes('ORGANIZATION') ? fact.organizationId : null,
    };
    const key = keyOf(group);
    const row = rows.get(key) ?? { ...group, count: 0, amount: 0, fees: 0 };
    row.count += 1;
    row.amount += fact.amount;
    row.fees += fact.fees;
    rows.set(key, row);
  }
  return sortRows([...rows.values()]);
}

export const sortRows = (rows: StatsRow[]): StatsRow[] => [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));

const TRANSACTION_STATUSES: TransactionStatus[] = ['pending', 'paid', 'paid_and_blocked', 'cancelled', 'refunded'];
const PAYOUT_STATUSES: PayoutStatus[] = ['pending', 'completed', 'failed', 'cancelled'];
const METHODS: PaymentMethod[] = ['wave', 'orange_money'];

/**
 * `count` transactions over [start, end) for the organisations, inserted through Prisma (the
 * rollup's trigger sees them as any insert); some on exact midnights. Answers the facts.
 */
export async function insertTransactions(
  gateway: TestGateway,
  organizationIds: string[],
  count: number,
  start: Date,
  end: Date,
  seed: number,
): Promise<Fact[]> {
  const random = seeded(seed);
  const span = end.getTime() - start.getTime();
  const facts: Fact[] = [];
  const data = Array.from({ length: count }, (_, i) => {
    const organizationId = organizationIds[i % organizationIds.length]!;
    // One in ten on an exact UTC midnight: the edge of a day bucket.
    let at = start.getTime() + Math.floor(random() * span);
    if (i % 10 === 0) at -= at % DAY_MS;
    const createdAt = new Date(at);
    const status = TRANSACTION_STATUSES[Math.floor(random() * TRANSACTION_STATUSES.length)]!;
    const paid = status === 'paid' || status === 'paid_and_blocked' || status === 'refunded';
    const method = paid ? METHODS[Math.floor(random() * METHODS.length)]! : null;
    const amount = 100 + Math.floor(random() * 50_000);
    const fees = paid ? Math.round(amount / 100) : 0;
    facts.push({ organizationId, createdAt, method, status, amount, fees });
    return {
      organizationId,
      amount: BigInt(amount),
      fees: BigInt(fees),
      methodOfPayment: METHODS,
      selectedPaymentMethod: method,
      status,
      isDeleted: status === 'cancelled',
      paidAt: paid ? new Date(at + 60_000) : null,
      createdAt,
    };
  });
  await gateway.ctx.db.transaction.createMany({ data });
  return facts;
}

/** The same for payouts (every status; the method is always the one used). */
export async function insertPayouts(gateway: TestGateway, organizationIds: string[], count: number, start: Date, end: Date, seed: number): Promise<Fact[]> {
  const random = seeded(seed);
  const span = end.getTime() - start.getTime();
  const facts: Fact[] = [];
  const data = Array.from({ length: count }, (_, i) => {
    const organizationId = organizationIds[i % organizationIds.length]!;
    let at = start.getTime() + Math.floor(random() * span);
    if (i % 10 === 0) at -= at % DAY_MS;
    const createdAt = new Date(at);
    const status = PAYOUT_STATUSES[Math.floor(random() * PAYOUT_STATUSES.length)]!;
    const method = METHODS[Math.floor(random() * METHODS.length)]!;
    const amount = 100 + Math.floor(random() * 50_000);
    const fees = Math.round(amount / 100);
    facts.push({ organizationId, createdAt, method, status, amount, fees });
    return { organizationId, selectedPaymentMethod: method, amount: BigInt(amount), fees: BigInt(fees), recipientPhone: '+221770000001', status, createdAt };
  });
  await gateway.ctx.db.payout.createMany({ data });
  return facts;
}

/** As raw text for bad-input.test.ts, which sends values the schema refuses (other tests run TransactionStatsDocument). */
export const TRANSACTION_STATS = `query($from: DateTime!, $to: DateTime!, $interval: StatsInterval!, $groupBy: [StatsDimension!], $organizationId: ID) {
  transactionStats(from: $from, to: $to, interval: $interval, groupBy: $groupBy, organizationId: $organizationId) {
    periodStart method status organizationId count amount fees
  }
}`;
