/**
 * GET /payouts: every filter of the spec (status, payment_method, recipient_phone, min/max amount,
 * start/end date, include_deleted, search on order id, recipient name and phone, reason), newest
 * first, pagination (limit capped at 100), only the caller's organisation, and bad queries as a
 * clear 400.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCatalogueError } from '../../../support/assertions.js';
import { useGateway } from '../../../support/gateway.js';
import { PHONES, fundedMerchant, payoutBody, postPayout } from '../../../support/payouts.js';

const gateway = useGateway();

let key = '';
/** order ids by name, created oldest first. */
const ids: Record<string, string> = {};

const list = (query = '') => gateway.rest('GET', `/api/v2/payouts${query}`, { key });
const idsOf = async (query: string): Promise<string[]> => {
  const response = await list(query);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.payouts.map((payout: { order_id: string }) => payout.order_id);
};
const named = (...names: string[]) => names.map((name) => ids[name]);

beforeAll(async () => {
  const merchant = await fundedMerchant(gateway, { balance: 10_000_000 });
  key = merchant.key;
  const payouts: [string, Record<string, unknown>][] = [
    ['small', { amount: 1_000, recipient: { first_name: 'Awa', last_name: 'Diop', phone: '+221771112233' }, reason: 'Refund of order 17' }],
    ['failed', { amount: 5_000, recipient: { first_name: 'Ibrahima', last_name: 'Fall', phone: PHONES.fails }, reason: 'Supplier 100% paid' }],
    [
      'orange',
      {
        amount: 20_000,
        selected_payment_method: 'orange_money',
        recipient: { first_name: 'Fatou', last_name: 'Sow', phone: '+2250700000001' },
        reason: 'Salary',
      },
    ],
    ['review', { amount: 2_500_000, recipient: { first_name: 'Awa', last_name: 'Ba', phone: '+221771112233' }, reason: 'Large invoice' }],
    ['archived', { amount: 3_000, recipient: { phone: '+221770000002' }, reason: 'Archived one' }],
  ];
  for (const [name, body] of payouts) {
    const response = await postPayout(gateway, key, payoutBody(body));
    ids[name] = response.body.order_id ?? (await gateway.ctx.db.payout.findFirstOrThrow({ where: { recipientPhone: PHONES.fails } })).id;
  }
  // Spread over known instants (oldest first) and archive one, as an operator would.
  for (const [index, name] of Object.keys(ids).entries()) {
    await gateway.ctx.db.payout.update({ where: { id: ids[name] }, data: { createdAt: new Date(Date.UTC(2026, 0, 10 + index, 12)) } });
  }
  await gateway.ctx.db.payout.update({ where: { id: ids.archived }, data: { isDeleted: true } });
  // Another organisation's payouts never show.
  const other = await fundedMerchant(gateway);
  await postPayout(gateway, other.key, payoutBody({ recipient: { first_name: 'Awa', phone: '+221771112233' } }));
});

describe('GET /api/v2/payouts', () => {
  it('lists the organisation’s payouts newest first, archived ones hidden unless asked for', async () => {
    expect(await idsOf('')).toEqual(named('review', 'orange', 'failed', 'small'));
    expect(await idsOf('?include_deleted=true')).toEqual(named('archived', 'review', 'orange', 'failed', 'small'));
    expect(await idsOf('?include_deleted=false')).toEqual(named('review', 'orange', 'failed', 'small'));
  });

  it('filters by status and payment method', async () => {
    expect(await idsOf('?status=completed')).toEqual(named('orange', 'small'));
    expect(await idsOf('?status=pending')).toEqual(named('review'));
    expect(await idsOf('?status=failed')).toEqual(named('failed'));
    expect(await idsOf('?status=cancelled')).toEqual([]);
    expect(await idsOf('?payment_method=orange_money')).toEqual(named('orange'));
    expect(await idsOf('?payment_method=wave&status=completed')).toEqual(named('small'));
  });

  it('filters by exact recipient_phone (spaces and dashes ignored)', async () => {
    expect(await idsOf(`?recipient_phone=${encodeURIComponent('+221771112233')}`)).toEqual(named('review', 'small'));
    expect(await idsOf(`?recipient_phone=${encodeURIComponent('+221 77 111-22-33')}`)).toEqual(named('review', 'small'));
    expect(await idsOf(`?recipient_phone=${encodeURIComponent('+22177111223')}`)).toEqual([]);
    expect(await idsOf(`?recipient_phone=${encodeURIComponent(PHONES.fails)}`)).toEqual(named('failed'));
  });

  it('filters by amount and creation date, both inclusive', async () => {
    expect(await idsOf('?min_amount=5000&max_amount=20000')).toEqual(named('orange', 'failed'));
    expect(await idsOf('?min_amount=2500000')).toEqual(named('review'));
    expect(await idsOf('?start_date=2026-01-11T12:00:00Z&end_date=2026-01-12T12:00:00Z')).toEqual(named('orange', 'failed'));
    expect(await idsOf(`?start_date=${encodeURIComponent('2026-01-13T13:00:00+01:00')}`)).toEqual(named('review'));
  });

  it('searches the order id, the recipient’s names and phone, and the reason (literally, any case)', async () => {
    expect(await idsOf('?search=awa')).toEqual(named('review', 'small'));
    expect(await idsOf('?search=SOW')).toEqual(named('orange'));
    expect(await idsOf('?search=invoice')).toEqual(named('review'));
    expect(await idsOf('?search=100%25')).toEqual(named('failed'));
    expect(await idsOf('?search=_')).toEqual([]);
    expect(await idsOf('?search=0700000001')).toEqual(named('orange'));
    expect(await idsOf(`?search=${ids.failed}`)).toEqual(named('failed'));
    expect(await idsOf('?search=archived&include_deleted=true')).toEqual(named('archived'));
  });

  it('paginates (limit above 100 is capped) and reports totals', async () => {
    const first = await list('?limit=3');
    expect(first.body.pagination).toEqual({ page: 1, limit: 3, total_count: 4, total_pages: 2 });
    const second = await list('?limit=3&page=2');
    expect(second.body.payouts.map((payout: { order_id: string }) => payout.order_id)).toEqual(named('small'));
    expect((await list('?limit=1000')).body.pagination).toEqual({ page: 1, limit: 100, total_count: 4, total_pages: 1 });
    expect((await list('?page=9')).body.payouts).toEqual([]);
  });

  it('refuses malformed queries with 400, never 500', async () => {
    const bad: [string, string][] = [
      ['?page=0', 'page must be an integer from 1 to 100000'],
      ['?limit=0', 'limit must be a positive integer'],
      ['?page=abc', 'page must be an integer'],
      ['?status=paid', 'status has an unsupported value'],
      ['?payment_method=bank', 'payment_method has an unsupported value'],
      ['?min_amount=-1', 'min_amount must be an integer from 0 to 1000000000000'],
      ['?min_amount=10&max_amount=5', 'min_amount is greater than max_amount'],
      ['?start_date=yesterday', 'start_date must be an RFC 3339 date-time (encode "+" as %2B, or use Z) or a date (YYYY-MM-DD)'],
      ['?start_date=2026-01-12T00:00:00Z&end_date=2026-01-11T00:00:00Z', 'start_date is after end_date'],
      ['?include_deleted=yes', 'include_deleted must be true or false'],
      ['?status=pending&status=failed', 'status is given more than once'],
      [`?search=${'x'.repeat(101)}`, 'search is longer than 100 characters'],
      ['?recipient_phone=%00', 'recipient_phone contains a NUL character'],
    ];
    for (const [query, detail] of bad) expectCatalogueError(await list(query), 'invalid_query', detail);
  });
});
