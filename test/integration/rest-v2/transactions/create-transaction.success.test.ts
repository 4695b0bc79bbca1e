import { describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../../../support/gateway.js';

const gateway = useGateway();

const CREATE_FIELDS = [
  'amount',
  'checkout_url',
  'created_at',
  'currency',
  'customer',
  'is_escrow',
  'is_merchant',
  'method_of_payment',
  'order_id',
  'transaction_status',
];

describe('POST /api/v2/transactions succeeds', () => {
  it('returns exactly the create shape, with the total as the amount and a checkout address', async () => {
    const { key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(CREATE_FIELDS);
    expect(response.body).toMatchObject({
      amount: 3000,
      currency: 'XOF',
      transaction_status: 'pending',
      method_of_payment: ['wave', 'orange_money'],
      is_escrow: false,
      is_merchant: false,
      customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234567' },
    });
    expect(response.body.order_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.checkout_url).toBe(`${gateway.checkoutUrl}/checkout/${response.body.order_id}`);
    expect(response.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('ignores unknown fields', async () => {
    const { key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: transactionBody({ colour: 'blue', products: [{ name: 'x', price: 11, quantity: 1, sku: 'A1' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.body.amount).toBe(11);
  });

  it('prepares missing merchant accounts instead of failing', async () => {
    const { organization, key } = await gateway.merchant();
    await gateway.ctx.db.account.deleteMany({ where: { organizationId: organization.id } });
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(response.status).toBe(200);
    const accounts = await gateway.ctx.db.account.findMany({ where: { organizationId: organization.id }, orderBy: { name: 'asc' } });
    expect(accounts.map((account) => [account.name, account.balance])).toEqual([
      ['main', 0n],
      ['escrow', 0n],
    ]);
  });
});
