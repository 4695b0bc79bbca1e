import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RFC3339_UTC } from '../../support/assertions.js';
import { useGateway, transactionBody } from '../../support/gateway.js';
import { TRANSACTION_FIELDS, createdV1, expectDetail, expectV1Headers, pay, v1 } from './helpers.js';

const gateway = useGateway();

describe('GET /api/v1/transaction/get-one-transaction?order_id= reads one transaction', () => {
  it('answers exactly the v1 transaction fields, with v1 products and is_done false while pending', async () => {
    const { key } = await gateway.merchant();
    const created = await createdV1(gateway, key);
    const response = await v1.getOne(gateway, key, created.order_id);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectV1Headers(response);
    expect(Object.keys(response.body).sort()).toEqual(TRANSACTION_FIELDS);
    expect(response.body).toMatchObject({
      order_id: created.order_id,
      method_of_payment: ['WAVE'],
      amount: 3000,
      amount_to_pay: 3000,
      fees: 0,
      currency: 'XOF',
      transaction_status: 'pending',
      products: [{ name: 'Bissap juice', category: 'drinks', amount: 1500, quantity: 2, description: '1 L bottle' }],
      is_escrow: false,
      is_merchant: false,
      fees_customer_side: false,
      success_url: 'https://shop.example.sn/merci',
      error_url: 'https://shop.example.sn/erreur',
      created_at: created.created_at,
      paid_at: null,
      is_done: false,
    });
    expect(response.body.updated_at).toMatch(RFC3339_UTC);
  });

  it('is_done once paid; the method shown is the one used; fees and amount_to_pay follow the payment', async () => {
    const { key } = await gateway.merchant();
    // Offered both methods through v2, paid with orange money.
    const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ fees_customer_side: true }) });
    await pay(gateway, created.body.order_id, 'orange_money');
    const response = await v1.getOne(gateway, key, created.body.order_id);
    expect(response.body).toMatchObject({
      transaction_status: 'paid',
      method_of_payment: ['ORANGE_MONEY'],
      is_done: true,
      fees: 45,
      amount: 3000,
      amount_to_pay: 3045,
    });
    expect(response.body.paid_at).toMatch(RFC3339_UTC);
    expect(response.body.products[0].category).toBe('');
  });

  it('is_done once cancelled', async () => {
    const { key } = await gateway.merchant();
    const created = await createdV1(gateway, key);
    expect((await v1.delete(gateway, key, created.order_id)).status).toBe(200);
    expect((await v1.getOne(gateway, key, created.order_id)).body).toMatchObject({ transaction_status: 'done', is_done: true });
  });
});

describe('GET /api/v1/transaction/get-one-transaction refuses', () => {
  it('a missing order_id with 400', async () => {
    const { key } = await gateway.merchant();
    expectDetail(await gateway.rest('GET', '/api/v1/transaction/get-one-transaction', { key }), 400, 'Invalid query parameter: order_id is required');
    expectDetail(await gateway.rest('GET', '/api/v1/transaction/get-one-transaction?order_id=', { key }), 400, 'Invalid query parameter: order_id is required');
  });

  it("an unknown, malformed or another organisation's order_id with 404 Transaction not found", async () => {
    const { key } = await gateway.merchant();
    const other = await gateway.merchant();
    const foreign = await createdV1(gateway, other.key);
    for (const id of [randomUUID(), 'not-a-uuid', foreign.order_id]) expectDetail(await v1.getOne(gateway, key, id), 404, 'Transaction not found');
  });

  it('no key with 401, a payout key with 403', async () => {
    const { organization, key } = await gateway.merchant();
    const created = await createdV1(gateway, key);
    expectDetail(await v1.getOne(gateway, undefined, created.order_id), 401, 'Invalid API key');
    const payoutKey = await gateway.createKey(organization.id, 'payout');
    expectDetail(await v1.getOne(gateway, payoutKey, created.order_id), 403, "You don't have permission to perform this action");
  });
});
