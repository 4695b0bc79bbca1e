/**
 * What an analyst asks next, checked against values worked out by hand from a few transactions:
 * conversion (paid / created) by method, time from creation to payment (median, p90), the
 * organisations with the largest paid volume, and refunds over time.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PaymentMethod, RefundStatus, TransactionStatus } from '../../../src/generated/prisma/enums.js';
import { useGateway } from '../../support/gateway.js';
import { ConversionStatsDocument, RefundStatsDocument, TimeToPayStatsDocument, TopOrganizationsDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();
let orgX: string;
let orgY: string;
let orgZ: string;

const MARCH = { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' };

interface Row {
  organizationId: string;
  offered: PaymentMethod[];
  method: PaymentMethod | null;
  status: TransactionStatus;
  createdAt: string;
  /** Seconds from creation to payment (paid ones). */
  paidAfter?: number;
  amount: number;
  fees: number;
}

async function insert(rows: Row[]): Promise<string[]> {
  const ids: string[] = [];
  for (const row of rows) {
    const createdAt = new Date(row.createdAt);
    const created = await gateway.ctx.db.transaction.create({
      data: {
        organizationId: row.organizationId,
        methodOfPayment: row.offered,
        selectedPaymentMethod: row.method,
        status: row.status,
        amount: BigInt(row.amount),
        fees: BigInt(row.fees),
        createdAt,
        paidAt: row.paidAfter === undefined ? null : new Date(createdAt.getTime() + row.paidAfter * 1000),
      },
    });
    ids.push(created.id);
  }
  return ids;
}

async function refund(transactionId: string, organizationId: string, amount: number, method: PaymentMethod, status: RefundStatus, at: string) {
  await gateway.ctx.db.refund.create({
    data: { transactionId, organizationId, amount: BigInt(amount), method, status, createdAt: new Date(at), updatedAt: new Date(at) },
  });
}

beforeAll(async () => {
  orgX = (await gateway.createOrganization({ name: 'Boutique X' })).id;
  orgY = (await gateway.createOrganization({ name: 'Boutique Y' })).id;
  orgZ = (await gateway.createOrganization({ name: 'Boutique Z' })).id;
  const x = await insert([
    {
      organizationId: orgX,
      offered: ['wave', 'orange_money'],
      method: 'wave',
      status: 'paid',
      createdAt: '2026-03-10T10:00:00.000Z',
      paidAfter: 60,
      amount: 10_000,
      fees: 100,
    },
    {
      organizationId: orgX,
      offered: ['wave'],
      method: 'wave',
      status: 'refunded',
      createdAt: '2026-03-10T11:00:00.000Z',
      paidAfter: 180,
      amount: 20_000,
      fees: 200,
    },
    {
      organizationId: orgX,
      offered: ['wave', 'orange_money'],
      method: 'orange_money',
      status: 'paid_and_blocked',
      createdAt: '2026-03-10T12:00:00.000Z',
      paidAfter: 600,
      amount: 5_000,
      fees: 75,
    },
    { organizationId: orgX, offered: ['orange_money'], method: null, status: 'pending', createdAt: '2026-03-10T13:00:00.000Z', amount: 3_000, fees: 0 },
    {
      organizationId: orgX,
      offered: ['wave', 'orange_money'],
      method: null,
      status: 'cancelled',
      createdAt: '2026-03-10T14:00:00.000Z',
      amount: 4_000,
      fees: 0,
    },
    { organizationId: orgX, offered: ['wave'], method: 'wave', status: 'paid', createdAt: '2026-03-10T15:00:00.000Z', paidAfter: 300, amount: 1_000, fees: 10 },
    // Outside March: in no answer below.
    { organizationId: orgX, offered: ['wave'], method: 'wave', status: 'paid', createdAt: '2026-04-01T00:00:00.000Z', paidAfter: 5, amount: 77_000, fees: 770 },
  ]);
  const y = await insert([
    {
      organizationId: orgY,
      offered: ['orange_money'],
      method: 'orange_money',
      status: 'refunded',
      createdAt: '2026-03-20T09:00:00.000Z',
      paidAfter: 30,
      amount: 50_000,
      fees: 750,
    },
    { organizationId: orgY, offered: ['wave'], method: null, status: 'pending', createdAt: '2026-03-20T10:00:00.000Z', amount: 99_999, fees: 0 },
  ]);
  await insert([
    {
      organizationId: orgZ,
      offered: ['wave'],
      method: 'wave',
      status: 'paid',
      createdAt: '2026-03-05T08:00:00.000Z',
      paidAfter: 90,
      amount: 12_000,
      fees: 120,
    },
  ]);
  // Refunds: X's second transaction on Thursday 12 March, Y's on Monday 16 March at midnight; a failed one is no refund.
  await refund(x[1]!, orgX, 20_000, 'wave', 'succeeded', '2026-03-12T09:00:00.000Z');
  await refund(x[2]!, orgX, 5_000, 'orange_money', 'failed', '2026-03-12T10:00:00.000Z');
  await refund(y[0]!, orgY, 50_000, 'orange_money', 'succeeded', '2026-03-16T00:00:00.000Z');
});

describe('conversion by method', () => {
  it('counts a transaction as created for each method it offered and as paid for the one it was paid with', async () => {
    const data = await graphqlDataTyped(gateway, ConversionStatsDocument, { ...MARCH, organizationId: orgX });
    expect(data.conversionStats).toEqual([
      // Offered by 1, 2, 3, 5, 6; paid with wave: 1, 2 (refunded since), 6.
      { method: 'wave', created: 5, paid: 3, rate: 0.6 },
      // Offered by 1, 3, 4, 5; paid with it: 3 (held in escrow).
      { method: 'orange_money', created: 4, paid: 1, rate: 0.25 },
      // Every transaction: 6 created, 4 ever paid.
      { method: null, created: 6, paid: 4, rate: 4 / 6 },
    ]);
  });
});

describe('time from creation to payment', () => {
  it('answers the median and the 90th percentile per method and over all', async () => {
    const data = await graphqlDataTyped(gateway, TimeToPayStatsDocument, { ...MARCH, organizationId: orgX });
    expect(data.timeToPayStats).toEqual([
      // 60, 180, 300 s: median 180; p90 at 0.9 x 2 = 1.8 -> 180 + 0.8 x 120 = 276.
      { method: 'wave', count: 3, medianSeconds: 180, p90Seconds: 276 },
      { method: 'orange_money', count: 1, medianSeconds: 600, p90Seconds: 600 },
      // 60, 180, 300, 600 s: median 240; p90 at 0.9 x 3 = 2.7 -> 300 + 0.7 x 300 = 510.
      { method: null, count: 4, medianSeconds: 240, p90Seconds: 510 },
    ]);
  });

  it('answers no row when nothing was paid in the range', async () => {
    const data = await graphqlDataTyped(gateway, TimeToPayStatsDocument, {
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-02-01T00:00:00.000Z',
      organizationId: orgX,
    });
    expect(data.timeToPayStats).toEqual([]);
  });
});

describe('top organisations by paid volume', () => {
  it('ranks by the paid volume of the transactions created in the range, largest first', async () => {
    const data = await graphqlDataTyped(gateway, TopOrganizationsDocument, MARCH);
    expect(data.topOrganizations).toEqual([
      // Refunded since, but it was paid: volume.
      { organizationId: orgY, name: 'Boutique Y', count: 1, amount: 50_000, fees: 750 },
      // 10,000 + 20,000 + 5,000 + 1,000; pending and cancelled are not volume, April is outside.
      { organizationId: orgX, name: 'Boutique X', count: 4, amount: 36_000, fees: 385 },
      { organizationId: orgZ, name: 'Boutique Z', count: 1, amount: 12_000, fees: 120 },
    ]);
  });

  it('takes the limit, and a range cut mid-day', async () => {
    const cut = await graphqlDataTyped(gateway, TopOrganizationsDocument, { from: '2026-03-10T10:30:00.000Z', to: MARCH.to, limit: 2 });
    expect(cut.topOrganizations.map((row: { organizationId: string; amount: number }) => [row.organizationId, row.amount])).toEqual([
      [orgY, 50_000],
      [orgX, 26_000],
    ]);
  });
});

describe('refunds over time', () => {
  it('counts succeeded refunds in the week (from Monday) they succeeded, by method', async () => {
    const data = await graphqlDataTyped(gateway, RefundStatsDocument, { ...MARCH, interval: 'WEEK', groupBy: ['METHOD'] });
    expect(data.refundStats).toEqual([
      { periodStart: '2026-03-09T00:00:00.000Z', method: 'wave', organizationId: null, count: 1, amount: 20_000 },
      { periodStart: '2026-03-16T00:00:00.000Z', method: 'orange_money', organizationId: null, count: 1, amount: 50_000 },
    ]);
  });

  it('reads one organisation by day, and leaves out failed refunds', async () => {
    const data = await graphqlDataTyped(gateway, RefundStatsDocument, { ...MARCH, interval: 'DAY', organizationId: orgX });
    expect(data.refundStats).toEqual([{ periodStart: '2026-03-12T00:00:00.000Z', method: null, organizationId: null, count: 1, amount: 20_000 }]);
  });
});
