/**
 * Per-method kill switches at creation (issue 7): a transaction whose offered methods are ALL
 * switched off is refused with 503 `payment_method_unavailable`; one with a method still on is
 * created as asked. The switches are cached in memory: a change made through `setSwitch` must
 * govern the very next creation, although the previous one had filled the cache.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setSwitch } from '../../../../src/domain/operations.js';
import { useGateway, transactionBody } from '../../../support/gateway.js';
import { expectError } from '../../../support/assertions.js';
import { transactionCount } from './helpers.js';

const gateway = useGateway();

const create = (key: string, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(overrides), headers });
const turn = (name: string, on: boolean) => setSwitch(gateway.ctx, gateway.operator, name, on);

const WAVE_UNAVAILABLE = 'wave payments are temporarily unavailable. Offer another payment method or try again later.';

afterEach(async () => {
  for (const name of ['wave', 'orange_money', 'transactions']) await turn(name, true);
});

describe('POST /api/v2/transactions and the per-method kill switches', () => {
  it('answers 503 "wave payments are temporarily unavailable..." when wave, the only method offered, is off, and writes nothing', async () => {
    const { organization, key } = await gateway.merchant();
    await turn('wave', false);
    expectError(await create(key, { method_of_payment: ['wave'] }), 503, WAVE_UNAVAILABLE);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('names every offered method when all of them are off', async () => {
    const { organization, key } = await gateway.merchant();
    await turn('wave', false);
    await turn('orange_money', false);
    expectError(await create(key, { method_of_payment: ['wave', 'orange_money'] }), 503, /^wave and orange_money payments are temporarily unavailable/);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('creates the transaction as asked when another offered method is still on', async () => {
    const { organization, key } = await gateway.merchant();
    await turn('wave', false);
    const response = await create(key, { method_of_payment: ['wave', 'orange_money'] });
    expect(response.status).toBe(200);
    expect(response.body.method_of_payment).toEqual(['wave', 'orange_money']);
    expect(await transactionCount(gateway, organization.id)).toBe(1);
  });

  it('refuses the very next creation after a switch is turned off, and accepts the very next after it is back on', async () => {
    const { key } = await gateway.merchant();
    expect((await create(key, { method_of_payment: ['wave'] })).status).toBe(200); // the switches are now cached
    await turn('wave', false);
    expectError(await create(key, { method_of_payment: ['wave'] }), 503, WAVE_UNAVAILABLE);
    await turn('wave', true);
    expect((await create(key, { method_of_payment: ['wave'] })).status).toBe(200);
  });

  it('does the same for the transactions switch', async () => {
    const { key } = await gateway.merchant();
    expect((await create(key)).status).toBe(200);
    await turn('transactions', false);
    expectError(await create(key), 503, 'Transaction creation is temporarily disabled');
    await turn('transactions', true);
    expect((await create(key)).status).toBe(200);
  });

  it('does not keep the 503 under an Idempotency-Key: the same key creates once the method is back on', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': `switch-${organization.id}` };
    await turn('wave', false);
    expectError(await create(key, { method_of_payment: ['wave'] }, headers), 503, WAVE_UNAVAILABLE);
    await turn('wave', true);
    expect((await create(key, { method_of_payment: ['wave'] }, headers)).status).toBe(200);
    expect(await transactionCount(gateway, organization.id)).toBe(1);
  });

  it('checks the methods the organisation may use before the switches (403 beats 503)', async () => {
    const { key } = await gateway.merchant({ allowedMethods: ['wave'] });
    await turn('orange_money', false);
    expectError(await create(key, { method_of_payment: ['orange_money'] }), 403, /^orange_money payment is not allowed for this organization/);
  });
});
