/**
 * GET /exports/transactions.csv holds exactly the rows the v2 list holds for the same filters, in
 * the list's order, as RFC 4180 CSV with a header line; a merchant sees only its organisation, an
 * operator every organisation or the one it names.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TRANSACTION_COLUMNS } from '../../../src/rest/exports/routes.js';
import { csvObjects } from '../../support/csv.js';
import { transactionBody, useGateway } from '../../support/gateway.js';

const gateway = useGateway();
let key: string;
let otherKey: string;
let organizationId: string;
let otherOrganizationId: string;
const ids: Record<'paid' | 'quoted' | 'cancelled' | 'formula' | 'plain' | 'other', string> = {} as never;

async function create(apiKey: string, overrides: Record<string, unknown>): Promise<string> {
  const response = await gateway.rest('POST', '/api/v2/transactions', { key: apiKey, body: transactionBody(overrides) });
  expect(response.status).toBe(200);
  return response.body.order_id;
}

beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'readAndWrite' });
  const other = await gateway.merchant({ scope: 'readAndWrite' });
  ({ key } = merchant);
  organizationId = merchant.organization.id;
  otherKey = other.key;
  otherOrganizationId = other.organization.id;

  ids.paid = await create(key, { products: [{ name: 'Thiéboudienne', price: 1500, quantity: 2 }] });
  ids.quoted = await create(key, {
    customer: { first_name: 'Ndeye, "La Grande"', last_name: 'Line\nBreak', phone: '+221771111111' },
    products: [
      { name: 'Riz, 5 kg', price: 4500, quantity: 1 },
      { name: 'Huile "Dinor"', price: 1500, quantity: 1 },
    ],
  });
  ids.cancelled = await create(key, { method_of_payment: ['orange_money'] });
  ids.formula = await create(key, { customer: { first_name: '=HYPERLINK("http://evil.example")', last_name: 'Sow', phone: '+221772222222' } });
  ids.plain = await create(key, { customer: undefined });
  ids.other = await create(otherKey, {});

  const db = gateway.ctx.db;
  await db.transaction.update({
    where: { id: ids.paid },
    data: {
      status: 'paid',
      selectedPaymentMethod: 'wave',
      fees: 30n,
      paidAt: new Date('2026-01-01T10:05:00.000Z'),
      createdAt: new Date('2026-01-01T10:00:00.000Z'),
    },
  });
  const cancel = await gateway.rest('DELETE', `/api/v2/transactions/${ids.cancelled}`, { key });
  expect(cancel.status).toBe(200);
});

async function exportCsv(query: string, token = key) {
  const response = await fetch(`${gateway.url}/exports/transactions.csv${query}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { response, text, ...(response.status === 200 ? csvObjects(text) : { header: [], rows: [] }) };
}

async function listIds(query: string): Promise<string[]> {
  const separator = query ? '&' : '?';
  const response = await gateway.rest('GET', `/api/v2/transactions${query}${separator}limit=100`, { key });
  expect(response.status).toBe(200);
  return response.body.transactions.map((transaction: { order_id: string }) => transaction.order_id);
}

describe('the transactions export', () => {
  it('answers CSV as an attachment, with the header line first', async () => {
    const { response, header, text } = await exportCsv('');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="transactions-\d{8}T\d{6}Z\.csv"$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(header).toEqual([...TRANSACTION_COLUMNS]);
    expect(text.startsWith(`${TRANSACTION_COLUMNS.join(',')}\r\n`)).toBe(true);
  });

  it.each([
    ['no filter', ''],
    ['status', '?status=paid'],
    ['payment method', '?payment_method=wave'],
    ['dates', '?start_date=2025-12-31T00:00:00Z&end_date=2026-01-02T00:00:00Z'],
    ['search in product names', '?search=thi%C3%A9bou'],
    ['search in customer names', '?search=ndeye'],
    ['cancelled ones asked for', '?include_deleted=true'],
    ['status cancelled', '?status=cancelled'],
    ['amounts', '?min_amount=3000&max_amount=3000'],
    ['a customer phone', '?customer_phone=%2B221772222222'],
  ])('holds the rows the v2 list holds, in its order (%s)', async (_name, query) => {
    const { rows } = await exportCsv(query);
    const listed = await listIds(query);
    expect(rows.map((row) => row.order_id)).toEqual(listed);
    expect(listed.length).toBeGreaterThan(0);
  });

  it('narrows by each filter (the list agreeing with an export that ignored them would prove nothing)', async () => {
    expect((await exportCsv('')).rows.map((row) => row.order_id).sort()).toEqual([ids.paid, ids.quoted, ids.formula, ids.plain].sort());
    expect((await exportCsv('?status=paid&payment_method=wave')).rows.map((row) => row.order_id)).toEqual([ids.paid]);
    expect((await exportCsv('?start_date=2025-12-31T00:00:00Z&end_date=2026-01-02T00:00:00Z')).rows.map((row) => row.order_id)).toEqual([ids.paid]);
    expect((await exportCsv('?search=thi%C3%A9bou')).rows.map((row) => row.order_id)).toEqual([ids.paid]);
    expect((await exportCsv('?status=cancelled')).rows.map((row) => row.order_id)).toEqual([ids.cancelled]);
    expect((await exportCsv('?status=refunded')).rows).toEqual([]);
  });

  it('writes a row with the v2 wire values: integer amounts, wire timestamps, the customer flattened', async () => {
    const { rows } = await exportCsv('?status=paid');
    const wire = (await gateway.rest('GET', `/api/v2/transactions/${ids.paid}`, { key })).body;
    expect(rows[0]).toEqual({
      order_id: ids.paid,
      organization_id: organizationId,
      amount: String(wire.amount),
      fees: '30',
      currency: 'XOF',
      transaction_status: 'paid',
      method_of_payment: 'wave;orange_money',
      selected_payment_method: 'wave',
      customer_first_name: wire.customer.first_name,
      customer_last_name: wire.customer.last_name,
      customer_phone: wire.customer.phone,
      product_count: '1',
      product_names: 'Thiéboudienne',
      is_escrow: 'false',
      is_merchant: 'false',
      fees_customer_side: 'false',
      success_url: wire.success_url,
      error_url: wire.error_url,
      created_at: '2026-01-01T10:00:00.000Z',
      updated_at: wire.updated_at,
      paid_at: '2026-01-01T10:05:00.000Z',
    });
    expect(wire.amount).toBe(3000);
  });

  it('quotes commas, quotes and line breaks as RFC 4180 says, and reads back to the same text', async () => {
    const { rows, text } = await exportCsv(`?search=${encodeURIComponent(ids.quoted)}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.customer_first_name).toBe('Ndeye, "La Grande"');
    expect(rows[0]!.customer_last_name).toBe('Line\nBreak');
    expect(rows[0]!.product_names).toBe('Riz, 5 kg; Huile "Dinor"');
    expect(rows[0]!.product_count).toBe('2');
    expect(text).toContain(',"Ndeye, ""La Grande""","Line\nBreak",');
  });

  it('defuses free text a spreadsheet would run as a formula, and keeps a phone number\'s "+"', async () => {
    const { rows } = await exportCsv(`?search=${encodeURIComponent(ids.formula)}`);
    expect(rows[0]!.customer_first_name).toBe(`'=HYPERLINK("http://evil.example")`);
    expect(rows[0]!.customer_phone).toBe('+221772222222');
  });

  it('writes empty fields for what the merchant did not give and for a transaction not yet paid', async () => {
    const { rows } = await exportCsv(`?search=${ids.plain}`);
    expect(rows[0]).toMatchObject({
      customer_first_name: '',
      customer_last_name: '',
      customer_phone: '',
      selected_payment_method: '',
      paid_at: '',
      transaction_status: 'pending',
    });
  });

  it("holds a merchant's own transactions only", async () => {
    const { rows } = await exportCsv('', otherKey);
    expect(rows.map((row) => row.order_id)).toEqual([ids.other]);
    expect(new Set(rows.map((row) => row.organization_id))).toEqual(new Set([otherOrganizationId]));
  });
});

describe('an operator', () => {
  it('exports every organisation with its token', async () => {
    const { response, rows } = await exportCsv('', gateway.adminToken);
    expect(response.status).toBe(200);
    const exported = new Set(rows.map((row) => row.order_id));
    for (const id of [ids.paid, ids.quoted, ids.formula, ids.plain, ids.other]) expect(exported.has(id)).toBe(true);
  });

  it('exports one organisation when organization_id names it, with the filters', async () => {
    expect((await exportCsv(`?organization_id=${otherOrganizationId}`, gateway.adminToken)).rows.map((row) => row.order_id)).toEqual([ids.other]);
    expect((await exportCsv(`?organization_id=${organizationId}&status=paid`, gateway.adminToken)).rows.map((row) => row.order_id)).toEqual([ids.paid]);
  });

  it('gets 404 for an organization_id that cannot be one', async () => {
    const { response, text } = await exportCsv('?organization_id=not-a-uuid', gateway.adminToken);
    expect(response.status).toBe(404);
    expect(JSON.parse(text)).toEqual({ error: 'Organization not found' });
  });
});
