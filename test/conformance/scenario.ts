/**
 * Every call of a v1 client, sent as that client sends it to a real gateway, each answer validated
 * against the client's reply model (clients.ts). Each test file runs it for one client and names
 * the client and its version.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv';
import { systemClock } from '../../src/domain/context.js';
import { adjustAccount } from '../../src/domain/operations.js';
import { createApiKey } from '../../src/domain/organizations/createApiKey.js';
import { payTransaction } from '../../src/domain/payments/payTransaction.js';
import { useGateway } from '../support/gateway.js';
import { compileModels, sendExactly, type ReplyModel, type WireAnswer } from './clients.js';

export interface V1ClientProfile {
  /** e.g. "official Node SDK naboopay 2.0.0". */
  name: string;
  schemas: Record<ReplyModel, object>;
  /** The headers it sends, with or without a JSON body. */
  headers(key: string, withBody: boolean): Record<string, string>;
  /** How it serialises a JSON body. */
  json(value: unknown): string;
  /** How it serialises query parameters (in the order it builds them). */
  query(params: [string, string][]): string;
  /** The create request: its verb and the body its request model serialises. */
  createMethod: 'POST' | 'PUT';
  createBody(methods: string[], products: { name: string; category: string; amount: number; quantity: number; description: string }[]): unknown;
  /** The list's query parameters it sends for these filters (the Node and Python SDKs always add limit=50). */
  listParams: ((filters: [string, string][]) => [string, string][]) | null;
  /** The key form this client accepts (gateway or naboo) and its own acceptance check, if it has one. */
  keyFormat: 'gateway' | 'naboo';
  acceptsKey(key: string): boolean;
}

export function describeV1Client(client: V1ClientProfile) {
  const gateway = useGateway();
  const models = compileModels(client.schemas);

  let key = '';
  let payoutKey = '';
  let organizationId = '';

  const send = (method: string, path: string, body?: unknown, withKey = key) =>
    sendExactly(gateway.url, method, `/api/v1${path}`, client.headers(withKey, body !== undefined), body === undefined ? undefined : client.json(body));

  /** A 200 whose body the client's reply model accepts. */
  function expectParsed(model: ReplyModel, answer: WireAnswer) {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(String(answer.headers['content-type'])).toMatch(/^application\/json/);
    const validate: ValidateFunction = models[model];
    expect(validate(answer.body), `${client.name} ${model}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(answer.body)}`).toBe(true);
    return answer.body;
  }

  const product = { name: 'Thieboudienne', category: 'food', amount: 2_500, quantity: 2, description: 'Family size' };
  const create = async (methods = ['WAVE']) =>
    expectParsed('TransactionResponse', await send(client.createMethod, '/transaction/create-transaction', client.createBody(methods, [product])));
  const pay = async (orderId: string, method: 'wave' | 'orange_money' = 'wave') =>
    expect((await payTransaction(gateway.ctx, gateway.operator, orderId, { method, phone: '+221770000001' })).outcome).toBe('paid');

  describe(`REST v1 with the ${client.name}`, () => {
    beforeAll(async () => {
      const organization = await gateway.createOrganization({ payoutEnabled: true });
      organizationId = organization.id;
      key = (await createApiKey(gateway.ctx, gateway.operator, organization.id, 'readAndWrite', { format: client.keyFormat })).secret;
      payoutKey = (await createApiKey(gateway.ctx, gateway.operator, organization.id, 'payout', { format: client.keyFormat })).secret;
      await adjustAccount(gateway.ctx, gateway.operator, { organizationId, amount: 500_000, reason: 'float' });
    });

    it('gets keys its constructor accepts', () => {
      expect(client.acceptsKey(key), key.slice(0, 20)).toBe(true);
      expect(client.acceptsKey(payoutKey)).toBe(true);
    });

    it('creates a transaction (array of uppercase methods) and parses the reply', async () => {
      const created = await create(['WAVE', 'ORANGE_MONEY']);
      expect(created).toMatchObject({ method_of_payment: ['WAVE', 'ORANGE_MONEY'], amount: 5_000, transaction_status: 'pending', currency: 'XOF' });
      expect(Number.isNaN(new Date(created.created_at).getTime())).toBe(false);
      expect(created.checkout_url).toBe(`${gateway.checkoutUrl}/checkout/${created.order_id}`);
    });

    it('gets FREE_MONEY and BANK, in its enum, refused with 400 {Detail}', async () => {
      for (const method of ['FREE_MONEY', 'BANK']) {
        const refused = await send(client.createMethod, '/transaction/create-transaction', client.createBody([method], [product]));
        expect(refused.status).toBe(400);
        expect(refused.body).toEqual({ Detail: `Unsupported payment method: ${method} is not supported by this gateway. Use WAVE or ORANGE_MONEY.` });
      }
    });

    it('reads one transaction, pending then paid, and parses it', async () => {
      const created = await create();
      const pending = expectParsed(
        'GetOneTransaction',
        await send('GET', `/transaction/get-one-transaction?${client.query([['order_id', created.order_id]])}`),
      );
      expect(pending).toMatchObject({
        order_id: created.order_id,
        transaction_status: 'pending',
        is_done: false,
        method_of_payment: ['WAVE'],
        checkout_url: created.checkout_url,
      });
      await pay(created.order_id);
      const paid = expectParsed('GetOneTransaction', await send('GET', `/transaction/get-one-transaction?${client.query([['order_id', created.order_id]])}`));
      expect(paid).toMatchObject({ transaction_status: 'paid', is_done: true, method_of_payment: ['WAVE'] });
    });

    it('lists transactions with each filter it can send and parses every page', async () => {
      const pending = await create();
      const paid = await create();
      await pay(paid.order_id);
      const done = await create();
      expectParsed('DeleteTransactionResponse', await send('DELETE', '/transaction/delete-transaction', { order_id: done.order_id }));
      const ids = (answer: WireAnswer) => expectParsed('GetAllTransaction', answer).transactions.map((t: { order_id: string }) => t.order_id);
      const list = (filters: [string, string][]) => {
        const params = client.listParams?.(filters) ?? [];
        return send('GET', `/transaction/get-transactions${params.length ? `?${client.query(params)}` : ''}`);
      };

      const all = ids(await list([]));
      expect(all.slice(0, 2)).toEqual([paid.order_id, pending.order_id]);
      if (!client.listParams) return; // the generated client sends no filter at all
      expect(ids(await list([['transaction_status', 'paid']]))).toContain(paid.order_id);
      expect(ids(await list([['transaction_status', 'pending']]))).toContain(pending.order_id);
      expect(ids(await list([['transaction_status', 'done']]))).toContain(done.order_id);
      expect(ids(await list([['transaction_status', 'part_paid']]))).toEqual([]);
      expect(ids(await list([['amount', '5000']])).length).toBeGreaterThanOrEqual(3);
      expect(ids(await list([['amount', '1']]))).toEqual([]);
      const day = pending.created_at.slice(0, 10);
      expect(
        ids(
          await list([
            ['created_at_start', day],
            ['created_at_end', day],
          ]),
        ),
      ).toContain(pending.order_id);
      expect(
        ids(
          await list([
            ['created_at_start', `${day}T00:00:00+00:00`],
            ['created_at_end', `${day}T23:59:59.999Z`],
          ]),
        ),
      ).toContain(pending.order_id);
      expect(
        ids(
          await list([
            ['created_at_start', '2000-01-01'],
            ['created_at_end', '2000-01-01'],
          ]),
        ),
      ).toEqual([]);
    });

    it('deletes a pending transaction (cancel) and a paid one (refund) and parses both replies', async () => {
      const pending = await create();
      expect(expectParsed('DeleteTransactionResponse', await send('DELETE', '/transaction/delete-transaction', { order_id: pending.order_id }))).toEqual({
        order_id: pending.order_id,
        message: 'Transaction cancelled successfully',
      });
      const paid = await create();
      await pay(paid.order_id);
      expect(expectParsed('DeleteTransactionResponse', await send('DELETE', '/transaction/delete-transaction', { order_id: paid.order_id }))).toEqual({
        order_id: paid.order_id,
        message: 'Transaction refunded successfully',
      });
      const read = await send('GET', `/transaction/get-one-transaction?${client.query([['order_id', paid.order_id]])}`);
      expect(expectParsed('GetOneTransaction', read)).toMatchObject({ transaction_status: 'done', is_done: true });
    });

    it('reads the account at /account/ (what it calls) and /account, and parses it', async () => {
      for (const path of ['/account/', '/account']) {
        const account = expectParsed('GetAccountResponse', await send('GET', path));
        expect(account).toMatchObject({ account_is_activate: true, method_of_payment: 'WAVE', loyalty_credit: 0 });
        expect(account.balance).toBeGreaterThan(0);
      }
    });

    it('cashes out to Wave and to Orange Money and parses both replies', async () => {
      const body = { full_name: 'Awa Diop', amount: 10_000, phone_number: '+221770000001' };
      const wave = expectParsed('CashOutResponse', await send('POST', '/cashout/wave', body, payoutKey));
      expect(wave).toEqual({ ...body, status: 'done' });
      const orange = expectParsed('CashOutResponse', await send('POST', '/cashout/orange-money', { ...body, amount: 12_000 }, payoutKey));
      expect(orange).toEqual({ ...body, amount: 12_000, status: 'done' });
      const pendingReview = expectParsed('CashOutResponse', await send('POST', '/cashout/wave', { ...body, phone_number: '+221770001111' }, payoutKey));
      expect(pendingReview.status).toBe('pending');
    });

    it('gets its retries of a cashout replayed, and the same cashout repeated after its retry window a 409 {Detail} saying nothing was sent', async () => {
      const body = { full_name: 'Fatou Sarr', amount: 7_000, phone_number: '+221770000001' };
      const start = Date.now();
      try {
        gateway.ctx.clock = { now: () => new Date(start) };
        const first = expectParsed('CashOutResponse', await send('POST', '/cashout/wave', body, payoutKey));
        expect(first).toEqual({ ...body, status: 'done' });
        // Its last retry (the Node SDK's waits add up to at most 14 s after an answer; the Python SDK's to 3 s).
        gateway.ctx.clock = { now: () => new Date(start + 14_000) };
        const retry = await send('POST', '/cashout/wave', body, payoutKey);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(expectParsed('CashOutResponse', retry)).toEqual(first);
        // The same cashout sent again on purpose 20 s later: refused, and the answer says so.
        gateway.ctx.clock = { now: () => new Date(start + 20_000) };
        const repeat = await send('POST', '/cashout/wave', body, payoutKey);
        expect(repeat.status).toBe(409);
        expect(Object.keys(repeat.body)).toEqual(['Detail']);
        expect(repeat.body.Detail).toMatch(/^Not sent: an identical cashout .* within 5 minutes are refused\./);
        const sent = await gateway.ctx.db.payout.count({ where: { organizationId, recipientPhone: body.phone_number, amount: BigInt(body.amount) } });
        expect(sent).toBe(1);
      } finally {
        gateway.ctx.clock = systemClock;
      }
    });
  });
}
