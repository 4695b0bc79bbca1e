/**
 * REST v1 (deprecated) under hostile input (fast-check, seeded): every operation's body, query
 * and content type bent as in the v2 suite. Never a 5xx, every refusal is `{"Detail": "..."}`,
 * and after a refusal the database is exactly as before. The merchant is verified and funded, so
 * what the checks let through really reaches PostgreSQL.
 */
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustAccount } from '../../../src/domain/operations.js';
import { encodeHostile, fingerprintClient, hostileBody, hostileQuery, hostileString, sendRaw, type FieldSetter, type HostileBody } from '../../support/fuzz.js';
import { useGateway } from '../../support/gateway.js';
import { v1TransactionBody } from '../rest-v1/helpers.js';
import { fuzz, restVerdict } from './helpers.js';

const gateway = useGateway();
const V1 = '/api/v1';
let keys: Record<'transactions' | 'payouts' | 'accounts', string>;
let client: pg.Client;

beforeAll(async () => {
  const { organization, key } = await gateway.merchant({ scope: 'readAndWrite', payoutEnabled: true, verified: true });
  await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 1_000_000_000, reason: 'float for fuzzed cashouts' });
  keys = { transactions: key, payouts: await gateway.createKey(organization.id, 'payout'), accounts: await gateway.createKey(organization.id, 'read') };
  client = await fingerprintClient(gateway.databaseUrl);
});
afterAll(async () => {
  await client?.end();
});

const CREATE_FIELDS: FieldSetter[] = [
  (body, v) => (body.method_of_payment = v),
  (body, v) => (body.method_of_payment[0] = v),
  (body, v) => (body.products = v),
  (body, v) => (body.products[0] = v),
  (body, v) => (body.products[0].name = v),
  (body, v) => (body.products[0].category = v),
  (body, v) => (body.products[0].amount = v),
  (body, v) => (body.products[0].quantity = v),
  (body, v) => (body.products[0].description = v),
  (body, v) => (body.success_url = v),
  (body, v) => (body.error_url = v),
  (body, v) => (body.fees_customer_side = v),
  (body, v) => (body.is_escrow = v),
  (body, v) => (body.is_merchant = v),
  (body, v) => (body[v as string] = 1),
];
const cashoutBody = () => ({ full_name: 'Moussa Ndiaye', amount: 10_000, phone_number: '+221770000001' });
const CASHOUT_FIELDS: FieldSetter[] = [
  (body, v) => (body.full_name = v),
  (body, v) => (body.amount = v),
  (body, v) => (body.phone_number = v),
  (body, v) => (body[v as string] = 1),
];
const LIST_FILTERS = ['page', 'limit', 'amount', 'transaction_status', 'created_at_start', 'created_at_end', 'order_id'];

type Key = keyof typeof keys;
const refusal = (mustRefuse: boolean) => (answer: Parameters<typeof restVerdict>[1]) => restVerdict('Detail', answer, { mustRefuse });
const send = (method: string, path: string, key: Key, body?: HostileBody) =>
  sendRaw(`${gateway.url}${path}`, method, { headers: { authorization: `Bearer ${keys[key]}` }, body: body?.body, contentType: body?.contentType });

describe('REST v1 under hostile input: never 5xx, always {"Detail"}, nothing written after a refusal', () => {
  it.each(['POST', 'PUT'])('createTransaction (%s /transaction/create-transaction) with hostile bodies and content types', async (method) => {
    await fuzz(
      client,
      hostileBody(v1TransactionBody(), CREATE_FIELDS),
      (body) => send(method, `${V1}/transaction/create-transaction`, 'transactions', body),
      refusal(false),
      { runs: method === 'POST' ? 200 : 60 },
    );
  });

  it.each(['wave', 'orange-money'])('cashout (POST /cashout/%s) with hostile bodies and content types', async (method) => {
    // A keyless cashout's answer, a refusal included, is kept 5 minutes against the SDKs' blind
    // retries (src/rest/v1/cashout.ts): that IdempotencyKey row is by design, not a leak.
    const cashout = (body: HostileBody) => send('POST', `${V1}/cashout/${method}`, 'payouts', body);
    await fuzz(client, hostileBody(cashoutBody(), CASHOUT_FIELDS), cashout, refusal(false), { runs: 120, except: ['IdempotencyKey'] });
  });

  it('deleteTransaction (DELETE /transaction/delete-transaction) with hostile bodies and queries', async () => {
    const inputs = fc.tuple(
      hostileBody({ order_id: '00000000-0000-4000-8000-000000000000' }, [(body, v) => (body.order_id = v), (body, v) => (body[v as string] = 1)]),
      fc.option(hostileQuery(['order_id'])),
    );
    await fuzz(client, inputs, ([body, query]) => send('DELETE', `${V1}/transaction/delete-transaction${query ?? ''}`, 'transactions', body), refusal(true));
  });

  it('listTransactions (GET /transaction/get-transactions) with hostile queries', async () => {
    await fuzz(client, hostileQuery(LIST_FILTERS), (query) => send('GET', `${V1}/transaction/get-transactions${query}`, 'transactions'), refusal(false));
  });

  it('getTransaction (GET /transaction/get-one-transaction) with hostile order ids', async () => {
    const inputs = fc.oneof(
      hostileQuery(['order_id']),
      hostileString.map((id) => `?order_id=${encodeHostile(id)}`),
    );
    await fuzz(client, inputs, (query) => send('GET', `${V1}/transaction/get-one-transaction${query}`, 'transactions'), refusal(true));
  });

  it.each(['/account', '/account/'])('getMainAccount (GET %s) with hostile queries', async (path) => {
    await fuzz(client, hostileQuery(['id', 'page']), (query) => send('GET', `${V1}${path}${query}`, 'accounts'), refusal(false), { runs: 40 });
  });

  it('every route, with any verb and a hostile body, answers in the {"Detail"} shape', async () => {
    const routes = [
      '/transaction/create-transaction',
      '/transaction/delete-transaction',
      '/transaction/get-transactions',
      '/transaction/get-one-transaction',
      '/account',
      '/cashout/wave',
      '/cashout/orange-money',
      '',
      '/nope',
    ];
    const inputs = fc.tuple(fc.constantFrom('PUT', 'PATCH', 'DELETE', 'POST'), fc.constantFrom(...routes), hostileBody(cashoutBody(), CASHOUT_FIELDS));
    await fuzz(client, inputs, ([method, path, body]) => send(method, `${V1}${path}`, 'transactions', body), refusal(false), { runs: 100 });
  });

  it('a lone surrogate or NUL in a product or a cashout name is 400 {"Detail": "Invalid request body: ..."}', async () => {
    for (const text of ['\ud800', 'nul\u0000']) {
      const create = await send('POST', `${V1}/transaction/create-transaction`, 'transactions', {
        body: Buffer.from(JSON.stringify(v1TransactionBody({ products: [{ name: text, category: 'drinks', amount: 1500, quantity: 2 }] }))),
        contentType: 'application/json',
      });
      expect({ status: create.status, body: create.body }).toMatchObject({
        status: 400,
        body: { Detail: expect.stringMatching(/^Invalid request body: products\[0\]\.name/) },
      });
      const cashout = await send('POST', `${V1}/cashout/wave`, 'payouts', {
        body: Buffer.from(JSON.stringify({ ...cashoutBody(), full_name: text })),
        contentType: 'application/json',
      });
      expect({ status: cashout.status, body: cashout.body }).toMatchObject({
        status: 400,
        body: { Detail: expect.stringMatching(/^Invalid request body: full_name/) },
      });
    }
  });
});
