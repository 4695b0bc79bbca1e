import { describe, expect, it } from 'vitest';
import { setSwitch, updateOrganization } from '../../../../src/domain/operations.js';
import { useGateway, transactionBody } from '../../../support/gateway.js';
import { expectError } from '../../../support/assertions.js';
import { createOk, oneProduct, transactionCount } from './helpers.js';

const gateway = useGateway();

const create = (key: string, overrides: Record<string, unknown> = {}) =>
  gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(overrides) });

const MONTHLY_LIMIT = /^Monthly transaction limit of 200000 XOF reached for unverified organizations/;

describe('POST /api/v2/transactions and escrow', () => {
  it('refuses is_escrow with 403 "Escrow is not enabled for this organization..." when escrow is off, and writes nothing', async () => {
    const { organization, key } = await gateway.merchant();
    const response = await create(key, { is_escrow: true });
    expectError(response, 403, /^Escrow is not enabled for this organization/);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('accepts is_escrow when the organisation has escrow enabled', async () => {
    const { organization, key } = await gateway.merchant({ escrowEnabled: true });
    const response = await create(key, { is_escrow: true });
    expect(response.status).toBe(200);
    expect(response.body.is_escrow).toBe(true);
    expect(await transactionCount(gateway, organization.id)).toBe(1);
  });

  it('accepts is_escrow false when escrow is off', async () => {
    const { key } = await gateway.merchant();
    const response = await create(key, { is_escrow: false });
    expect(response.status).toBe(200);
    expect(response.body.is_escrow).toBe(false);
  });
});

describe('POST /api/v2/transactions and the methods allowed for the organisation', () => {
  it('refuses orange_money with 403 "orange_money payment is not allowed for this organization..." when only wave is allowed', async () => {
    const { organization, key } = await gateway.merchant({ allowedMethods: ['wave'] });
    const response = await create(key, { method_of_payment: ['orange_money'] });
    expectError(response, 403, /^orange_money payment is not allowed for this organization/);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('refuses the whole request when one of the requested methods is not allowed', async () => {
    const { organization, key } = await gateway.merchant({ allowedMethods: ['wave'] });
    const response = await create(key, { method_of_payment: ['wave', 'orange_money'] });
    expectError(response, 403, /^orange_money payment is not allowed for this organization/);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('names wave in the refusal when only orange_money is allowed', async () => {
    const { key } = await gateway.merchant({ allowedMethods: ['orange_money'] });
    const response = await create(key, { method_of_payment: ['wave'] });
    expectError(response, 403, /^wave payment is not allowed for this organization/);
  });

  it('accepts the allowed method', async () => {
    const { key } = await gateway.merchant({ allowedMethods: ['wave'] });
    const response = await create(key, { method_of_payment: ['wave'] });
    expect(response.status).toBe(200);
    expect(response.body.method_of_payment).toEqual(['wave']);
  });
});

describe('POST /api/v2/transactions and the organisation transaction limits', () => {
  const LIMITS = { update: { minTransactionAmount: 1000, maxTransactionAmount: 5000 } };
  const OUTSIDE = /^Amount is outside the allowed transaction limits/;

  it('refuses a total below the minimum with 400 "Amount is outside the allowed transaction limits..."', async () => {
    const { organization, key } = await gateway.merchant(LIMITS);
    expectError(await create(key, { products: oneProduct(999) }), 400, OUTSIDE);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('refuses a total above the maximum with 400 "Amount is outside the allowed transaction limits..."', async () => {
    const { organization, key } = await gateway.merchant(LIMITS);
    expectError(await create(key, { products: oneProduct(5001) }), 400, OUTSIDE);
    expectError(await create(key, { products: oneProduct(2000, 3) }), 400, OUTSIDE);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('accepts totals equal to the minimum and to the maximum', async () => {
    const { organization, key } = await gateway.merchant(LIMITS);
    expect((await create(key, { products: oneProduct(1000) })).status).toBe(200);
    expect((await create(key, { products: oneProduct(2500, 2) })).status).toBe(200);
    expect(await transactionCount(gateway, organization.id)).toBe(2);
  });
});

describe('POST /api/v2/transactions and the monthly limit of unverified organisations', () => {
  it('accepts transactions summing to exactly 200000 XOF, then refuses the next one with 403', async () => {
    const { organization, key } = await gateway.merchant({ verified: false });
    await createOk(gateway, key, { products: oneProduct(100_000) });
    await createOk(gateway, key, { products: oneProduct(50_000, 2) });
    const response = await create(key, { products: oneProduct(11) });
    expectError(response, 403, MONTHLY_LIMIT);
    expect(await transactionCount(gateway, organization.id)).toBe(2);
  });

  it('refuses a transaction that would take the month past 200000 XOF, and still accepts one that fits', async () => {
    const { organization, key } = await gateway.merchant({ verified: false });
    await createOk(gateway, key, { products: oneProduct(150_000) });
    expectError(await create(key, { products: oneProduct(50_001) }), 403, MONTHLY_LIMIT);
    await createOk(gateway, key, { products: oneProduct(50_000) });
    expect(await transactionCount(gateway, organization.id)).toBe(2);
  });

  it('refuses a single transaction above 200000 XOF', async () => {
    const { organization, key } = await gateway.merchant({ verified: false });
    expectError(await create(key, { products: oneProduct(200_001) }), 403, MONTHLY_LIMIT);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('does not count cancelled transactions: cancelling one makes room again', async () => {
    const { organization, key } = await gateway.merchant({ verified: false });
    const first = await createOk(gateway, key, { products: oneProduct(120_000) });
    await createOk(gateway, key, { products: oneProduct(80_000) });
    expectError(await create(key, { products: oneProduct(100_000) }), 403, MONTHLY_LIMIT);

    const cancelled = await gateway.rest('DELETE', `/api/v2/transactions/${first.order_id}`, { key });
    expect(cancelled.status).toBe(200);
    await createOk(gateway, key, { products: oneProduct(100_000) });
    expect(await transactionCount(gateway, organization.id)).toBe(3);
  });

  it('counts only the current calendar month', async () => {
    const { organization, key } = await gateway.merchant({ verified: false });
    const old = await createOk(gateway, key, { products: oneProduct(200_000) });
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
    await gateway.ctx.db.transaction.update({ where: { id: old.order_id }, data: { createdAt: lastMonth } });
    await createOk(gateway, key, { products: oneProduct(200_000) });
    expect(await transactionCount(gateway, organization.id)).toBe(2);
  });

  it('does not limit a verified organisation', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    await createOk(gateway, key, { products: oneProduct(150_000) });
    await createOk(gateway, key, { products: oneProduct(150_000) });
    await createOk(gateway, key, { products: oneProduct(500_000) });
    expect(await transactionCount(gateway, organization.id)).toBe(3);
  });

  it('holds under concurrency: of 10 simultaneous creations of 30000 XOF exactly 6 succeed and 4 get 403', async () => {
    const { organization, key } = await gateway.merchant({ verified: false });
    const responses = await Promise.all(Array.from({ length: 10 }, () => create(key, { products: oneProduct(30_000) })));

    const accepted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status !== 200);
    expect(accepted).toHaveLength(6);
    expect(refused).toHaveLength(4);
    for (const response of refused) expectError(response, 403, MONTHLY_LIMIT);

    const { _sum, _count } = await gateway.ctx.db.transaction.aggregate({
      where: { organizationId: organization.id },
      _sum: { amount: true },
      _count: true,
    });
    expect(_count).toBe(6);
    expect(_sum.amount).toBe(180_000n);
  });
});

describe('POST /api/v2/transactions and the business profile', () => {
  const INCOMPLETE = /^Complete your business profile \(business sector\) before making new requests/;

  it('refuses with 403 "Complete your business profile (business sector)..." when the sector was cleared', async () => {
    const { organization, key } = await gateway.merchant({ update: { businessSector: '' } });
    expectError(await create(key), 403, INCOMPLETE);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('refuses an organisation created without a sector', async () => {
    const { organization, key } = await gateway.merchant({ businessSector: null });
    expectError(await create(key), 403, INCOMPLETE);
    expect(await transactionCount(gateway, organization.id)).toBe(0);
  });

  it('accepts again once the sector is set', async () => {
    const { organization, key } = await gateway.merchant({ update: { businessSector: '' } });
    expectError(await create(key), 403, INCOMPLETE);
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { businessSector: 'retail' });
    expect((await create(key)).status).toBe(200);
  });
});

describe('POST /api/v2/transactions and the operator kill switch', () => {
  it('answers 503 "Transaction creation is temporarily disabled" while the switch is off, and 200 once it is back on', async () => {
    const { organization, key } = await gateway.merchant();
    await setSwitch(gateway.ctx, gateway.operator, 'transactions', false);
    try {
      expectError(await create(key), 503, 'Transaction creation is temporarily disabled');
      expect(await transactionCount(gateway, organization.id)).toBe(0);
    } finally {
      await setSwitch(gateway.ctx, gateway.operator, 'transactions', true);
    }
    const response = await create(key);
    expect(response.status).toBe(200);
    expect(await transactionCount(gateway, organization.id)).toBe(1);
  });

  it('keeps reads working while creation is switched off', async () => {
    const { key } = await gateway.merchant();
    const created = await createOk(gateway, key);
    await setSwitch(gateway.ctx, gateway.operator, 'transactions', false);
    try {
      expect((await gateway.rest('GET', `/api/v2/transactions/${created.order_id}`, { key })).status).toBe(200);
      expect((await gateway.rest('GET', '/api/v2/transactions', { key })).status).toBe(200);
    } finally {
      await setSwitch(gateway.ctx, gateway.operator, 'transactions', true);
    }
  });
});

/**
 * Runs `work` while every insert into "Account" first runs `body` (PL/pgSQL, this file's own
 * database), then takes the trigger away again. The organisation's accounts are deleted first, so
 * its next transaction has to make them.
 */
async function whileAccountInsertsRun<T>(organizationId: string, name: string, body: string, work: () => Promise<T>): Promise<T> {
  await gateway.ctx.db.account.deleteMany({ where: { organizationId } });
  await gateway.ctx.db.$executeRawUnsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} END $$`);
  await gateway.ctx.db.$executeRawUnsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON "Account" FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  try {
    return await work();
  } finally {
    await gateway.ctx.db.$executeRawUnsafe(`DROP TRIGGER ${name} ON "Account"`);
    await gateway.ctx.db.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
  }
}

describe('when the merchant account cannot be prepared', () => {
  it('answers 503 "Unable to prepare merchant account, please try again shortly" and writes nothing', async () => {
    const { organization, key } = await gateway.merchant();
    // The database refuses new accounts for this organisation.
    const response = await whileAccountInsertsRun(organization.id, 'refuse_accounts', `RAISE EXCEPTION 'accounts are read-only in this test';`, () =>
      gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() }),
    );
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: 'Unable to prepare merchant account, please try again shortly' });
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});

describe('when the database session ends while the merchant account is prepared', () => {
  // Seen under load in faults/postgres-terminated: a terminated session was answered as if the
  // accounts could not be made (503 without Retry-After), so a client had no sign to retry.
  it('answers the retryable 503 with Retry-After, writes nothing, and a retry with the same key creates the transaction', async () => {
    const { organization, key } = await gateway.merchant();
    const headers = { 'idempotency-key': 'accounts-session-ended' };
    // The session inserting the accounts is terminated under the insert (as pg_terminate_backend
    // from outside does it): the statement fails with 57P01 and the connection closes.
    const response = await whileAccountInsertsRun(
      organization.id,
      'end_own_session',
      'PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(1); RETURN NEW;',
      () => gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers }),
    );
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: 'The service is temporarily unavailable, please try again shortly' });
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(0);

    const retried = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(), headers });
    expect(retried.status).toBe(200);
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(1);
  });
});
