/**
 * The GraphiQL page's example tabs (src/graphql/graphiql.ts), run as typed documents with the
 * caller each one is written for: every example answers its caller, and the policy refuses it to a
 * caller it is not for. An example that stops matching the schema fails codegen's check first.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { paidTransaction } from '../../support/refunds.js';
import { fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import {
  AdminOrganizationsDocument,
  AnalystVolumeByDayAndMethodDocument,
  MerchantRecentTransactionsDocument,
  OperatorTokensDocument,
  SupportPayoutsAwaitingReviewDocument,
} from '../../support/graphql/generated.js';
import { issueOperatorToken, runTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();
let analyst: string;
let support: string;

beforeAll(async () => {
  [analyst, support] = await Promise.all([issueOperatorToken(gateway, 'analyst'), issueOperatorToken(gateway, 'support')]);
});

/** Today and the 89 days before, in whole UTC days, as the analyst tab's variables are. */
function lastQuarter() {
  const now = new Date();
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return { from: new Date(to.getTime() - 90 * 86_400_000).toISOString(), to: to.toISOString() };
}

describe('the GraphiQL examples, each with its caller', () => {
  it('merchant tab: a read key sees its own recent transactions', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    const orderId = await paidTransaction(gateway, key, { price: 2500 });
    const { data, errors } = await runTyped(gateway, MerchantRecentTransactionsDocument, {}, key);
    expect(errors).toBeUndefined();
    expect(data?.transactions.transactions).toEqual([expect.objectContaining({ orderId, amount: 2500, status: 'paid', selectedPaymentMethod: 'wave' })]);
    expect(data?.transactions.pagination.totalCount).toBe(1);
    expect(organization.id).toBeTruthy();
  });

  it('analyst tab: volume by day and method over the last quarter, today included', async () => {
    const { key } = await gateway.merchant({ scope: 'readAndWrite' });
    await paidTransaction(gateway, key, { price: 4000, method: 'orange_money' });
    const { data, errors } = await runTyped(gateway, AnalystVolumeByDayAndMethodDocument, lastQuarter(), analyst);
    expect(errors).toBeUndefined();
    const today = new Date().toISOString().slice(0, 10);
    const row = data?.transactionStats.find((candidate) => candidate.periodStart.startsWith(today) && candidate.method === 'orange_money');
    expect(row?.count).toBeGreaterThanOrEqual(1);
    expect(row?.amount).toBeGreaterThanOrEqual(4000);
  });

  it('support tab: the payouts awaiting review, which support may then approve', async () => {
    const { key } = await fundedMerchant(gateway, { balance: 3_000_000 });
    const created = await postPayout(gateway, key, payoutBody({ amount: 2_500_000 }));
    expect(created.status).toBe(200);
    const { data, errors } = await runTyped(gateway, SupportPayoutsAwaitingReviewDocument, {}, support);
    expect(errors).toBeUndefined();
    expect(data?.pendingPayouts.payouts.map((payout) => payout.orderId)).toContain(created.body.order_id);
  });

  it('admin tab: the organisations', async () => {
    const organization = await gateway.createOrganization({ name: 'Examples admin tab' });
    const { data, errors } = await runTyped(gateway, AdminOrganizationsDocument, {}, gateway.adminToken);
    expect(errors).toBeUndefined();
    expect(data?.organizations.pagination.totalCount).toBeGreaterThanOrEqual(1);
    expect(organization.id).toBeTruthy();
  });

  it('every role lists operator tokens as metadata, never the token itself', async () => {
    const { data, errors } = await runTyped(gateway, OperatorTokensDocument, {}, analyst);
    expect(errors).toBeUndefined();
    expect(data?.operatorTokens.map((token) => token.role)).toEqual(expect.arrayContaining(['analyst', 'support']));
    // Its recognisable prefix, never enough of it to use it.
    for (const token of [analyst, support]) expect(JSON.stringify(data)).not.toContain(token.slice(0, 20));
  });
});

describe('the examples are refused to callers they are not for', () => {
  it('a payout-only key may not read transactions or their stats; a merchant may not list organisations', async () => {
    const { key } = await gateway.merchant({ scope: 'payout' });
    for (const answer of [
      await runTyped(gateway, MerchantRecentTransactionsDocument, {}, key),
      await runTyped(gateway, AnalystVolumeByDayAndMethodDocument, lastQuarter(), key),
    ]) {
      expect(answer.data).toBeNull();
      expect(answer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    const organizations = await runTyped(gateway, AdminOrganizationsDocument, {}, key);
    expect(organizations.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
