import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { expectDetail, expectV1Headers, fundedMerchant, mainBalance, v1 } from './helpers.js';

const gateway = useGateway();

/** Recipient wallets by what the sandbox does with a payout to them (docs/sandbox.md's phone table). */
const PHONES = { succeeds: '+221770000001', fails: '+221770000000', timesOut: '+221770001111' } as const;
const cashoutBody = (overrides: Record<string, unknown> = {}) => ({ full_name: 'Moussa Ndiaye', amount: 10_000, phone_number: PHONES.succeeds, ...overrides });
/** Default payout fee: 100 bp. */
const FEE_OF_10_000 = 100n;

const payoutsOf = (organizationId: string) => gateway.ctx.db.payout.findMany({ where: { organizationId } });

describe.each([
  ['wave', 'wave'],
  ['orange-money', 'orange_money'],
] as const)('POST /api/v1/cashout/%s (v2 POST /payouts with %s)', (route, method) => {
  it('sends the money: {phone_number, amount, full_name, status: done (v2 completed)}, main debited amount + fees', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const response = await v1.cashout(gateway, key, route, cashoutBody());
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectV1Headers(response);
    expect(response.body).toEqual({ phone_number: PHONES.succeeds, amount: 10_000, full_name: 'Moussa Ndiaye', status: 'done' });
    const [payout] = await payoutsOf(organization.id);
    expect(payout).toMatchObject({
      selectedPaymentMethod: method,
      amount: 10_000n,
      recipientFirstName: 'Moussa',
      recipientLastName: 'Ndiaye',
      recipientPhone: PHONES.succeeds,
      status: 'completed',
    });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 10_000n - FEE_OF_10_000);
  });

  it("a provider refusal (phone ending 0000) is the operation's 500, recorded failed, funds returned", async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const response = await v1.cashout(gateway, key, route, cashoutBody({ phone_number: PHONES.fails }));
    expectDetail(response, 500, /^Failed to withdraw/);
    expect((await payoutsOf(organization.id)).map((payout) => payout.status)).toEqual(['failed']);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n);
  });

  it('a provider timeout (phone ending 1111) answers status pending, funds reserved', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const response = await v1.cashout(gateway, key, route, cashoutBody({ phone_number: PHONES.timesOut, full_name: '  Awa   Diop  Sarr ' }));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ phone_number: PHONES.timesOut, amount: 10_000, full_name: 'Awa Diop Sarr', status: 'pending' });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 10_000n - FEE_OF_10_000);
  });
});

describe('POST /api/v1/cashout refuses', () => {
  it('what the payout operation refuses, with its statuses: amount of 10, more than main holds, a bad phone', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 5_000 });
    expectDetail(await v1.cashout(gateway, key, 'wave', cashoutBody({ amount: 10 })), 400, /^Invalid amount/);
    expectDetail(await v1.cashout(gateway, key, 'wave', cashoutBody({ amount: 5_000 })), 400, 'Insufficient balance');
    expectDetail(await v1.cashout(gateway, key, 'wave', cashoutBody({ amount: 100, phone_number: 'call me' })), 400, 'Invalid phone number format');
    expect(await payoutsOf(organization.id)).toEqual([]);
  });

  it('a malformed body with 400 Invalid request body naming the field', async () => {
    const { key } = await fundedMerchant(gateway);
    expectDetail(await v1.cashout(gateway, key, 'wave', { full_name: 'X', amount: 100 }), 400, 'Invalid request body: phone_number is required');
    expectDetail(await v1.cashout(gateway, key, 'wave', cashoutBody({ amount: '100' })), 400, 'Invalid request body: amount must be an integer');
    expectDetail(await gateway.rest('POST', '/api/v1/cashout/orange-money', { key, rawBody: 'not json' }), 400, 'Invalid request body');
  });

  it('an organisation without payouts with 403; no key with 401; a non-payout key with 403', async () => {
    const disabled = await gateway.merchant({ scope: 'payout' });
    expectDetail(await v1.cashout(gateway, disabled.key, 'wave', cashoutBody()), 403, /^Payout is not enabled for this organization/);
    expectDetail(await v1.cashout(gateway, undefined, 'wave', cashoutBody()), 401, 'Invalid API key');
    const { organization } = await fundedMerchant(gateway);
    for (const scope of ['checkout', 'read', 'management']) {
      expectDetail(
        await v1.cashout(gateway, await gateway.createKey(organization.id, scope), 'orange-money', cashoutBody()),
        403,
        "You don't have permission to perform this action",
      );
    }
    expect(await payoutsOf(organization.id)).toEqual([]);
  });
});
