import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../../../support/gateway.js';
import { RFC3339_UTC, expectError } from '../../../support/assertions.js';
import { createOk } from './helpers.js';

const gateway = useGateway();

const FULL_FIELDS = [
  'order_id',
  'amount',
  'fees',
  'method_of_payment',
  'selected_payment_method',
  'currency',
  'transaction_status',
  'customer',
  'products',
  'is_escrow',
  'is_merchant',
  'fees_customer_side',
  'success_url',
  'error_url',
  'created_at',
  'updated_at',
  'paid_at',
].sort();

const get = (key: string, orderId: string) => gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });

describe('GET /api/v2/transactions/{order_id} returns the transaction', () => {
  it('returns exactly the full shape with the values that were sent, while pending', async () => {
    const { key } = await gateway.merchant();
    const created = await createOk(gateway, key, {
      method_of_payment: ['orange_money', 'wave'],
      products: [
        { name: 'Bissap juice', price: 1500, quantity: 2, description: '1 L bottle' },
        { name: 'Fataya', price: 250, quantity: 4 },
        { name: 'Attaya', price: 1000, quantity: 1, description: 'Green tea' },
      ],
      customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234567' },
      fees_customer_side: true,
      is_merchant: true,
    });

    const response = await get(key, created.order_id);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(FULL_FIELDS);
    expect(response.body).toEqual({
      order_id: created.order_id,
      amount: 5000,
      fees: 0,
      method_of_payment: ['orange_money', 'wave'],
      selected_payment_method: '',
      currency: 'XOF',
      transaction_status: 'pending',
      customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234567', created_at: expect.stringMatching(RFC3339_UTC) },
      products: [
        { name: 'Bissap juice', price: 1500, quantity: 2, description: '1 L bottle' },
        { name: 'Fataya', price: 250, quantity: 4, description: '' },
        { name: 'Attaya', price: 1000, quantity: 1, description: 'Green tea' },
      ],
      is_escrow: false,
      is_merchant: true,
      fees_customer_side: true,
      success_url: 'https://shop.example.sn/merci',
      error_url: 'https://shop.example.sn/erreur',
      created_at: created.created_at,
      updated_at: expect.stringMatching(RFC3339_UTC),
      paid_at: null,
    });
    expect(response.body.created_at).toMatch(RFC3339_UTC);
    expect(Object.keys(response.body.customer).sort()).toEqual(['created_at', 'first_name', 'last_name', 'phone']);
  });

  it('defaults is_merchant, is_escrow and fees_customer_side to false', async () => {
    const { key } = await gateway.merchant();
    const created = await createOk(gateway, key);
    const response = await get(key, created.order_id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ is_escrow: false, is_merchant: false, fees_customer_side: false });
  });

  it('points success_url and error_url at pages of the checkout origin when they were omitted', async () => {
    const { key } = await gateway.merchant();
    const body = transactionBody();
    delete body.success_url;
    delete body.error_url;
    const created = (await gateway.rest('POST', '/api/v2/transactions', { key, body })).body;

    const response = await get(key, created.order_id);
    expect(response.status).toBe(200);
    for (const field of ['success_url', 'error_url']) {
      const url: string = response.body[field];
      expect(url.startsWith(`${gateway.checkoutUrl}/`), `${field} = ${url}`).toBe(true);
      expect(() => new URL(url)).not.toThrow();
    }
  });

  it('is readable with a read-scoped key of the same organisation', async () => {
    const { organization, key } = await gateway.merchant();
    const created = await createOk(gateway, key);
    const readKey = await gateway.createKey(organization.id, 'read');
    const response = await get(readKey, created.order_id);
    expect(response.status).toBe(200);
    expect(response.body.order_id).toBe(created.order_id);
  });

  it('matches the item of the list for the same transaction', async () => {
    const { key } = await gateway.merchant();
    const created = await createOk(gateway, key);
    const one = await get(key, created.order_id);
    const list = await gateway.rest('GET', '/api/v2/transactions', { key });
    expect(list.body.transactions).toEqual([one.body]);
  });
});

describe('GET /api/v2/transactions/{order_id} answers 404 "Transaction not found"', () => {
  it('for an unknown uuid', async () => {
    const { key } = await gateway.merchant();
    expectError(await get(key, randomUUID()), 404, 'Transaction not found');
  });

  it.each([['not-a-uuid'], ['12345'], ['00000000-0000-0000-0000-00000000000g'], [`${randomUUID()}x`]])('for the malformed id %j', async (id) => {
    const { key } = await gateway.merchant();
    expectError(await get(key, encodeURIComponent(id)), 404, 'Transaction not found');
  });

  it("for another organisation's transaction, exactly like a missing one", async () => {
    const owner = await gateway.merchant();
    const other = await gateway.merchant();
    const created = await createOk(gateway, owner.key);

    const foreign = await get(other.key, created.order_id);
    const missing = await get(other.key, randomUUID());
    expectError(foreign, 404, 'Transaction not found');
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });

    // The owner still sees it.
    expect((await get(owner.key, created.order_id)).status).toBe(200);
  });
});
