/**
 * REST v2 under hostile input (fast-check, seeded): for every operation, bodies with lone
 * surrogates, NUL, 1e308, 2^63, -0, deep nesting, duplicate and `__proto__` keys, huge strings,
 * arrays for objects and wrong content types; paths and queries likewise. Never a 5xx, every
 * refusal is `{"error": "..."}`, and after a refusal the database is exactly as before.
 *
 * The merchant is verified and funded, so a hostile body that the checks let through really
 * reaches PostgreSQL (a ceiling that refused every create would hide exactly the bugs sought,
 * such as a lone surrogate in a product name answering 500); an accepted write may change the
 * database, a refused one may not.
 */
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintClient, hostileBody, hostilePathSegment, hostileQuery, sendRaw, type FieldSetter, type HostileBody } from '../../support/fuzz.js';
import { transactionBody, useGateway } from '../../support/gateway.js';
import { adjustAccount } from '../../../src/domain/operations.js';
import { fuzz, restVerdict } from './helpers.js';

const gateway = useGateway();
const V2 = '/api/v2';
let keys: Record<'transactions' | 'refunds' | 'payouts' | 'accounts', string>;
let client: pg.Client;

beforeAll(async () => {
  const { organization, key } = await gateway.merchant({ scope: 'readAndWrite', payoutEnabled: true, verified: true });
  await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 1_000_000_000, reason: 'float for fuzzed payouts' });
  keys = {
    transactions: key,
    refunds: await gateway.createKey(organization.id, 'management'),
    payouts: await gateway.createKey(organization.id, 'payout'),
    accounts: await gateway.createKey(organization.id, 'read'),
  };
  client = await fingerprintClient(gateway.databaseUrl);
});
afterAll(async () => {
  await client?.end();
});

const TRANSACTION_FIELDS: FieldSetter[] = [
  (body, v) => (body.method_of_payment = v),
  (body, v) => (body.method_of_payment[0] = v),
  (body, v) => (body.products = v),
  (body, v) => (body.products[0] = v),
  (body, v) => (body.products[0].name = v),
  (body, v) => (body.products[0].price = v),
  (body, v) => (body.products[0].quantity = v),
  (body, v) => (body.products[0].description = v),
  (body, v) => (body.customer = v),
  (body, v) => (body.customer.first_name = v),
  (body, v) => (body.customer.last_name = v),
  (body, v) => (body.customer.phone = v),
  (body, v) => (body.success_url = v),
  (body, v) => (body.error_url = v),
  (body, v) => (body.fees_customer_side = v),
  (body, v) => (body.is_escrow = v),
  (body, v) => (body.is_merchant = v),
  (body, v) => (body[v as string] = 1),
];
const payoutBody = () => ({
  selected_payment_method: 'wave',
  amount: 10_000,
  recipient: { first_name: 'Moussa', last_name: 'Ndiaye', phone: '+221770000001' },
  reason: 'Supplier invoice 42',
});
const PAYOUT_FIELDS: FieldSetter[] = [
  (body, v) => (body.selected_payment_method = v),
  (body, v) => (body.amount = v),
  (body, v) => (body.recipient = v),
  (body, v) => (body.recipient.first_name = v),
  (body, v) => (body.recipient.last_name = v),
  (body, v) => (body.recipient.phone = v),
  (body, v) => (body.reason = v),
  (body, v) => (body[v as string] = 1),
];
const TRANSACTION_FILTERS = [
  'page',
  'limit',
  'status',
  'payment_method',
  'customer_phone',
  'min_amount',
  'max_amount',
  'start_date',
  'end_date',
  'is_escrow',
  'is_merchant',
  'include_deleted',
  'search',
];
const PAYOUT_FILTERS = [
  'page',
  'limit',
  'status',
  'payment_method',
  'recipient_phone',
  'min_amount',
  'max_amount',
  'start_date',
  'end_date',
  'include_deleted',
  'search',
];

type Key = keyof typeof keys;
const refusal = (mustRefuse: boolean) => (answer: Parameters<typeof restVerdict>[1]) => restVerdict('error', answer, { mustRefuse });
const send = (method: string, path: string, key: Key, body?: HostileBody) =>
  sendRaw(`${gateway.url}${path}`, method, { headers: { authorization: `Bearer ${keys[key]}` }, body: body?.body, contentType: body?.contentType });

describe('REST v2 under hostile input: never 5xx, always {"error"}, nothing written after a refusal', () => {
  it('createTransaction (POST /transactions) with hostile bodies and content types', async () => {
    await fuzz(client, hostileBody(transactionBody(), TRANSACTION_FIELDS), (body) => send('POST', `${V2}/transactions`, 'transactions', body), refusal(false), {
      runs: 200,
    });
  });

  it('createPayout (POST /payouts) with hostile bodies and content types', async () => {
    await fuzz(client, hostileBody(payoutBody(), PAYOUT_FIELDS), (body) => send('POST', `${V2}/payouts`, 'payouts', body), refusal(false), { runs: 200 });
  });

  it('listTransactions (GET /transactions) with hostile queries', async () => {
    await fuzz(client, hostileQuery(TRANSACTION_FILTERS), (query) => send('GET', `${V2}/transactions${query}`, 'transactions'), refusal(false));
  });

  it('listPayouts (GET /payouts) with hostile queries', async () => {
    await fuzz(client, hostileQuery(PAYOUT_FILTERS), (query) => send('GET', `${V2}/payouts${query}`, 'payouts'), refusal(false));
  });

  it.each([
    ['getTransaction', 'GET', '/transactions/', 'transactions'],
    ['cancelTransaction', 'DELETE', '/transactions/', 'transactions'],
    ['refundTransaction', 'GET', '/refund/', 'refunds'],
    ['getPayout', 'GET', '/payouts/', 'payouts'],
    ['getAccount', 'GET', '/accounts/', 'accounts'],
  ] as const)('%s (%s %s{id}) with hostile ids', async (_operation, method, prefix, key) => {
    await fuzz(client, hostilePathSegment, (segment) => send(method, `${V2}${prefix}${segment}`, key), refusal(true));
  });

  it.each([
    ['listAccounts', '/accounts'],
    ['getAccountStats', '/accounts/stats'],
  ] as const)('%s (GET %s) with hostile queries', async (_operation, path) => {
    await fuzz(client, hostileQuery(['page', 'limit', 'id']), (query) => send('GET', `${V2}${path}${query}`, 'accounts'), refusal(false), { runs: 50 });
  });

  it('every route, with any verb and a hostile body, answers in the {"error"} shape', async () => {
    const routes = ['/transactions', '/transactions/x', '/refund/x', '/payouts', '/payouts/x', '/accounts', '/accounts/stats', '/accounts/x', '', '/nope'];
    const inputs = fc.tuple(fc.constantFrom('PUT', 'PATCH', 'DELETE', 'POST'), fc.constantFrom(...routes), hostileBody(transactionBody(), TRANSACTION_FIELDS));
    await fuzz(client, inputs, ([method, path, body]) => send(method, `${V2}${path}`, 'transactions', body), refusal(false), { runs: 100 });
  });

  it('a lone surrogate or NUL in any text field is 400 Invalid request body, first_name included', async () => {
    for (const text of ['\ud800', 'a\udfffb', 'nul\u0000']) {
      for (const body of [
        transactionBody({ products: [{ name: text, price: 1500, quantity: 2 }] }),
        transactionBody({ products: [{ name: 'Bissap', price: 1500, quantity: 2, description: text }] }),
        transactionBody({ customer: { first_name: text, phone: '+221771234567' } }),
        transactionBody({ customer: { last_name: text, phone: '+221771234567' } }),
        transactionBody({ unknown_field: text }),
      ]) {
        const answer = await send('POST', `${V2}/transactions`, 'transactions', { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json' });
        expect({ status: answer.status, body: answer.body }).toMatchObject({
          status: 400,
          body: { error: expect.stringMatching(/^Invalid request body: .*(lone surrogate|NUL)/) },
        });
      }
      const payout = await send('POST', `${V2}/payouts`, 'payouts', {
        body: Buffer.from(JSON.stringify({ ...payoutBody(), reason: text })),
        contentType: 'application/json',
      });
      expect({ status: payout.status, body: payout.body }).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(/^Invalid request body: reason /) },
      });
    }
    // A surrogate pair (an emoji) is well-formed text: accepted.
    const emoji = await send('POST', `${V2}/transactions`, 'transactions', {
      body: Buffer.from(JSON.stringify(transactionBody({ customer: { first_name: 'Awa 😀' } }))),
      contentType: 'application/json',
    });
    expect(emoji.status).toBe(200);
  });
});
