/**
 * Dashboard users and money, by role, through the same operations and policy as API keys: every
 * role reads transactions, payouts, accounts with their entries, statistics and the CSV exports
 * (the session cookie, no CSRF token needed for a download); owners and operations refund, cancel
 * and pay out (audited with the user's email); developers and viewers never move money; only the
 * owner completes the business profile.
 */
import { describe, expect, it } from 'vitest';
import { transactionBody, useGateway } from '../../support/gateway.js';
import { signedIn, type DashboardBrowser } from '../../support/dashboard.js';
import {
  MerchantCancelTransactionDocument as CANCEL,
  MerchantPayoutToAwaDocument as PAYOUT,
  MerchantReadsDocument as READS,
  MerchantRefundTransactionDocument as REFUND,
  MerchantTransactionCountDocument,
  MerchantUpdateBusinessProfileDocument as PROFILE,
} from '../../support/graphql/generated.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { fundedMerchant } from '../../support/payouts.js';
import { paidTransaction, PHONES } from '../../support/refunds.js';
import { pendingTransaction } from '../../support/accounts.js';

const gateway = useGateway();

async function refusalOf<Result, Variables>(
  browser: DashboardBrowser,
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
): Promise<string | undefined> {
  return (await browser.graphqlTyped(document, variables)).body.errors?.[0]?.extensions?.code;
}

/** A funded organisation with payouts, its key (payout and checkout) and a signed-in member of each role. */
async function shop() {
  const { organization, key: payoutKey } = await fundedMerchant(gateway, { balance: 500_000 });
  const key = await gateway.createKey(organization.id, 'checkout');
  const owner = await signedIn(gateway, organization.id, 'owner');
  const developer = await signedIn(gateway, organization.id, 'developer');
  const operations = await signedIn(gateway, organization.id, 'operations');
  const viewer = await signedIn(gateway, organization.id, 'viewer');
  return { organization, key, payoutKey, owner, developer, operations, viewer };
}

const auditOf = (organizationId: string, action: string) => gateway.ctx.db.auditEvent.findMany({ where: { organizationId, action }, orderBy: { at: 'asc' } });

describe('money from the dashboard', () => {
  it('operations refund, cancel and pay out; developers and viewers are refused and nothing moves; audited with the email', async () => {
    const { organization, key, owner, developer, operations, viewer } = await shop();
    const paid = await paidTransaction(gateway, key, { feesCustomerSide: true, phone: PHONES.refundSucceeds });
    const pending = await pendingTransaction(gateway, key);

    for (const member of [developer, viewer]) {
      expect(await refusalOf(member, REFUND, { orderId: paid })).toBe('FORBIDDEN');
      expect(await refusalOf(member, CANCEL, { orderId: pending })).toBe('FORBIDDEN');
      expect(await refusalOf(member, PAYOUT, { amount: 10_000 })).toBe('FORBIDDEN');
    }
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);

    expect((await operations.dataTyped(REFUND, { orderId: paid })).refundTransaction).toEqual({ orderId: paid, status: 'refunded' });
    expect((await owner.dataTyped(CANCEL, { orderId: pending })).cancelTransaction).toEqual({ orderId: pending, status: 'cancelled' });
    const { createPayout } = await operations.dataTyped(PAYOUT, { amount: 10_000 });
    expect(createPayout).toMatchObject({ status: 'completed', amount: 10_000 });

    expect((await auditOf(organization.id, 'transaction.refunded')).map((event) => [event.actorKind, event.actorLabel, event.target])).toEqual([
      ['merchantUser', operations.email, paid],
    ]);
    expect((await auditOf(organization.id, 'payout.created')).map((event) => [event.actorLabel, event.target])).toEqual([
      [operations.email, createPayout.orderId],
    ]);
  });

  it('every role reads the lists, accounts with their entries and statistics of its own organisation only', async () => {
    const { organization, key, developer, viewer } = await shop();
    const orderId = await paidTransaction(gateway, key, { feesCustomerSide: true });
    const other = await gateway.merchant({ scope: 'checkout' });
    await paidTransaction(gateway, other.key);
    for (const member of [developer, viewer]) {
      const reads = await member.dataTyped(READS, {
        from: new Date(Date.now() - 86_400_000).toISOString(),
        to: new Date(Date.now() + 86_400_000).toISOString(),
      });
      expect(reads.transactionsConnection.edges.map((edge: { node: { orderId: string } }) => edge.node.orderId)).toEqual([orderId]);
      expect(reads.accounts.map((account: { name: string }) => account.name).sort()).toEqual(['escrow', 'main']);
      expect(reads.accounts.find((account: { name: string }) => account.name === 'main')!.entries.entries.length).toBeGreaterThan(0);
      const total = (field: 'count' | 'amount') => reads.transactionStats.reduce((sum: number, row: Record<string, number>) => sum + (row[field] ?? 0), 0);
      expect([total('count'), total('amount')]).toEqual([1, 3000]);
    }
    expect(await refusalOf(viewer, MerchantTransactionCountDocument, { org: other.organization.id })).toBe('FORBIDDEN');
    expect(organization.id).not.toBe(other.organization.id);
  });

  it('exports the organisation’s transactions as CSV with the session cookie (no CSRF token for a download); without a session, 401', async () => {
    const { key, viewer } = await shop();
    const orderId = await paidTransaction(gateway, key, { feesCustomerSide: true });
    const other = await gateway.merchant({ scope: 'checkout' });
    const othersOrder = await paidTransaction(gateway, other.key);

    const csv = await viewer.request('GET', '/exports/transactions.csv', { csrf: null, headers: { accept: 'text/csv' } });
    expect(csv.status, String(csv.body)).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(String(csv.body)).toContain(orderId);
    expect(String(csv.body)).not.toContain(othersOrder);
    expect((await viewer.request('GET', '/exports/payouts.csv', { csrf: null })).status).toBe(200);

    const signedOut = await fetch(`${gateway.url}/exports/transactions.csv`, { headers: { cookie: 'gateway_session=not-a-session' } });
    expect(signedOut.status).toBe(401);
    // A bearer token decides when one is sent, whatever cookie comes with it.
    const withBoth = await fetch(`${gateway.url}/exports/transactions.csv`, {
      headers: { cookie: `gateway_session=${viewer.cookie}`, authorization: `Bearer ${other.key}` },
    });
    expect(withBoth.status).toBe(200);
    expect(await withBoth.text()).toContain(othersOrder);
  });
});

describe('the business profile from the dashboard', () => {
  it('the owner completes it, lifting the 403 on creation; other roles are refused', async () => {
    const organization = await gateway.createOrganization({ businessSector: '' });
    const key = await gateway.createKey(organization.id, 'checkout');
    const owner = await signedIn(gateway, organization.id, 'owner');
    const developer = await signedIn(gateway, organization.id, 'developer');
    expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() })).status).toBe(403);

    expect(await refusalOf(developer, PROFILE, { sector: 'restaurant' })).toBe('FORBIDDEN');
    const { updateBusinessProfile } = await owner.dataTyped(PROFILE, { name: 'Chez Awa', sector: 'restaurant' });
    expect(updateBusinessProfile).toEqual({ id: organization.id, name: 'Chez Awa', businessSector: 'restaurant' });
    const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await auditOf(organization.id, 'business_profile.updated')).map((event) => event.actorLabel)).toEqual([owner.email]);
  });
});
