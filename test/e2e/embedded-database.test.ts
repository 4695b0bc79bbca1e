/** The newcomer's path: no DATABASE_URL, so the gateway runs on embedded PGlite. */
import { describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../support/gateway.js';
import { TransactionAmountsAndCountDocument } from '../support/graphql/generated.js';
import { graphqlTyped } from '../support/graphql/typed.js';

const gateway = useGateway({ embedded: true });

describe('on embedded PGlite', () => {
  it('runs the main transaction flow: create, get, list, search, cancel', async () => {
    expect(gateway.db.kind).toBe('pglite');
    const { key } = await gateway.merchant();

    const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(created.status).toBe(200);
    const orderId = created.body.order_id;

    const fetched = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });
    expect(fetched.body).toMatchObject({
      order_id: orderId,
      amount: 3000,
      transaction_status: 'pending',
      products: [{ name: 'Bissap juice', price: 1500, quantity: 2 }],
    });

    const listed = await gateway.rest('GET', '/api/v2/transactions?search=bissap', { key });
    expect(listed.body.transactions.map((t: { order_id: string }) => t.order_id)).toEqual([orderId]);
    expect(listed.body.pagination).toEqual({ page: 1, limit: 20, total_count: 1, total_pages: 1 });

    expect((await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key })).status).toBe(200);
    expect((await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key })).body).toEqual({ error: 'Transaction is already deleted' });
    expect((await gateway.rest('GET', '/api/v2/transactions', { key })).body.transactions).toEqual([]);
  });

  it('enforces the monthly limit of unverified organisations with its row lock', async () => {
    const { key } = await gateway.merchant({ verified: false });
    const body = transactionBody({ products: [{ name: 'Lot', price: 100_000, quantity: 1 }] });
    const results = await Promise.all([1, 2, 3].map(() => gateway.rest('POST', '/api/v2/transactions', { key, body })));
    expect(results.map((result) => result.status).sort()).toEqual([200, 200, 403]);
  });

  it('answers GraphQL over the same data', async () => {
    const { key } = await gateway.merchant();
    await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    const response = await graphqlTyped(gateway, TransactionAmountsAndCountDocument, {}, key);
    expect(response.body.data!.transactions).toEqual({ transactions: [{ amount: 3000, status: 'pending' }], pagination: { totalCount: 1 } });
  });
});
