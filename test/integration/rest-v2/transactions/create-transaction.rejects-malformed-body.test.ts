import { describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../../../support/gateway.js';
import { expectError, expectSomeError } from '../../../support/assertions.js';
import { transactionCount } from './helpers.js';

const gateway = useGateway();

const INVALID_BODY = /^Invalid request body/;
const valid = transactionBody();
const validProduct = { name: 'Bissap juice', price: 1500, quantity: 2 };

/** Bodies sent byte for byte (not JSON, or JSON of the wrong kind). */
const rawBodies: Array<[string, string]> = [
  ['text that is not JSON', 'this is not json'],
  ['truncated JSON', '{"method_of_payment": ["wave"], "products": ['],
  ['a JSON array', JSON.stringify([valid])],
  ['an empty body', ''],
  ['a JSON string', '"hello"'],
  ['a JSON number', '42'],
  ['JSON null', 'null'],
];

/** Well-formed JSON objects whose fields have the wrong type or are missing. */
const wrongShapes: Array<[string, Record<string, unknown>]> = [
  ['a price given as a string ("100")', transactionBody({ products: [{ ...validProduct, price: '100' }] })],
  ['a fractional price', transactionBody({ products: [{ ...validProduct, price: 100.5 }] })],
  ['a fractional quantity', transactionBody({ products: [{ ...validProduct, quantity: 1.5 }] })],
  ['a quantity given as a string', transactionBody({ products: [{ ...validProduct, quantity: '2' }] })],
  ['method_of_payment that is a string, not an array', transactionBody({ method_of_payment: 'wave' })],
  ['method_of_payment with a non-string item', transactionBody({ method_of_payment: ['wave', 1] })],
  ['products that is an object, not an array', transactionBody({ products: validProduct })],
  ['a product that is not an object', transactionBody({ products: ['Bissap juice'] })],
  ['a product without a name', transactionBody({ products: [{ price: 1500, quantity: 2 }] })],
  ['a product without a price', transactionBody({ products: [{ name: 'Bissap juice', quantity: 2 }] })],
  ['a product without a quantity', transactionBody({ products: [{ name: 'Bissap juice', price: 1500 }] })],
  ['a product whose name is not a string', transactionBody({ products: [{ ...validProduct, name: 12 }] })],
  ['is_escrow given as the string "true"', transactionBody({ is_escrow: 'true' })],
  ['is_merchant given as the string "false"', transactionBody({ is_merchant: 'false' })],
  ['fees_customer_side given as the string "true"', transactionBody({ fees_customer_side: 'true' })],
  ['fees_customer_side given as 1', transactionBody({ fees_customer_side: 1 })],
  ['customer that is a string, not an object', transactionBody({ customer: 'Awa Diop' })],
  ['customer that is an array, not an object', transactionBody({ customer: [{ first_name: 'Awa' }] })],
  ['a customer phone that is a number', transactionBody({ customer: { first_name: 'Awa', phone: 221771234567 } })],
  ['success_url that is not a string', transactionBody({ success_url: 42 })],
];

describe('POST /api/v2/transactions refuses a malformed body with 400 "Invalid request body" and writes nothing', () => {
  it.each(rawBodies)('refuses %s', async (_label, rawBody) => {
    const { organization, key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, rawBody });
    expectError(response, 400, INVALID_BODY);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('refuses a request with no body at all', async () => {
    const { organization, key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key });
    expectError(response, 400, INVALID_BODY);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it.each(wrongShapes)('refuses %s', async (_label, body) => {
    const { organization, key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
    expectError(response, 400, INVALID_BODY);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('leaves the existing transactions of the organisation untouched', async () => {
    const { organization, key } = await gateway.merchant();
    const ok = await gateway.rest('POST', '/api/v2/transactions', { key, body: valid });
    expect(ok.status).toBe(200);
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ products: [{ ...validProduct, price: '100' }] }) });
    expectError(response, 400, INVALID_BODY);
    expect(await transactionCount(gateway, organization.id)).toBe(1);
  });
});

describe('POST /api/v2/transactions refuses values it cannot store with 400, never 500', () => {
  it('refuses a quantity beyond what a quantity can hold (3,000,000,000) with 400 and writes nothing', async () => {
    // Verified, so the monthly limit of unverified organisations does not answer first.
    const { organization, key } = await gateway.merchant({ verified: true });
    const response = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: transactionBody({ products: [{ name: "Sachet d'eau", price: 1, quantity: 3_000_000_000 }] }),
    });
    expectSomeError(response, 400);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it.each([
    ['a product name', transactionBody({ products: [{ ...validProduct, name: 'Bissap\u0000juice' }] })],
    ['a product description', transactionBody({ products: [{ ...validProduct, description: 'one\u0000litre' }] })],
    ['the customer first name', transactionBody({ customer: { first_name: 'A\u0000wa', last_name: 'Diop', phone: '+221771234567' } })],
  ])('refuses a NUL character in %s with 400 and writes nothing', async (_label, body) => {
    const { organization, key } = await gateway.merchant();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
    expectSomeError(response, 400);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });
});

describe('POST /api/v2/transactions bounds the body size', () => {
  it('refuses a body over 100 kB with 413 and writes nothing', async () => {
    const { organization, key } = await gateway.merchant();
    const body = transactionBody({ padding: 'x'.repeat(101 * 1024) });
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
    expectError(response, 413, 'Request body too large');
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('accepts a body just under the limit', async () => {
    const { organization, key } = await gateway.merchant();
    const body = transactionBody({ padding: 'x'.repeat(90 * 1024) });
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
    expect(response.status).toBe(200);
    expect(await transactionCount(gateway, organization.id)).toBe(1);
  });
});

describe('POST /api/v2/transactions reads the body only after authenticating and authorising the caller', () => {
  it('answers 401 "Invalid API key", not 400, to invalid JSON sent with an unknown key', async () => {
    const response = await gateway.rest('POST', '/api/v2/transactions', { key: 'gw_sk_unknownkeyunknownkeyunknownkey', rawBody: '{not json' });
    expectError(response, 401, 'Invalid API key');
  });

  it('answers 401 "Invalid API key" to invalid JSON sent without an Authorization header', async () => {
    const response = await gateway.rest('POST', '/api/v2/transactions', { rawBody: '{not json' });
    expectError(response, 401, 'Invalid API key');
  });

  it('answers 403 to invalid JSON sent with a key whose scope cannot create transactions', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'read' });
    const response = await gateway.rest('POST', '/api/v2/transactions', { key, rawBody: '{not json' });
    expectError(response, 403, "You don't have permission to perform this action");
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });
});
