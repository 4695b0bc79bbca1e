/**
 * POST /payouts refusals, row by row of the spec's error table (and docs/architecture.md's switches, the
 * per-organisation cap): each is a clear 4xx/503 with the catalogue's wording, never a 500, and
 * none of them records a payout or moves money.
 */
import { describe, expect, it } from 'vitest';
import { setSwitch, updateOrganization } from '../../../../src/domain/operations.js';
import { expectCatalogueError, expectError } from '../../../support/assertions.js';
import { useGateway } from '../../../support/gateway.js';
import { expectBalancedLedger } from '../../../support/ledger.js';
import { PHONES, fundedMerchant, mainBalance, payoutBody, postPayout } from '../../../support/payouts.js';

const gateway = useGateway();

const turn = (name: string, on: boolean) => setSwitch(gateway.ctx, gateway.operator, name, on);

/** Nothing was recorded and main did not move. */
async function expectNothingRecorded(organizationId: string, balance: bigint): Promise<void> {
  expect(await gateway.ctx.db.payout.count({ where: { organizationId } })).toBe(0);
  expect(await mainBalance(gateway, organizationId)).toBe(balance);
}

describe('POST /api/v2/payouts refuses', () => {
  it('a body that is not a JSON object: 400 Invalid request (the spec keeps "Invalid request body" for the field list)', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    for (const rawBody of ['', 'not json', '[1,2]', '"text"', '{"amount": 100']) {
      expectCatalogueError(await gateway.rest('POST', '/api/v2/payouts', { key, rawBody }), 'invalid_request');
    }
    await expectNothingRecorded(organization.id, 1_000_000n);
  });

  it('missing or mistyped fields: 400 Invalid request body followed by every such field', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    expectCatalogueError(
      await postPayout(gateway, key, {}),
      'invalid_request_body',
      'selected_payment_method is required, amount is required, recipient is required',
    );
    expectCatalogueError(
      await postPayout(gateway, key, { selected_payment_method: 3, amount: '5000', recipient: { phone: 221770000001, first_name: [] }, reason: {} }),
      'invalid_request_body',
      'selected_payment_method must be a string, amount must be an integer, recipient.first_name must be a string, recipient.phone must be a string, reason must be a string',
    );
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ amount: 100.5 })), 'invalid_request_body', 'amount must be an integer');
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ amount: 1e300 })), 'invalid_request_body', 'amount must be an integer');
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ recipient: 'Moussa' })), 'invalid_request_body', 'recipient must be an object');
    expectCatalogueError(
      await postPayout(gateway, key, payoutBody({ recipient: { first_name: 'Moussa' } })),
      'invalid_request_body',
      'recipient.phone is required',
    );
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ recipient: { phone: '   ' } })), 'invalid_request_body', 'recipient.phone is required');
    expectCatalogueError(
      await postPayout(gateway, key, payoutBody({ reason: 'x'.repeat(1001) })),
      'invalid_request_body',
      'reason is longer than 1000 characters',
    );
    expectCatalogueError(
      await postPayout(gateway, key, payoutBody({ recipient: { phone: PHONES.succeeds, last_name: 'N'.repeat(201) } })),
      'invalid_request_body',
      'recipient.last_name is longer than 200 characters',
    );
    await expectNothingRecorded(organization.id, 1_000_000n);
  });

  it('an amount of 10 or less: 400 Invalid amount', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    for (const amount of [10, 0, -500]) {
      expectCatalogueError(await postPayout(gateway, key, payoutBody({ amount })), 'invalid_amount', 'the amount must be greater than 10 XOF');
    }
    expect((await postPayout(gateway, key, payoutBody({ amount: 11 }))).status).toBe(200);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 11n - 0n);
  });

  it('an amount above the organisation’s maximum payout amount, when one is set: 400 Invalid amount', async () => {
    const { organization, key } = await fundedMerchant(gateway, { update: { maxPayoutAmount: 1_500_000 } });
    expectCatalogueError(
      await postPayout(gateway, key, payoutBody({ amount: 1_500_001 })),
      'invalid_amount',
      'the maximum payout amount for this organization is 1500000 XOF',
    );
    await expectNothingRecorded(organization.id, 1_000_000n);
    // The cap is inclusive, and lifting it lifts the refusal.
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { maxPayoutAmount: null });
    expect((await postPayout(gateway, key, payoutBody({ amount: 900_000 }))).status).toBe(200);
  });

  it('a phone that is not in international format: 400 Invalid phone number format', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    for (const phone of ['770000001', '+0770000001', '+22177abc0001', '+2217']) {
      expectCatalogueError(await postPayout(gateway, key, payoutBody({ recipient: { phone } })), 'invalid_phone');
    }
    await expectNothingRecorded(organization.id, 1_000_000n);
  });

  it('a method other than wave or orange_money: 400 Unsupported payment method', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    for (const method of ['free_money', 'WAVE', 'bank', '']) {
      expectCatalogueError(await postPayout(gateway, key, payoutBody({ selected_payment_method: method })), 'unsupported_payment_method');
    }
    await expectNothingRecorded(organization.id, 1_000_000n);
  });

  it('an amount main cannot cover with its fees: 400 Insufficient balance, nothing recorded', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 10_100 });
    // 10,000 + 100 fee is exactly the balance; 10,001 + 100 is one too many.
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ amount: 10_001 })), 'insufficient_balance');
    await expectNothingRecorded(organization.id, 10_100n);
    expect((await postPayout(gateway, key, payoutBody({ amount: 10_000 }))).body.payout_status).toBe('completed');
    expect(await mainBalance(gateway, organization.id)).toBe(0n);
    // Above the review threshold the funds are reserved at once, so the same rule applies.
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ amount: 2_500_000 })), 'insufficient_balance');
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('an organisation without payouts enabled: 403', async () => {
    const { organization, key } = await fundedMerchant(gateway, { payoutEnabled: false });
    expectCatalogueError(await postPayout(gateway, key), 'payout_not_enabled');
    await expectNothingRecorded(organization.id, 1_000_000n);
  });

  it('an organisation without a business sector: 403 Complete your business profile', async () => {
    const { organization, key } = await fundedMerchant(gateway, { businessSector: null });
    expectCatalogueError(await postPayout(gateway, key), 'business_profile_incomplete');
    await expectNothingRecorded(organization.id, 1_000_000n);
  });

  it('keys of other scopes, inactive and blocked organisations, and unknown keys', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    for (const scope of ['checkout', 'read', 'write', 'readAndWrite', 'management']) {
      expectCatalogueError(await postPayout(gateway, await gateway.createKey(organization.id, scope)), 'permission_denied');
    }
    expectCatalogueError(await postPayout(gateway, 'gw_sk_unknown'), 'invalid_api_key');
    expectCatalogueError(await gateway.rest('POST', '/api/v2/payouts', { body: payoutBody() }), 'invalid_api_key');
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { status: 'inactive' });
    expectCatalogueError(await postPayout(gateway, key), 'organization_inactive');
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { status: 'blocked' });
    expectCatalogueError(await postPayout(gateway, key), 'organization_blocked');
    await expectNothingRecorded(organization.id, 1_000_000n);
  });

  it('while payouts are switched off: 503 Payout is temporarily disabled', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    await turn('payouts', false);
    try {
      expectCatalogueError(await postPayout(gateway, key), 'payouts_disabled');
      await expectNothingRecorded(organization.id, 1_000_000n);
    } finally {
      await turn('payouts', true);
    }
    expect((await postPayout(gateway, key)).status).toBe(200);
  });

  it('while the method is switched off: 503 asking to use the other method, which still works', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    await turn('wave', false);
    try {
      const refused = await postPayout(gateway, key, payoutBody({ selected_payment_method: 'wave' }));
      expectCatalogueError(refused, 'payout_method_unavailable', 'wave');
      expect(refused.body.error).toMatch(/use the other payment method \(orange_money\)/);
      await expectNothingRecorded(organization.id, 1_000_000n);
      const other = await postPayout(gateway, key, payoutBody({ selected_payment_method: 'orange_money' }));
      expect(other.body.payout_status).toBe('completed');
    } finally {
      await turn('wave', true);
    }
  });

  it('checks a well-formed body in order: switch, payouts enabled, business profile, then the values', async () => {
    // (A body of the wrong shape is refused first, by the REST adapter, before any rule.)
    const invalid = payoutBody({ amount: 5, selected_payment_method: 'bank' });
    const disabled = await fundedMerchant(gateway, { payoutEnabled: false, businessSector: null });
    expectCatalogueError(await postPayout(gateway, disabled.key, invalid), 'payout_not_enabled');
    const noProfile = await fundedMerchant(gateway, { businessSector: null });
    expectCatalogueError(await postPayout(gateway, noProfile.key, invalid), 'business_profile_incomplete');
    await turn('payouts', false);
    try {
      expectCatalogueError(await postPayout(gateway, disabled.key, invalid), 'payouts_disabled');
    } finally {
      await turn('payouts', true);
    }
  });

  it('never answers 500 to bad input', async () => {
    const { key } = await fundedMerchant(gateway);
    const bodies: unknown[] = [
      null,
      { selected_payment_method: null, amount: null, recipient: null },
      payoutBody({ recipient: [] }),
      payoutBody({ recipient: { phone: '+221770000001\u0000' } }),
      payoutBody({ reason: 'nul\u0000byte' }),
      payoutBody({ amount: Number.MAX_SAFE_INTEGER }),
      payoutBody({ amount: -Number.MAX_SAFE_INTEGER }),
      payoutBody({ selected_payment_method: { wave: true } }),
    ];
    for (const body of bodies) {
      const response = await postPayout(gateway, key, body);
      expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
      expectError(response, response.status, /\S/);
    }
  });
});
