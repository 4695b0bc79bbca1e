/**
 * Bad input always gets a clear 4xx in the API's error shape and changes nothing. Hundreds of
 * mutations of a valid body (seeded, so a failure replays) are thrown at the create endpoint,
 * and odd paths and queries at the others; none may answer 500 or write a row.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mutated, seededRandom, type FieldSetter } from '../../../support/fuzz.js';
import { useGateway, transactionBody } from '../../../support/gateway.js';

const gateway = useGateway();
let key: string;
let organizationId: string;
beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'readAndWrite', update: { maxTransactionAmount: 10 } });
  // A ceiling of 10 XOF: every create is refused, so any row written would be a bug.
  ({ key } = merchant);
  organizationId = merchant.organization.id;
});

const CREATE_FIELDS: FieldSetter[] = [
  (body, v) => (body.method_of_payment = v),
  (body, v) => (body.products = v),
  (body, v) => (body.products[0] = v),
  (body, v) => (body.products[0].name = v),
  (body, v) => (body.products[0].price = v),
  (body, v) => (body.products[0].quantity = v),
  (body, v) => (body.products[0].description = v),
  (body, v) => (body.customer = v),
  (body, v) => (body.customer.first_name = v),
  (body, v) => (body.customer.phone = v),
  (body, v) => (body.success_url = v),
  (body, v) => (body.error_url = v),
  (body, v) => (body.fees_customer_side = v),
  (body, v) => (body.is_escrow = v),
  (body, v) => (body.is_merchant = v),
];

describe('bad input', () => {
  it('never answers 500 nor writes a row, for 300 mutated create bodies', async () => {
    const next = seededRandom(20261122);
    const surprises: string[] = [];
    for (let i = 0; i < 300; i++) {
      const body = mutated(transactionBody(), CREATE_FIELDS, next);
      const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
      const wellFormed = typeof response.body?.error === 'string' && Object.keys(response.body).length === 1;
      if (response.status >= 500 || response.status < 400 || !wellFormed)
        surprises.push(`${response.status} ${JSON.stringify(response.body)} <- ${JSON.stringify(body).slice(0, 300)}`);
    }
    expect(surprises).toEqual([]);
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId } })).toBe(0);
  });

  it.each([
    '/api/v2/transactions/%',
    '/api/v2/transactions/%E0%A4%A',
    '/api/v2/transactions/..%2F..%2Fetc%2Fpasswd',
    `/api/v2/transactions/${'a'.repeat(3000)}`,
    '/api/v2/transactions?page=%',
    '/api/v2/transactions?search=%00',
    '/api/v2/transactions?start_date=9999999-01-01T00:00:00Z',
    '/api/v2/transactions?min_amount=99999999999999999999999999999',
    '/api/v2/transactions?limit=-0',
    '/api/v2/transactions?search[]=x',
  ])('GET %s answers a 4xx or 200 in the API shape, never 500', async (path) => {
    const response = await gateway.rest('GET', path, { key });
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
    if (response.status >= 400) expect(Object.keys(response.body)).toEqual(['error']);
  });
});
