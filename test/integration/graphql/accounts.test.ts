/**
 * GraphQL accounts, account, accountStats and each account's ledger entries (newest first,
 * paginated): merchants read their own organisation's only; operators read any organisation's.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { adjustAccount } from '../../../src/domain/operations.js';
import { expectGraphqlError } from '../../support/assertions.js';
import type { OrganizationRecord } from '../../../src/domain/organizations/store.js';
import { useGateway } from '../../support/gateway.js';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { AccountStatsDocument, AccountWithEntriesDocument, AccountsWithEntriesDocument, AdjustAccountDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();

let organization: OrganizationRecord;
let other: OrganizationRecord;
let readKey: string;
let orderId: string;

beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'checkout' });
  organization = merchant.organization;
  readKey = await gateway.createKey(organization.id, 'read');
  other = await gateway.createOrganization();
  // main: +9 900 (a 10 000 wave payment), then +100, +200, -50 in that order.
  orderId = await pendingTransaction(gateway, merchant.key, { price: 10_000 });
  await sandboxPay(gateway, orderId, 'wave');
  for (const [amount, reason] of [
    [100, 'first'],
    [200, 'second'],
    [-50, 'third'],
  ] as const) {
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount, reason });
  }
});

const mainOf = (accounts: { name: string }[]): any => accounts.find((account) => account.name === 'main');

describe('a merchant (read key)', () => {
  it('reads its accounts with their entries, newest first, page by page', async () => {
    const first = (await graphqlDataTyped(gateway, AccountsWithEntriesDocument, { page: 1, limit: 2 }, readKey)).accounts;
    expect(first.map((account: { name: string }) => account.name)).toEqual(['main', 'escrow']);
    const main = mainOf(first);
    expect(main).toMatchObject({ organizationId: organization.id, type: 'operating', balance: 10_150, currency: 'XOF', isActive: true });
    expect(main.entries.pagination).toEqual({ page: 1, limit: 2, totalCount: 4, totalPages: 2 });
    expect(main.entries.entries.map((entry: any) => [entry.kind, entry.amount, entry.balanceAfter, entry.description])).toEqual([
      ['adjustment', -50, 10_150, 'third'],
      ['adjustment', 200, 10_200, 'second'],
    ]);

    const second = mainOf((await graphqlDataTyped(gateway, AccountsWithEntriesDocument, { page: 2, limit: 2 }, readKey)).accounts);
    expect(second.entries.entries.map((entry: any) => [entry.kind, entry.amount, entry.balanceAfter, entry.transactionId])).toEqual([
      ['adjustment', 100, 10_000, null],
      ['payment', 9_900, 9_900, orderId],
    ]);
    expect(second.entries.entries[1].postingId).toEqual(expect.any(String));
  });

  it('reads one of its accounts and its stats', async () => {
    const mainId = organization.accounts.find((account) => account.name === 'main')!.id;
    const { account } = await graphqlDataTyped(gateway, AccountWithEntriesDocument, { id: mainId }, readKey);
    expect(account).toMatchObject({ id: mainId, balance: 10_150, entries: { pagination: { totalCount: 4 } } });
    expect((await graphqlDataTyped(gateway, AccountStatsDocument, {}, readKey)).accountStats).toEqual({
      totalBalance: 10_150,
      accountCount: 2,
      activeAccountCount: 2,
    });
  });

  it('cannot read another organisation’s accounts: forbidden by organisation, not found by account id', async () => {
    expectGraphqlError(await graphqlTyped(gateway, AccountsWithEntriesDocument, { organizationId: other.id }, readKey), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, AccountStatsDocument, { organizationId: other.id }, readKey), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, AccountWithEntriesDocument, { id: other.accounts[0]!.id }, readKey), 'account_not_found');
    expectGraphqlError(await graphqlTyped(gateway, AccountWithEntriesDocument, { id: 'not-an-id' }, readKey), 'invalid_account_id');
  });

  it('needs a scope that reads accounts (checkout does not)', async () => {
    const checkoutKey = await gateway.createKey(organization.id, 'checkout');
    expectGraphqlError(await graphqlTyped(gateway, AccountsWithEntriesDocument, {}, checkoutKey), 'permission_denied');
  });

  it('cannot adjust, pay or release (operator mutations)', async () => {
    expectGraphqlError(
      await graphqlTyped(gateway, AdjustAccountDocument, { organizationId: organization.id, amount: 1000000, reason: 'me' }, readKey),
      'permission_denied',
    );
  });
});

describe('an operator', () => {
  it('reads any organisation’s accounts, entries and stats', async () => {
    const accounts = (await graphqlDataTyped(gateway, AccountsWithEntriesDocument, { organizationId: organization.id })).accounts;
    expect(mainOf(accounts).entries.pagination.totalCount).toBe(4);
    const otherAccounts = (await graphqlDataTyped(gateway, AccountsWithEntriesDocument, { organizationId: other.id })).accounts;
    expect(otherAccounts.map((account: any) => [account.name, account.balance, account.entries.entries])).toEqual([
      ['main', 0, []],
      ['escrow', 0, []],
    ]);
    const { account } = await graphqlDataTyped(gateway, AccountWithEntriesDocument, { id: other.accounts[0]!.id });
    expect(account.organizationId).toBe(other.id);
    expect((await graphqlDataTyped(gateway, AccountStatsDocument, { organizationId: organization.id })).accountStats.totalBalance).toBe(10_150);
    // Without an organisation: every merchant account's totals (this file's database only).
    const all = (await graphqlDataTyped(gateway, AccountStatsDocument, {})).accountStats;
    expect(all.totalBalance).toBeGreaterThanOrEqual(10_150);
    expect(all.accountCount).toBe(await gateway.ctx.db.account.count());
  });

  it('names the organisation to list accounts; an unknown one is not found', async () => {
    expectGraphqlError(
      await graphqlTyped(gateway, AccountsWithEntriesDocument, {}, gateway.adminToken),
      'invalid_input',
      'organizationId is required: accounts are listed per organisation',
    );
    expectGraphqlError(
      await graphqlTyped(gateway, AccountsWithEntriesDocument, { organizationId: randomUUID() }, gateway.adminToken),
      'organization_not_found',
    );
    expectGraphqlError(await graphqlTyped(gateway, AccountsWithEntriesDocument, { organizationId: 'nope' }, gateway.adminToken), 'organization_not_found');
    expectGraphqlError(await graphqlTyped(gateway, AccountStatsDocument, { organizationId: 'nope' }, gateway.adminToken), 'organization_not_found');
    expectGraphqlError(await graphqlTyped(gateway, AccountWithEntriesDocument, { id: randomUUID() }, gateway.adminToken), 'account_not_found');
  });

  it('refuses a bad page of entries with 400-class errors, and caps the limit at 100', async () => {
    expectGraphqlError(
      await graphqlTyped(gateway, AccountsWithEntriesDocument, { organizationId: organization.id, page: 0 }, gateway.adminToken),
      'invalid_query',
      'page must be an integer from 1 to 100000',
    );
    const capped = (await graphqlDataTyped(gateway, AccountsWithEntriesDocument, { organizationId: organization.id, limit: 1000 })).accounts;
    expect(mainOf(capped).entries.pagination.limit).toBe(100);
  });
});
