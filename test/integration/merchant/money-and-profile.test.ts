/**
 * What moves money or completes the organisation is audited in the same database transaction as
 * the change, whoever asks (API key, operator): a refund and a payout (with or without an
 * Idempotency-Key; a refused one leaves no entry), and the business profile, whose sector lifts
 * the 403 "Complete your business profile".
 */
import { describe, expect, it } from 'vitest';
import { expectGraphqlError } from '../../support/assertions.js';
import { MerchantUpdateBusinessProfileDocument as PROFILE } from '../../support/graphql/generated.js';
import { graphqlDataTyped as graphqlData, graphqlTyped } from '../../support/graphql/typed.js';
import { useGateway } from '../../support/gateway.js';
import { fundedMerchant, payoutBody, PHONES as PAYOUT_PHONES, postPayout } from '../../support/payouts.js';
import { paidTransaction, PHONES, refund } from '../../support/refunds.js';
import { transactionBody } from '../../support/gateway.js';

const gateway = useGateway();

const auditOf = (organizationId: string, action: string) => gateway.ctx.db.auditEvent.findMany({ where: { organizationId, action }, orderBy: { at: 'asc' } });

describe('audited money movements', () => {
  it('a refund is audited with its debit; one refused before anything changes leaves no entry', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    const orderId = await paidTransaction(gateway, key, { feesCustomerSide: true });
    expect((await refund(gateway, key, orderId)).status).toBe(200);
    const [entry] = await auditOf(organization.id, 'transaction.refunded');
    expect(entry).toMatchObject({ target: orderId, actorKind: 'merchant', actorLabel: 'API key (readAndWrite)', details: { amount: 3000, attempt: 1 } });

    // Refused before anything changes (already refunded): no second entry.
    expect((await refund(gateway, key, orderId)).status).toBe(400);
    expect(await auditOf(organization.id, 'transaction.refunded')).toHaveLength(1);
  });

  it('a refund under an Idempotency-Key is audited once, its replay adds nothing', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'checkout' });
    const orderId = await paidTransaction(gateway, key, { feesCustomerSide: true, phone: PHONES.refundSucceeds });
    expect((await refund(gateway, key, orderId, 'refund-audit-1')).status).toBe(200);
    const replay = await refund(gateway, key, orderId, 'refund-audit-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await auditOf(organization.id, 'transaction.refunded')).toHaveLength(1);
  });

  it('a payout is audited with its debit (never the recipient’s phone); one refused for its balance leaves no entry', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 50_000 });
    const created = await postPayout(gateway, key, payoutBody({ amount: 10_000 }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const entries = await auditOf(organization.id, 'payout.created');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorKind: 'merchant',
      actorLabel: 'API key (payout)',
      details: { amount: 10_000, method: 'wave', awaitsReview: false },
    });
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    expect(entries[0]!.target).toBe(payout.id);
    expect(JSON.stringify(entries[0])).not.toContain(PAYOUT_PHONES.succeeds.slice(-6));

    expect((await postPayout(gateway, key, payoutBody({ amount: 1_000_000 }))).status).toBe(400);
    expect((await postPayout(gateway, key, payoutBody({ amount: 10_000 }), 'payout-audit-1')).status).toBe(200);
    expect((await postPayout(gateway, key, payoutBody({ amount: 10_000 }), 'payout-audit-1')).headers.get('idempotent-replayed')).toBe('true');
    expect(await auditOf(organization.id, 'payout.created')).toHaveLength(2);
  });
});

describe('the business profile', () => {
  it('an admin completes it (name and sector), which lifts the 403 on creation; audited', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'checkout', update: { businessSector: '' } });
    const refused = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(refused.status).toBe(403);

    const { updateBusinessProfile } = await graphqlData(gateway, PROFILE, { org: organization.id, name: '  Boutique Awa  ', sector: 'retail' });
    expect(updateBusinessProfile).toEqual({ id: organization.id, name: 'Boutique Awa', businessSector: 'retail' });
    // The cached caller carried the old organisation: the next request already sees the sector.
    expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() })).status).toBe(200);

    const [entry] = await auditOf(organization.id, 'business_profile.updated');
    expect(entry).toMatchObject({ actorKind: 'operator', target: organization.id, details: { name: 'Boutique Awa', businessSector: 'retail' } });
  });

  it('refuses empty or oversized fields and a call with nothing to change; an API key may not change it', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'management' });
    expectGraphqlError(
      await graphqlTyped(gateway, PROFILE, { org: organization.id, name: '   ' }, gateway.adminToken),
      'invalid_input',
      'name must be 1 to 200 characters',
    );
    expectGraphqlError(
      await graphqlTyped(gateway, PROFILE, { org: organization.id, sector: 'x'.repeat(201) }, gateway.adminToken),
      'invalid_input',
      'sector must be 1 to 200 characters',
    );
    expectGraphqlError(await graphqlTyped(gateway, PROFILE, { org: organization.id }, gateway.adminToken), 'invalid_input', 'give a name, a sector, or both');
    expectGraphqlError(await graphqlTyped(gateway, PROFILE, { sector: 'retail' }, gateway.adminToken), 'invalid_input', 'organizationId is required');
    expectGraphqlError(await graphqlTyped(gateway, PROFILE, { sector: 'retail' }, key), 'permission_denied');
    expect(await auditOf(organization.id, 'business_profile.updated')).toHaveLength(0);
  });
});
