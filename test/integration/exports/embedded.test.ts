/**
 * The embedded database (PGlite, no DATABASE_URL) has no cursor to stream through: its exports page
 * through the rows by keyset, batch after batch, and must hold every row once, in the list's order,
 * across batch boundaries, with the filters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_BATCH_ROWS } from '../../../src/domain/exports.js';
import { csvObjects } from '../../support/csv.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway({ embedded: true });
/** More than two batches, and rows sharing a creation time (the keyset must order them by id too). */
const TRANSACTIONS = 2 * EXPORT_BATCH_ROWS + 500;
const PAYOUTS = EXPORT_BATCH_ROWS + 200;
let key: string;
let payoutKey: string;

beforeAll(async () => {
  const { organization, key: readKey } = await gateway.merchant({ scope: 'read' });
  key = readKey;
  payoutKey = await gateway.createKey(organization.id, 'payout');
  // Four rows per second of creation time: ties that only the id orders.
  await gateway.ctx.db.$executeRawUnsafe(
    `INSERT INTO "Transaction" (id, "organizationId", amount, "methodOfPayment", status, "customerFirstName", "successUrl", "errorUrl", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1::uuid, 1000 + i, '{wave}'::"PaymentMethod"[], (CASE WHEN i % 2 = 0 THEN 'paid' ELSE 'pending' END)::"TransactionStatus",
            'Client ' || i, 'https://shop.example.sn/ok', 'https://shop.example.sn/ko',
            timestamptz '2026-06-01T00:00:00Z' + (i / 4) * interval '1 second', now()
     FROM generate_series(1, $2::int) i`,
    organization.id,
    TRANSACTIONS,
  );
  await gateway.ctx.db.$executeRawUnsafe(
    `INSERT INTO "Payout" (id, "organizationId", "selectedPaymentMethod", amount, "recipientPhone", status, "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1::uuid, 'wave', 5000 + i, '+221770000001', 'completed', timestamptz '2026-06-01T00:00:00Z' + (i / 3) * interval '1 second', now()
     FROM generate_series(1, $2::int) i`,
    organization.id,
    PAYOUTS,
  );
}, 60_000);

async function exportCsv(path: string, token: string) {
  const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return csvObjects(await response.text()).rows;
}

/** Newest first, ties by id descending: the list's order. */
const inListOrder = (rows: Record<string, string>[]): boolean =>
  rows.every((row, i) => {
    const before = rows[i - 1];
    return !before || before.created_at! > row.created_at! || (before.created_at === row.created_at && before.order_id! > row.order_id!);
  });

describe('exports on the embedded database', () => {
  it('hold every transaction once, in the list order, across batches', async () => {
    const rows = await exportCsv('/exports/transactions.csv', key);
    expect(rows).toHaveLength(TRANSACTIONS);
    expect(new Set(rows.map((row) => row.order_id)).size).toBe(TRANSACTIONS);
    expect(inListOrder(rows)).toBe(true);
  });

  it('apply the filters', async () => {
    const rows = await exportCsv('/exports/transactions.csv?status=paid&min_amount=2000', key);
    // Paid: even i; amount 1000 + i >= 2000: i from 1000 to TRANSACTIONS.
    expect(rows).toHaveLength(Array.from({ length: TRANSACTIONS }, (_, n) => n + 1).filter((i) => i % 2 === 0 && i >= 1000).length);
    expect(rows.every((row) => row.transaction_status === 'paid' && Number(row.amount) >= 2000)).toBe(true);
  });

  it('hold every payout once, in the list order, across batches', async () => {
    const rows = await exportCsv('/exports/payouts.csv', payoutKey);
    expect(rows).toHaveLength(PAYOUTS);
    expect(new Set(rows.map((row) => row.order_id)).size).toBe(PAYOUTS);
    expect(inListOrder(rows)).toBe(true);
  });
});
