import { describe, expect, it } from 'vitest';
import { RFC3339_UTC } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { CREATED_FIELDS, createdV1, expectDetail, expectV1Headers, v1, v1TransactionBody } from './helpers.js';

const gateway = useGateway();

describe('POST /api/v1/transaction/create-transaction creates a transaction', () => {
  it('answers 200 with exactly the v1 create fields: the uppercase methods as an array, amount and amount_to_pay', async () => {
    const { key } = await gateway.merchant();
    const response = await v1.create(gateway, key);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectV1Headers(response);
    const body = response.body;
    expect(Object.keys(body).sort()).toEqual(CREATED_FIELDS);
    // In the order the v1 SDKs document it (openapi/v1.yaml's TransactionCreated).
    expect(Object.keys(body)).toEqual([
      'order_id',
      'method_of_payment',
      'amount',
      'amount_to_pay',
      'currency',
      'created_at',
      'transaction_status',
      'is_escrow',
      'is_merchant',
      'checkout_url',
    ]);
    expect(body).toMatchObject({
      method_of_payment: ['WAVE'],
      amount: 3000,
      amount_to_pay: 3000,
      currency: 'XOF',
      transaction_status: 'pending',
      is_escrow: false,
      is_merchant: false,
    });
    expect(body.created_at).toMatch(RFC3339_UTC);
    expect(body.checkout_url).toBe(`${gateway.checkoutUrl}/checkout/${body.order_id}`);
  });

  it('stores the v1 product as the domain product: amount is the unit price, category kept with it', async () => {
    const { key } = await gateway.merchant();
    const created = await createdV1(
      gateway,
      key,
      v1TransactionBody({
        method_of_payment: ['ORANGE_MONEY'],
        products: [
          { name: 'Thiof', category: 'fish', amount: 2500, quantity: 3 },
          { name: 'Rice', amount: 700, quantity: 1 },
        ],
      }),
    );
    expect(created.amount).toBe(2500 * 3 + 700);
    expect(created.method_of_payment).toEqual(['ORANGE_MONEY']);
    const row = await gateway.ctx.db.transaction.findUniqueOrThrow({
      where: { id: created.order_id },
      include: { products: { orderBy: { position: 'asc' } } },
    });
    expect(row.methodOfPayment).toEqual(['orange_money']);
    expect(row.products.map(({ name, price, quantity, category, description }) => ({ name, price, quantity, category, description }))).toEqual([
      { name: 'Thiof', price: 2500n, quantity: 3, category: 'fish', description: null },
      { name: 'Rice', price: 700n, quantity: 1, category: null, description: null },
    ]);
    // v2 reads the same transaction with `price` and without category.
    const v2 = await gateway.rest('GET', `/api/v2/transactions/${created.order_id}`, { key });
    expect(v2.body.products[0]).toEqual({ name: 'Thiof', price: 2500, quantity: 3, description: '' });
    expect(v2.body.method_of_payment).toEqual(['orange_money']);
  });

  it('takes an array of several methods (offered on the checkout), a single string as an array of one, and PUT as POST', async () => {
    const { key } = await gateway.merchant();
    const both = await createdV1(gateway, key, v1TransactionBody({ method_of_payment: ['WAVE', 'ORANGE_MONEY', 'WAVE'] }));
    expect(both.method_of_payment).toEqual(['WAVE', 'ORANGE_MONEY']);
    expect((await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: both.order_id } })).methodOfPayment).toEqual(['wave', 'orange_money']);
    expect((await v1.getOne(gateway, key, both.order_id)).body.method_of_payment).toEqual(['WAVE', 'ORANGE_MONEY']);
    expect((await createdV1(gateway, key, v1TransactionBody({ method_of_payment: 'ORANGE_MONEY' }))).method_of_payment).toEqual(['ORANGE_MONEY']);
    const put = await gateway.rest('PUT', '/api/v1/transaction/create-transaction', { key, body: v1TransactionBody() });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expectV1Headers(put);
    expect(put.body).toMatchObject({ method_of_payment: ['WAVE'], amount: 3000, transaction_status: 'pending' });
  });

  it("fees_customer_side left out is true (the v1 SDKs' default), unlike v2", async () => {
    const { key } = await gateway.merchant();
    const { fees_customer_side: _left, ...body } = v1TransactionBody();
    const created = await createdV1(gateway, key, body);
    expect(created.amount_to_pay).toBe(3030);
    expect((await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: created.order_id } })).feesCustomerSide).toBe(true);
  });

  it('amount_to_pay is amount plus the method fee when fees are on the customer, as the checkout and the payment charge it', async () => {
    const { key } = await gateway.merchant();
    // 3,000 XOF: wave 1 % = 30, orange_money 1.5 % = 45 (defaults).
    expect((await createdV1(gateway, key, v1TransactionBody({ fees_customer_side: true }))).amount_to_pay).toBe(3030);
    const orange = await createdV1(gateway, key, v1TransactionBody({ fees_customer_side: true, method_of_payment: 'ORANGE_MONEY' }));
    expect(orange.amount_to_pay).toBe(3045);
    expect((await v1.getOne(gateway, key, orange.order_id)).body.amount_to_pay).toBe(3045);
    expect((await createdV1(gateway, key, v1TransactionBody({ fees_customer_side: false }))).amount_to_pay).toBe(3000);
  });

  it('passes fees_customer_side, is_escrow and is_merchant to the operation', async () => {
    const { key } = await gateway.merchant({ escrowEnabled: true });
    const created = await createdV1(gateway, key, v1TransactionBody({ fees_customer_side: true, is_escrow: true, is_merchant: true }));
    expect(created).toMatchObject({ is_escrow: true, is_merchant: true });
    const row = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: created.order_id } });
    expect({ feesCustomerSide: row.feesCustomerSide, isEscrow: row.isEscrow, isMerchant: row.isMerchant }).toEqual({
      feesCustomerSide: true,
      isEscrow: true,
      isMerchant: true,
    });
  });
});

describe('POST /api/v1/transaction/create-transaction refuses', () => {
  it.each([['FREE_MONEY'], ['BANK']])('%s, a v1 method this gateway does not offer, with 400 saying so', async (method) => {
    const { organization, key } = await gateway.merchant();
    expectDetail(
      await v1.create(gateway, key, v1TransactionBody({ method_of_payment: method })),
      400,
      `Unsupported payment method: ${method} is not supported by this gateway. Use WAVE or ORANGE_MONEY.`,
    );
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it.each([['wave'], ['orange_money'], ['PAYPAL'], ['']])('any other method, here %j, with 400 Unsupported payment method', async (method) => {
    const { key } = await gateway.merchant();
    const response = await v1.create(gateway, key, v1TransactionBody({ method_of_payment: method }));
    if (method === '') expectDetail(response, 400, 'Unsupported payment method: "" is not a payment method. Use WAVE or ORANGE_MONEY.');
    else expectDetail(response, 400, /^Unsupported payment method: .* Use WAVE or ORANGE_MONEY\.$/);
  });

  it('a missing method with the operation\'s 400 "Add minimum one payment method"', async () => {
    const { key } = await gateway.merchant();
    const { method_of_payment: _omitted, ...body } = v1TransactionBody();
    expectDetail(await v1.create(gateway, key, body), 400, 'Add minimum one payment method');
  });

  it('the rules of the operation with its statuses and wordings (no product, total of 10, a method the organisation may not use)', async () => {
    const { key } = await gateway.merchant({ allowedMethods: ['wave'] });
    expectDetail(await v1.create(gateway, key, v1TransactionBody({ products: [] })), 400, 'Add minimum one product');
    expectDetail(
      await v1.create(gateway, key, v1TransactionBody({ products: [{ name: 'x', amount: 10, quantity: 1 }] })),
      400,
      'Total price must be greater than 10 and the quantity must be non-zero',
    );
    expectDetail(
      await v1.create(gateway, key, v1TransactionBody({ method_of_payment: 'ORANGE_MONEY' })),
      403,
      /^orange_money payment is not allowed for this organization/,
    );
  });

  it('a malformed body or a wrong type with 400 Invalid request body', async () => {
    const { key } = await gateway.merchant();
    expectDetail(await gateway.rest('POST', '/api/v1/transaction/create-transaction', { key, rawBody: '{oops' }), 400, 'Invalid request body');
    expectDetail(
      await v1.create(gateway, key, v1TransactionBody({ products: [{ name: 'x', amount: '500', quantity: 1 }] })),
      400,
      'Invalid request body: products[0].amount must be an integer',
    );
    expectDetail(await v1.create(gateway, key, v1TransactionBody({ method_of_payment: 42 })), 400, 'Invalid request body: method_of_payment must be an array');
    expectDetail(
      await v1.create(gateway, key, v1TransactionBody({ method_of_payment: ['WAVE', 7] })),
      400,
      'Invalid request body: method_of_payment[1] must be a string',
    );
  });

  it('an array with FREE_MONEY or BANK beside a supported method with 400, creating nothing', async () => {
    const { organization, key } = await gateway.merchant();
    expectDetail(
      await v1.create(gateway, key, v1TransactionBody({ method_of_payment: ['WAVE', 'BANK'] })),
      400,
      'Unsupported payment method: BANK is not supported by this gateway. Use WAVE or ORANGE_MONEY.',
    );
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('no key with 401, a key of another scope with 403', async () => {
    const { organization } = await gateway.merchant();
    expectDetail(await v1.create(gateway, undefined), 401, 'Invalid API key');
    const readKey = await gateway.createKey(organization.id, 'read');
    expectDetail(await v1.create(gateway, readKey), 403, "You don't have permission to perform this action");
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('an inactive organisation with 401 (reads still work), a blocked one with 403, as v2 does', async () => {
    const inactive = await gateway.merchant({ update: { status: 'inactive' } });
    expectDetail(await v1.create(gateway, inactive.key), 401, 'Organization is not active');
    expect((await v1.list(gateway, inactive.key)).status).toBe(200);
    const blocked = await gateway.merchant({ update: { status: 'blocked' } });
    expectDetail(await v1.create(gateway, blocked.key), 403, /^Organization is blocked/);
    expectDetail(await v1.list(gateway, blocked.key), 403, /^Organization is blocked/);
  });
});
