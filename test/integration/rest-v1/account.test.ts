import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { expectDetail, expectV1Headers, mainBalance, v1 } from './helpers.js';
import { adjustAccount } from '../../../src/domain/operations.js';

const gateway = useGateway();

describe('GET /api/v1/account (and /account/) shows the main account', () => {
  it.each([['/account'], ['/account/']])('%s answers exactly the v1 account view of main', async (path) => {
    const { organization } = await gateway.merchant();
    const key = await gateway.createKey(organization.id, 'read');
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 12_345, reason: 'opening balance' });
    const main = await gateway.ctx.db.account.findFirstOrThrow({ where: { organizationId: organization.id, name: 'main' } });

    const response = await v1.account(gateway, key, path);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectV1Headers(response);
    expect(response.body).toEqual({
      account_number: main.id,
      balance: 12_345,
      account_is_activate: true,
      method_of_payment: 'WAVE',
      loyalty_credit: 0,
    });
    expect(BigInt(response.body.balance)).toBe(await mainBalance(gateway, organization.id));
  });

  it('lists only the methods the organisation may use, uppercase; the number is the v2 account id', async () => {
    const { organization } = await gateway.merchant({ allowedMethods: ['orange_money'] });
    const key = await gateway.createKey(organization.id, 'management');
    const response = await v1.account(gateway, key);
    expect(response.body.method_of_payment).toBe('ORANGE_MONEY');
    const v2 = await gateway.rest('GET', `/api/v2/accounts/${response.body.account_number}`, { key });
    expect(v2.body).toMatchObject({ name: 'main', balance: response.body.balance, is_active: response.body.account_is_activate });
  });

  it('refuses no key with 401, a checkout or payout key with 403 (the accounts scopes apply)', async () => {
    const { organization, key } = await gateway.merchant();
    expectDetail(await v1.account(gateway, undefined), 401, 'Invalid API key');
    expectDetail(await v1.account(gateway, key), 403, "You don't have permission to perform this action");
    expectDetail(await v1.account(gateway, await gateway.createKey(organization.id, 'payout')), 403, "You don't have permission to perform this action");
    expect((await v1.account(gateway, await gateway.createKey(organization.id, 'readAndWrite'))).status).toBe(200);
  });
});
