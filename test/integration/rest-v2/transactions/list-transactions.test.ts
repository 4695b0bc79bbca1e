import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestGateway } from '../../../support/gateway.js';
import { expectSomeError, newestFirstIds } from '../../../support/assertions.js';
import { createOk, oneProduct } from './helpers.js';

const gateway = useGateway();

const FULL_FIELDS = [
  'amount',
  'created_at',
  'currency',
  'customer',
  'error_url',
  'fees',
  'fees_customer_side',
  'is_escrow',
  'is_merchant',
  'method_of_payment',
  'order_id',
  'paid_at',
  'products',
  'selected_payment_method',
  'success_url',
  'transaction_status',
  'updated_at',
];

/** Lists with these query parameters (URL-encoded here), or with a query string sent exactly as given. */
const list = (key: string, query: Record<string, string> | string = {}) => {
  const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return gateway.rest('GET', `/api/v2/transactions${search ? `?${search}` : ''}`, { key });
};

const idsOf = (response: { body: any }): string[] => response.body.transactions.map((transaction: any) => transaction.order_id);

/** A verified merchant: the monthly limit of unverified organisations is not what these tests are about. */
const merchant = (options: Parameters<TestGateway['merchant']>[0] = {}) => gateway.merchant({ verified: true, ...options });

async function markPaid(orderId: string, method: 'wave' | 'orange_money', status: 'paid' | 'paid_and_blocked' | 'refunded' = 'paid') {
  await gateway.ctx.db.transaction.update({ where: { id: orderId }, data: { status, selectedPaymentMethod: method, paidAt: new Date() } });
}

describe('GET /api/v2/transactions orders and paginates', () => {
  it('lists newest first in the full shape, 20 per page by default, with the pagination object', async () => {
    const { key } = await merchant();
    const created: { order_id: string; created_at: string }[] = [];
    for (let index = 0; index < 21; index += 1) created.push(await createOk(gateway, key, { products: oneProduct(100 + index) }));
    const newestFirst = newestFirstIds(
      created,
      (transaction) => transaction.created_at,
      (transaction) => transaction.order_id,
    );

    const first = await list(key);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['pagination', 'transactions']);
    expect(first.body.pagination).toEqual({ page: 1, limit: 20, total_count: 21, total_pages: 2 });
    expect(idsOf(first)).toEqual(newestFirst.slice(0, 20));
    for (const transaction of first.body.transactions) expect(Object.keys(transaction).sort()).toEqual(FULL_FIELDS);
    const times = first.body.transactions.map((transaction: any) => Date.parse(transaction.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const second = await list(key, { page: '2' });
    expect(second.status).toBe(200);
    expect(second.body.pagination).toEqual({ page: 2, limit: 20, total_count: 21, total_pages: 2 });
    expect(idsOf(second)).toEqual(newestFirst.slice(20));

    const middle = await list(key, { page: '3', limit: '5' });
    expect(middle.body.pagination).toEqual({ page: 3, limit: 5, total_count: 21, total_pages: 5 });
    expect(idsOf(middle)).toEqual(newestFirst.slice(10, 15));

    const capped = await list(key, { limit: '500' });
    expect(capped.status).toBe(200);
    expect(capped.body.pagination).toEqual({ page: 1, limit: 100, total_count: 21, total_pages: 1 });
    expect(idsOf(capped)).toEqual(newestFirst);

    const beyond = await list(key, { page: '9' });
    expect(beyond.status).toBe(200);
    expect(beyond.body.transactions).toEqual([]);
    expect(beyond.body.pagination).toMatchObject({ page: 9, limit: 20, total_count: 21 });
  });

  it('caps limit at exactly 100, however large the integer asked for', async () => {
    const { key } = await merchant();
    await createOk(gateway, key);
    for (const limit of ['100', '101', '1000000', '10000000000000000']) {
      const response = await list(key, { limit });
      expect({ limit, status: response.status, pagination: response.body.pagination }).toMatchObject({ limit, status: 200, pagination: { limit: 100 } });
    }
  });

  it('answers an empty list for an organisation without transactions', async () => {
    const { key } = await merchant();
    const response = await list(key);
    expect(response.status).toBe(200);
    expect(response.body.transactions).toEqual([]);
    expect(response.body.pagination).toMatchObject({ page: 1, limit: 20, total_count: 0 });
  });

  it.each([['page=0'], ['limit=0'], ['page=abc'], ['limit=abc'], ['page=-1'], ['limit=-5'], ['page=1.5'], ['limit=2.5']])(
    'refuses %s with 400 {error}',
    async (query) => {
      const { key } = await merchant();
      expectSomeError(await list(key, query), 400);
    },
  );
});

describe('GET /api/v2/transactions filters', () => {
  it('by status', async () => {
    const { key } = await merchant();
    const pending = (await createOk(gateway, key)).order_id;
    const paid = (await createOk(gateway, key)).order_id;
    const cancelled = (await createOk(gateway, key)).order_id;
    await markPaid(paid, 'wave');
    expect((await gateway.rest('DELETE', `/api/v2/transactions/${cancelled}`, { key })).status).toBe(200);

    expect(idsOf(await list(key, { status: 'pending' }))).toEqual([pending]);
    const paidList = await list(key, { status: 'paid' });
    expect(idsOf(paidList)).toEqual([paid]);
    expect(paidList.body.pagination.total_count).toBe(1);
    expect(idsOf(await list(key, { status: 'refunded' }))).toEqual([]);
    expect(idsOf(await list(key, { status: 'cancelled', include_deleted: 'true' }))).toEqual([cancelled]);
  });

  it('refuses an unknown status with 400 {error}', async () => {
    const { key } = await merchant();
    expectSomeError(await list(key, { status: 'completed' }), 400);
  });

  it('by payment_method, the method the customer paid with', async () => {
    const { key } = await merchant();
    const first = (await createOk(gateway, key)).order_id;
    const second = (await createOk(gateway, key)).order_id;
    await createOk(gateway, key);

    // Nothing paid yet: both methods are offered, none was used.
    expect(idsOf(await list(key, { payment_method: 'wave' }))).toEqual([]);
    expect(idsOf(await list(key, { payment_method: 'orange_money' }))).toEqual([]);

    await markPaid(first, 'wave');
    await markPaid(second, 'orange_money', 'paid_and_blocked');
    expect(idsOf(await list(key, { payment_method: 'wave' }))).toEqual([first]);
    expect(idsOf(await list(key, { payment_method: 'orange_money' }))).toEqual([second]);
  });

  it('refuses an unknown payment_method with 400 {error}', async () => {
    const { key } = await merchant();
    expectSomeError(await list(key, { payment_method: 'bank' }), 400);
  });

  it('by customer_phone, exact match only', async () => {
    const { key } = await merchant();
    const awa = (await createOk(gateway, key, { customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234567' } })).order_id;
    await createOk(gateway, key, { customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234568' } });
    await createOk(gateway, key, { customer: undefined });

    const exact = await list(key, { customer_phone: '+221771234567' });
    expect(idsOf(exact)).toEqual([awa]);
    expect(exact.body.pagination.total_count).toBe(1);
    expect(idsOf(await list(key, { customer_phone: '+22177123456' }))).toEqual([]);
    expect(idsOf(await list(key, { customer_phone: '771234567' }))).toEqual([]);
  });

  it('by min_amount and max_amount, both inclusive', async () => {
    const { key } = await merchant();
    const hundred = (await createOk(gateway, key, { products: oneProduct(100) })).order_id;
    const twoHundred = (await createOk(gateway, key, { products: oneProduct(100, 2) })).order_id;
    const threeHundred = (await createOk(gateway, key, { products: oneProduct(300) })).order_id;

    expect(idsOf(await list(key, { min_amount: '200' }))).toEqual([threeHundred, twoHundred]);
    expect(idsOf(await list(key, { max_amount: '200' }))).toEqual([twoHundred, hundred]);
    expect(idsOf(await list(key, { min_amount: '200', max_amount: '200' }))).toEqual([twoHundred]);
    expect(idsOf(await list(key, { min_amount: '101', max_amount: '299' }))).toEqual([twoHundred]);
    expect(idsOf(await list(key, { min_amount: '301' }))).toEqual([]);
  });

  it.each([['min_amount=abc'], ['max_amount=1.5'], ['min_amount=ten']])('refuses %s with 400 {error}', async (query) => {
    const { key } = await merchant();
    expectSomeError(await list(key, query), 400);
  });

  describe('by start_date and end_date on created_at', () => {
    let key: string;
    let january: string;
    let february: string;
    let march: string;

    beforeAll(async () => {
      ({ key } = await merchant());
      january = (await createOk(gateway, key)).order_id;
      february = (await createOk(gateway, key)).order_id;
      march = (await createOk(gateway, key)).order_id;
      const dates: Array<[string, string]> = [
        [january, '2024-01-10T00:00:00.000Z'],
        [february, '2024-02-10T00:00:00.000Z'],
        [march, '2024-03-10T00:00:00.000Z'],
      ];
      for (const [id, date] of dates) await gateway.ctx.db.transaction.update({ where: { id }, data: { createdAt: new Date(date) } });
    });

    it('with UTC (Z) bounds, both inclusive', async () => {
      expect(idsOf(await list(key, { start_date: '2024-02-10T00:00:00Z' }))).toEqual([march, february]);
      expect(idsOf(await list(key, { end_date: '2024-02-10T00:00:00Z' }))).toEqual([february, january]);
      expect(idsOf(await list(key, { start_date: '2024-02-01T00:00:00Z', end_date: '2024-02-28T23:59:59Z' }))).toEqual([february]);
      expect(idsOf(await list(key, { start_date: '2024-02-10T00:00:00.001Z' }))).toEqual([march]);
      expect(idsOf(await list(key, { start_date: '2024-04-01T00:00:00Z' }))).toEqual([]);
    });

    it('with a bare date (YYYY-MM-DD) as that whole UTC day: its start for start_date, its end for end_date', async () => {
      // February's transaction is at 2024-02-10T00:00:00.000Z; one more at the day's last millisecond.
      const lastMillisecond = (await createOk(gateway, key)).order_id;
      await gateway.ctx.db.transaction.update({ where: { id: lastMillisecond }, data: { createdAt: new Date('2024-02-10T23:59:59.999Z') } });
      try {
        expect(idsOf(await list(key, { start_date: '2024-02-10', end_date: '2024-02-10' }))).toEqual([lastMillisecond, february]);
        expect(idsOf(await list(key, { end_date: '2024-02-10' }))).toEqual([lastMillisecond, february, january]);
        expect(idsOf(await list(key, { end_date: '2024-02-09' }))).toEqual([january]);
        expect(idsOf(await list(key, { start_date: '2024-02-11' }))).toEqual([march]);
        expect(idsOf(await list(key, { start_date: '2024-02-10' }))).toEqual([march, lastMillisecond, february]);
      } finally {
        await gateway.ctx.db.transaction.delete({ where: { id: lastMillisecond } });
      }
      expect((await list(key, { start_date: '2024-02-30' })).body).toEqual({
        error: 'Invalid query parameter: start_date must be an RFC 3339 date-time (encode "+" as %2B, or use Z) or a date (YYYY-MM-DD)',
      });
    });

    it('with an offset whose plus sign is URL-encoded (%2B)', async () => {
      // 02:00 at +02:00 is midnight UTC: February's transaction is on the bound.
      expect(idsOf(await list(key, 'start_date=2024-02-10T02:00:00%2B02:00'))).toEqual([march, february]);
      expect(idsOf(await list(key, 'start_date=2024-02-10T02:00:01%2B02:00'))).toEqual([march]);
      expect(idsOf(await list(key, 'end_date=2024-02-10T01:59:59%2B02:00'))).toEqual([january]);
    });

    it('with a negative offset, which needs no encoding', async () => {
      expect(idsOf(await list(key, 'start_date=2024-02-09T23:00:00-01:00'))).toEqual([march, february]);
    });

    it('refuses an unencoded plus sign (it arrives as a space) with 400 {error}', async () => {
      expectSomeError(await list(key, 'start_date=2024-02-10T02:00:00+02:00'), 400);
      expectSomeError(await list(key, 'end_date=2024-02-10T02:00:00+02:00'), 400);
    });

    it.each([['start_date=yesterday'], ['end_date=2024-13-45T00:00:00Z'], ['start_date=1707523200']])('refuses %s with 400 {error}', async (query) => {
      expectSomeError(await list(key, query), 400);
    });

    it.each([['start_date=2024-02-30T00:00:00Z'], ['end_date=2023-02-29T00:00:00Z'], ['start_date=2024-04-31T00:00:00Z']])(
      'refuses the impossible calendar date in %s with 400 {error} instead of rolling it over to the next month',
      async (query) => {
        expectSomeError(await list(key, query), 400);
      },
    );

    it('accepts the lowercase t and z that RFC 3339 allows', async () => {
      expect(idsOf(await list(key, { start_date: '2024-02-10t00:00:00z' }))).toEqual([march, february]);
    });
  });

  it('by is_escrow', async () => {
    const { key } = await merchant({ escrowEnabled: true });
    const escrow = (await createOk(gateway, key, { is_escrow: true })).order_id;
    const plain = (await createOk(gateway, key, { is_escrow: false })).order_id;
    expect(idsOf(await list(key, { is_escrow: 'true' }))).toEqual([escrow]);
    expect(idsOf(await list(key, { is_escrow: 'false' }))).toEqual([plain]);
    expectSomeError(await list(key, { is_escrow: 'yes' }), 400);
  });

  it('by is_merchant', async () => {
    const { key } = await merchant();
    const merchantOne = (await createOk(gateway, key, { is_merchant: true })).order_id;
    const customerOne = (await createOk(gateway, key)).order_id;
    expect(idsOf(await list(key, { is_merchant: 'true' }))).toEqual([merchantOne]);
    expect(idsOf(await list(key, { is_merchant: 'false' }))).toEqual([customerOne]);
  });

  it.each([['is_merchant=yes'], ['is_merchant=1'], ['is_escrow=TRUEISH'], ['include_deleted=yes']])('refuses %s with 400 {error}', async (query) => {
    const { key } = await merchant();
    expectSomeError(await list(key, query), 400);
  });

  it('hides cancelled transactions unless include_deleted=true', async () => {
    const { key } = await merchant();
    const kept = (await createOk(gateway, key)).order_id;
    const cancelled = (await createOk(gateway, key)).order_id;
    expect((await gateway.rest('DELETE', `/api/v2/transactions/${cancelled}`, { key })).status).toBe(200);

    const hidden = await list(key);
    expect(idsOf(hidden)).toEqual([kept]);
    expect(hidden.body.pagination.total_count).toBe(1);
    expect(idsOf(await list(key, { include_deleted: 'false' }))).toEqual([kept]);

    const shown = await list(key, { include_deleted: 'true' });
    expect(idsOf(shown)).toEqual([cancelled, kept]);
    expect(shown.body.pagination.total_count).toBe(2);
    expect(shown.body.transactions[0].transaction_status).toBe('cancelled');
  });

  it('combines filters with AND', async () => {
    const { key } = await merchant();
    const small = (await createOk(gateway, key, { products: oneProduct(100), is_merchant: true })).order_id;
    await createOk(gateway, key, { products: oneProduct(5000), is_merchant: true });
    await createOk(gateway, key, { products: oneProduct(100) });
    expect(idsOf(await list(key, { is_merchant: 'true', max_amount: '100', status: 'pending' }))).toEqual([small]);
  });
});

describe('GET /api/v2/transactions search', () => {
  let key: string;
  let awa: string;
  let moussa: string;
  let anonymous: string;

  beforeAll(async () => {
    ({ key } = await merchant());
    awa = (
      await createOk(gateway, key, {
        customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771111111' },
        products: [{ name: 'Bissap juice', price: 1500, quantity: 1 }],
      })
    ).order_id;
    moussa = (
      await createOk(gateway, key, {
        customer: { first_name: 'Moussa', last_name: 'Ndiaye', phone: '+221772222222' },
        products: [{ name: 'Thiakry', price: 800, quantity: 2 }],
      })
    ).order_id;
    anonymous = (await createOk(gateway, key, { customer: undefined, products: [{ name: 'Pastels', price: 500, quantity: 3 }] })).order_id;
  });

  it('matches the customer first name, case-insensitively', async () => {
    expect(idsOf(await list(key, { search: 'awa' }))).toEqual([awa]);
    expect(idsOf(await list(key, { search: 'MOUSSA' }))).toEqual([moussa]);
  });

  it('matches the customer last name, case-insensitively', async () => {
    expect(idsOf(await list(key, { search: 'ndiaye' }))).toEqual([moussa]);
    expect(idsOf(await list(key, { search: 'DIOP' }))).toEqual([awa]);
  });

  it('matches the customer phone', async () => {
    const response = await list(key, { search: '+221772222222' });
    expect(idsOf(response)).toEqual([moussa]);
    expect(response.body.pagination.total_count).toBe(1);
  });

  it('matches a product name, case-insensitively', async () => {
    expect(idsOf(await list(key, { search: 'thiakry' }))).toEqual([moussa]);
    expect(idsOf(await list(key, { search: 'PASTELS' }))).toEqual([anonymous]);
  });

  it('matches the full order id', async () => {
    expect(idsOf(await list(key, { search: anonymous }))).toEqual([anonymous]);
  });

  it('treats % and _ as literal characters, not as wildcards', async () => {
    for (const search of ['%', '_', 'A%a', 'Aw_']) {
      const response = await list(key, { search });
      expect({ search, status: response.status, ids: idsOf(response) }).toEqual({ search, status: 200, ids: [] });
    }
  });

  it('answers an empty list when nothing matches', async () => {
    const response = await list(key, { search: 'Zanzibar' });
    expect(response.status).toBe(200);
    expect(response.body.transactions).toEqual([]);
    expect(response.body.pagination.total_count).toBe(0);
  });
});

describe('GET /api/v2/transactions is scoped to the caller', () => {
  it("lists only the caller's organisation's transactions, whatever the filters", async () => {
    const mine = await merchant();
    const theirs = await merchant();
    const own = [(await createOk(gateway, mine.key)).order_id, (await createOk(gateway, mine.key)).order_id];
    const foreign = (await createOk(gateway, theirs.key, { customer: { first_name: 'Fatou', last_name: 'Sall', phone: '+221773333333' } })).order_id;
    await createOk(gateway, theirs.key);
    await createOk(gateway, theirs.key);

    // Which rows, not their order (the ordering test above has that; two made in one millisecond
    // come by order_id).
    const response = await list(mine.key, { limit: '100' });
    expect(idsOf(response).sort()).toEqual([...own].sort());
    expect(response.body.pagination.total_count).toBe(2);
    expect(idsOf(await list(mine.key, { search: foreign }))).toEqual([]);
    expect(idsOf(await list(mine.key, { search: 'Fatou' }))).toEqual([]);
    expect(idsOf(await list(mine.key, { customer_phone: '+221773333333' }))).toEqual([]);
    expect(idsOf(await list(mine.key, { include_deleted: 'true' })).sort()).toEqual([...own].sort());
  });
});
