import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { adjustAccount } from '../../../src/domain/operations.js';
import { TRANSACTION_FIELDS, createdV1, expectDetail, expectV1Headers, pay, v1, v1TransactionBody } from './helpers.js';

const gateway = useGateway();

const product = (amount: number) => ({ products: [{ name: `Item ${amount}`, category: 'misc', amount, quantity: 1 }] });
const orderIds = (response: { body: any }) => response.body.transactions.map((transaction: any) => transaction.order_id);

describe('GET /api/v1/transaction/get-transactions lists transactions', () => {
  it('answers exactly {transactions}, newest first, each in the v1 transaction shape; cancelled ones hidden', async () => {
    const { key } = await gateway.merchant();
    const first = await createdV1(gateway, key, v1TransactionBody(product(100)));
    const second = await createdV1(gateway, key, v1TransactionBody(product(200)));
    const cancelled = await createdV1(gateway, key, v1TransactionBody(product(300)));
    expect((await v1.delete(gateway, key, cancelled.order_id)).status).toBe(200);

    const response = await v1.list(gateway, key);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectV1Headers(response);
    expect(Object.keys(response.body)).toEqual(['transactions']);
    expect(orderIds(response)).toEqual([second.order_id, first.order_id]);
    for (const transaction of response.body.transactions) expect(Object.keys(transaction).sort()).toEqual(TRANSACTION_FIELDS);
    expect(response.body.transactions[0].products).toEqual([{ name: 'Item 200', category: 'misc', amount: 200, quantity: 1, description: '' }]);
  });

  it('filters by exact amount, transaction_status and the created_at range, and pages with limit and page', async () => {
    const { key } = await gateway.merchant();
    const a = await createdV1(gateway, key, v1TransactionBody(product(500)));
    const b = await createdV1(gateway, key, v1TransactionBody(product(600)));
    const c = await createdV1(gateway, key, v1TransactionBody(product(500)));
    await pay(gateway, c.order_id);

    expect(orderIds(await v1.list(gateway, key, 'amount=500'))).toEqual([c.order_id, a.order_id]);
    expect(orderIds(await v1.list(gateway, key, 'transaction_status=paid'))).toEqual([c.order_id]);
    expect(orderIds(await v1.list(gateway, key, 'transaction_status=pending&amount=500'))).toEqual([a.order_id]);
    expect(orderIds(await v1.list(gateway, key, 'transaction_status=cancelled'))).toEqual([]);

    const start = encodeURIComponent(b.created_at);
    expect(orderIds(await v1.list(gateway, key, `created_at_start=${start}`))).toEqual([c.order_id, b.order_id]);
    expect(orderIds(await v1.list(gateway, key, `created_at_end=${encodeURIComponent(a.created_at)}`))).toEqual([a.order_id]);
    expect(orderIds(await v1.list(gateway, key, `created_at_start=${start}&created_at_end=${start}`))).toEqual([b.order_id]);

    expect(orderIds(await v1.list(gateway, key, 'limit=2'))).toEqual([c.order_id, b.order_id]);
    expect(orderIds(await v1.list(gateway, key, 'limit=2&page=2'))).toEqual([a.order_id]);
  });

  it('filters by the v1 statuses the clients know (paid includes escrow, done = cancelled or refunded, part_paid none) and by the v2 ones', async () => {
    const { key } = await gateway.merchant({ escrowEnabled: true });
    const pending = await createdV1(gateway, key);
    const paid = await createdV1(gateway, key);
    await pay(gateway, paid.order_id);
    const held = await createdV1(gateway, key, v1TransactionBody({ is_escrow: true }));
    await pay(gateway, held.order_id);
    const cancelled = await createdV1(gateway, key);
    expect((await v1.delete(gateway, key, cancelled.order_id)).status).toBe(200);
    const refunded = await createdV1(gateway, key);
    await pay(gateway, refunded.order_id);
    await adjustAccount(gateway.ctx, gateway.operator, {
      organizationId: (await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: refunded.order_id } })).organizationId,
      amount: 10_000,
      reason: 'float',
    });
    expect((await v1.delete(gateway, key, refunded.order_id)).status).toBe(200);

    const statuses = async (query: string) => (await v1.list(gateway, key, query)).body.transactions.map((t: any) => [t.order_id, t.transaction_status]);
    expect(await statuses('transaction_status=paid')).toEqual([
      [held.order_id, 'paid'],
      [paid.order_id, 'paid'],
    ]);
    expect(await statuses('transaction_status=done')).toEqual([
      [refunded.order_id, 'done'],
      [cancelled.order_id, 'done'],
    ]);
    expect(await statuses('transaction_status=part_paid')).toEqual([]);
    expect(await statuses('transaction_status=pending')).toEqual([[pending.order_id, 'pending']]);
    // v2's values mean exactly themselves; the read still speaks v1.
    expect(await statuses('transaction_status=paid_and_blocked')).toEqual([[held.order_id, 'paid']]);
    expect(await statuses('transaction_status=cancelled')).toEqual([[cancelled.order_id, 'done']]);
    expect(await statuses('transaction_status=refunded')).toEqual([[refunded.order_id, 'done']]);
  });

  it('takes a bare date YYYY-MM-DD for created_at_start / created_at_end as that whole UTC day', async () => {
    const { key } = await gateway.merchant();
    const created = await createdV1(gateway, key);
    const day = created.created_at.slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const previous = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(orderIds(await v1.list(gateway, key, `created_at_start=${day}&created_at_end=${day}`))).toEqual([created.order_id]);
    expect(orderIds(await v1.list(gateway, key, `created_at_end=${previous}`))).toEqual([]);
    expect(orderIds(await v1.list(gateway, key, `created_at_start=${next}`))).toEqual([]);
    expect(orderIds(await v1.list(gateway, key, `created_at_start=${previous}&created_at_end=${next}`))).toEqual([created.order_id]);
    expectDetail(
      await v1.list(gateway, key, 'created_at_start=2026-02-30'),
      400,
      'Invalid query parameter: created_at_start must be an RFC 3339 date-time (encode "+" as %2B, or use Z) or a date (YYYY-MM-DD)',
    );
  });

  it("only shows the caller organisation's transactions", async () => {
    const { key } = await gateway.merchant();
    const other = await gateway.merchant();
    await createdV1(gateway, other.key);
    expect((await v1.list(gateway, key)).body).toEqual({ transactions: [] });
  });
});

describe('GET /api/v1/transaction/get-transactions refuses', () => {
  it.each([['limit=0'], ['page=0'], ['amount=ten'], ['transaction_status=completed'], ['created_at_start=yesterday'], ['limit=1&limit=2']])(
    'the invalid query %s with 400',
    async (query) => {
      const { key } = await gateway.merchant();
      expectDetail(await v1.list(gateway, key, query), 400, /^Invalid query parameter: /);
    },
  );

  it('no key with 401, a write key with 403', async () => {
    const { organization } = await gateway.merchant();
    expectDetail(await v1.list(gateway, 'gw_sk_unknown'), 401, 'Invalid API key');
    expectDetail(await v1.list(gateway, await gateway.createKey(organization.id, 'write')), 403, "You don't have permission to perform this action");
  });
});
