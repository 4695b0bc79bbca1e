/**
 * GET /exports/payouts.csv holds exactly the payouts the v2 list holds for the same filters, in the
 * list's order, with the v2 Payout's fields flattened; a merchant sees only its organisation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PAYOUT_COLUMNS } from '../../../src/rest/exports/routes.js';
import { csvObjects } from '../../support/csv.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
let key: string;
let otherKey: string;
let organizationId: string;
const ids: string[] = [];

beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'payout' });
  const other = await gateway.merchant({ scope: 'payout' });
  ({ key } = merchant);
  otherKey = other.key;
  organizationId = merchant.organization.id;
  const at = (day: number) => new Date(Date.UTC(2026, 0, day, 9, 0, 0));
  const rows = [
    {
      selectedPaymentMethod: 'wave',
      amount: 10_000n,
      fees: 100n,
      status: 'completed',
      recipientFirstName: 'Moussa',
      recipientLastName: 'Sow',
      recipientPhone: '+221770000001',
      reason: 'Salaire, janvier',
      paidAt: at(2),
      createdAt: at(1),
    },
    {
      selectedPaymentMethod: 'orange_money',
      amount: 25_000n,
      fees: 250n,
      status: 'failed',
      recipientFirstName: 'Awa',
      recipientLastName: null,
      recipientPhone: '+221770000000',
      reason: 'Avance "urgente"\nà rembourser',
      createdAt: at(3),
    },
    {
      selectedPaymentMethod: 'wave',
      amount: 5_000n,
      fees: 50n,
      status: 'pending',
      recipientFirstName: '@Fatou',
      recipientLastName: 'Fall',
      recipientPhone: '+221770000002',
      reason: '',
      createdAt: at(5),
    },
    {
      selectedPaymentMethod: 'wave',
      amount: 7_000n,
      fees: 70n,
      status: 'completed',
      recipientFirstName: 'Archivé',
      recipientLastName: 'Ba',
      recipientPhone: '+221770000003',
      reason: 'old',
      isDeleted: true,
      createdAt: at(4),
    },
  ] as const;
  for (const row of rows) ids.push((await gateway.ctx.db.payout.create({ data: { ...row, organizationId } })).id);
  await gateway.ctx.db.payout.create({
    data: { organizationId: other.organization.id, selectedPaymentMethod: 'wave', amount: 1_000n, recipientPhone: '+221770000009' },
  });
});

async function exportCsv(query: string, token = key) {
  const response = await fetch(`${gateway.url}/exports/payouts.csv${query}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { response, text, ...csvObjects(text) };
}

async function listIds(query: string): Promise<string[]> {
  const response = await gateway.rest('GET', `/api/v2/payouts${query}${query ? '&' : '?'}limit=100`, { key });
  expect(response.status).toBe(200);
  return response.body.payouts.map((payout: { order_id: string }) => payout.order_id);
}

describe('the payouts export', () => {
  it('answers CSV as an attachment, with the header line first', async () => {
    const { response, header } = await exportCsv('');
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="payouts-\d{8}T\d{6}Z\.csv"$/);
    expect(header).toEqual([...PAYOUT_COLUMNS]);
  });

  it.each([
    ['no filter', '', 3],
    ['status', '?status=completed', 1],
    ['payment method', '?payment_method=orange_money', 1],
    ['dates', '?start_date=2026-01-02T00:00:00Z&end_date=2026-01-04T00:00:00Z', 1],
    ['search in the reason', '?search=salaire', 1],
    ['recipient phone', '?recipient_phone=%2B221770000002', 1],
    ['archived ones asked for', '?include_deleted=true', 4],
    ['amounts', '?min_amount=6000', 2],
  ])('holds the payouts the v2 list holds, in its order (%s)', async (_name, query, count) => {
    const { rows } = await exportCsv(query);
    expect(rows.map((row) => row.order_id)).toEqual(await listIds(query));
    expect(rows).toHaveLength(count);
  });

  it('writes the v2 wire values, quoting what must be quoted', async () => {
    const { rows } = await exportCsv('?include_deleted=true');
    const byId = new Map(rows.map((row) => [row.order_id, row]));
    expect(byId.get(ids[0]!)).toEqual({
      order_id: ids[0],
      organization_id: organizationId,
      selected_payment_method: 'wave',
      amount: '10000',
      fees: '100',
      currency: 'XOF',
      payout_status: 'completed',
      recipient_first_name: 'Moussa',
      recipient_last_name: 'Sow',
      recipient_phone: '+221770000001',
      reason: 'Salaire, janvier',
      provider_reference: '',
      created_at: '2026-01-01T09:00:00.000Z',
      updated_at: byId.get(ids[0]!)!.updated_at,
      paid_at: '2026-01-02T09:00:00.000Z',
      is_deleted: 'false',
    });
    expect(byId.get(ids[1]!)).toMatchObject({ reason: 'Avance "urgente"\nà rembourser', recipient_last_name: '', paid_at: '' });
    expect(byId.get(ids[2]!)!.recipient_first_name).toBe("'@Fatou");
    expect(byId.get(ids[3]!)!.is_deleted).toBe('true');
  });

  it("holds a merchant's own payouts only", async () => {
    const { rows } = await exportCsv('', otherKey);
    expect(rows).toHaveLength(1);
    expect(ids).not.toContain(rows[0]!.order_id);
  });

  it('exports one organisation for an operator naming it', async () => {
    const { rows } = await exportCsv(`?organization_id=${organizationId}&include_deleted=true`, gateway.adminToken);
    expect(rows.map((row) => row.order_id).sort()).toEqual([...ids].sort());
  });
});
