import { describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../../../support/gateway.js';
import { expectError } from '../../../support/assertions.js';
import { oneProduct, transactionCount } from './helpers.js';

const gateway = useGateway();

/** Sends the body and checks the refusal, then that the organisation still has no transaction. */
async function expectRefused(body: Record<string, unknown>, status: number, message: string | RegExp) {
  const { organization, key } = await gateway.merchant();
  const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
  expectError(response, status, message);
  expect(await transactionCount(gateway, organization.id)).toBe(0);
}

const withoutField = (field: string) => {
  const body = transactionBody();
  delete body[field];
  return body;
};

describe('POST /api/v2/transactions requires a payment method', () => {
  it('refuses an empty method_of_payment with 400 "Add minimum one payment method"', () =>
    expectRefused(transactionBody({ method_of_payment: [] }), 400, 'Add minimum one payment method'));

  it('refuses an absent method_of_payment with 400 "Add minimum one payment method"', () =>
    expectRefused(withoutField('method_of_payment'), 400, 'Add minimum one payment method'));

  it('refuses an unknown method ("bank") with 400 "Unsupported payment method"', () =>
    expectRefused(transactionBody({ method_of_payment: ['bank'] }), 400, 'Unsupported payment method'));

  it('refuses an unknown method next to a known one with 400 "Unsupported payment method"', () =>
    expectRefused(transactionBody({ method_of_payment: ['wave', 'bank'] }), 400, 'Unsupported payment method'));

  it('refuses the v1 uppercase spelling ("WAVE") with 400 "Unsupported payment method"', () =>
    expectRefused(transactionBody({ method_of_payment: ['WAVE'] }), 400, 'Unsupported payment method'));
});

describe('POST /api/v2/transactions requires a product', () => {
  it('refuses an empty products list with 400 "Add minimum one product"', () =>
    expectRefused(transactionBody({ products: [] }), 400, 'Add minimum one product'));

  it('refuses an absent products list with 400 "Add minimum one product"', () => expectRefused(withoutField('products'), 400, 'Add minimum one product'));
});

describe('POST /api/v2/transactions requires a total greater than 10 and non-zero quantities', () => {
  const INVALID_TOTAL = 'Total price must be greater than 10 and the quantity must be non-zero';

  it('refuses a total of exactly 10', () => expectRefused(transactionBody({ products: oneProduct(10) }), 400, INVALID_TOTAL));

  it('refuses a total of exactly 10 made of several products', () =>
    expectRefused(transactionBody({ products: [...oneProduct(2, 3, 'Pain'), ...oneProduct(4, 1, 'Lait')] }), 400, INVALID_TOTAL));

  it('refuses a total of 5', () => expectRefused(transactionBody({ products: oneProduct(5) }), 400, INVALID_TOTAL));

  it('refuses a total of 0 (free product)', () => expectRefused(transactionBody({ products: oneProduct(0, 3) }), 400, INVALID_TOTAL));

  it('refuses a zero quantity even when the total is above 10', () =>
    expectRefused(transactionBody({ products: [...oneProduct(1000, 1, 'Riz'), ...oneProduct(500, 0, 'Huile')] }), 400, INVALID_TOTAL));

  it('refuses a single product of quantity zero', () => expectRefused(transactionBody({ products: oneProduct(1000, 0) }), 400, INVALID_TOTAL));

  it('accepts a total of 11, the smallest allowed', async () => {
    const { organization, key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ products: oneProduct(11) }) });
    expect(response.status).toBe(200);
    expect(response.body.amount).toBe(11);
    expect(await transactionCount(gateway, organization.id)).toBe(1);
  });

  it('accepts a total of 11 reached through the quantity (price 1, quantity 11)', async () => {
    const { key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ products: oneProduct(1, 11) }) });
    expect(response.status).toBe(200);
    expect(response.body.amount).toBe(11);
  });
});

describe('POST /api/v2/transactions validates the redirect URLs', () => {
  const ENCODED = /^URLs cannot contain encoded special characters/;

  it.each([
    ['success_url', 'not a url'],
    ['success_url', 'ftp://x'],
    ['success_url', 'javascript:alert(1)'],
    ['error_url', 'not a url'],
    ['error_url', 'ftp://x'],
  ])('refuses %s = %j with 400 "Invalid url"', (field, url) => expectRefused(transactionBody({ [field]: url }), 400, 'Invalid url'));

  it.each([
    ['success_url', 'https://x.sn/a%20b'],
    ['success_url', 'https://shop.example.sn/merci?next=%2Fhome'],
    ['error_url', 'https://x.sn/a%20b'],
  ])('refuses a percent-encoded %s (%s) with 400 "URLs cannot contain encoded special characters..."', (field, url) =>
    expectRefused(transactionBody({ [field]: url }), 400, ENCODED),
  );

  it('accepts plain http and https URLs', async () => {
    const { key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: transactionBody({ success_url: 'http://shop.example.sn/ok?order=12', error_url: 'https://shop.example.sn/ko' }),
    });
    expect(response.status).toBe(200);
  });
});

describe('POST /api/v2/transactions validates the customer phone', () => {
  it.each([['771234567'], ['+221abc4567'], ['00221771234567'], ['+22'], ['+2217712345678901234']])(
    'refuses the phone %j with 400 "Invalid phone number format"',
    (phone) => expectRefused(transactionBody({ customer: { first_name: 'Awa', last_name: 'Diop', phone } }), 400, 'Invalid phone number format'),
  );

  it('accepts a phone in international format', async () => {
    const { key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: transactionBody({ customer: { first_name: 'Awa', last_name: 'Diop', phone: '+2250701020304' } }),
    });
    expect(response.status).toBe(200);
    expect(response.body.customer.phone).toBe('+2250701020304');
  });
});
