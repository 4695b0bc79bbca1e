/**
 * Relay connections beside today's pages: `transactionsConnection` and `payoutsConnection` (and
 * Organization.transactions / Organization.payouts) page by keyset cursors with the REST filters:
 * every row exactly once, newest first, forward and backward; a cursor stays valid while rows are
 * inserted; a cursor that is not one is a clear BAD_USER_INPUT, never a 500.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { OrganizationRecord } from '../../../src/domain/organizations/store.js';
import { expectGraphqlError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import {
  OrganizationConnectionsDocument,
  PayoutsConnectionDocument,
  TransactionsConnectionDocument,
  type TransactionsConnectionQuery,
  type TransactionsConnectionQueryVariables,
  TransactionsConnectionOfOrganizationDocument,
  TransactionsPageDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';

const gateway = useGateway();

let organization: OrganizationRecord;
let key: string;
let payoutKey: string;
/** Order ids, newest first, as REST lists them. */
let newestFirst: string[];
let paid: Set<string>;

beforeAll(async () => {
  const merchant = await fundedMerchant(gateway);
  organization = merchant.organization;
  payoutKey = merchant.key;
  key = await gateway.createKey(organization.id, 'readAndWrite');
  paid = new Set();
  for (let i = 0; i < 12; i += 1) {
    const orderId = await pendingTransaction(gateway, key, { price: 1_000 + i });
    if (i % 3 === 0) {
      await sandboxPay(gateway, orderId);
      paid.add(orderId);
    }
  }
  for (let i = 0; i < 5; i += 1) expect((await postPayout(gateway, payoutKey, payoutBody({ amount: 1_000 + i }))).status).toBe(200);
  const listed = await gateway.rest('GET', '/api/v2/transactions?limit=100', { key });
  newestFirst = listed.body.transactions.map((transaction: { order_id: string }) => transaction.order_id);
  expect(newestFirst).toHaveLength(12);
}, 60_000);

/** Every node of the connection, following endCursor `size` at a time. */
async function walkForward(size: number, variables: TransactionsConnectionQueryVariables = {}, token = key): Promise<string[]> {
  const seen: string[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 50; guard += 1) {
    const { transactionsConnection: page }: TransactionsConnectionQuery = await graphqlDataTyped(
      gateway,
      TransactionsConnectionDocument,
      { first: size, after, ...variables },
      token,
    );
    seen.push(...page.edges.map((edge: { node: { orderId: string } }) => edge.node.orderId));
    expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
    if (!page.pageInfo.hasNextPage) return seen;
    after = page.pageInfo.endCursor;
  }
  throw new Error('the connection never ended');
}

describe('transactionsConnection', () => {
  it('pages forward through every transaction exactly once, newest first, as the REST list orders them', async () => {
    expect(await walkForward(5)).toEqual(newestFirst);
    expect(await walkForward(12)).toEqual(newestFirst);
    const { transactionsConnection: first } = await graphqlDataTyped(gateway, TransactionsConnectionDocument, { first: 5 }, key);
    expect(first.totalCount).toBe(12);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false, startCursor: first.edges[0]!.cursor, endCursor: first.edges[4]!.cursor });
  });

  it('applies the REST filters (status, amount range) and counts what matches', async () => {
    const paidOnly = await walkForward(2, { filter: { status: 'paid' } });
    expect(paidOnly).toEqual(newestFirst.filter((orderId) => paid.has(orderId)));
    const { transactionsConnection: ranged } = await graphqlDataTyped(
      gateway,
      TransactionsConnectionDocument,
      { first: 100, filter: { minAmount: 1_003, maxAmount: 1_006 } },
      key,
    );
    expect(ranged.totalCount).toBe(4);
    expect(ranged.edges.map((edge: any) => edge.node.amount).sort()).toEqual([1_003, 1_004, 1_005, 1_006]);
  });

  it('pages backward with last/before, in the same newest-first order', async () => {
    const { transactionsConnection: tail } = await graphqlDataTyped(gateway, TransactionsConnectionDocument, { last: 4 }, key);
    expect(tail.edges.map((edge: any) => edge.node.orderId)).toEqual(newestFirst.slice(8));
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const { transactionsConnection: before } = await graphqlDataTyped(
      gateway,
      TransactionsConnectionDocument,
      { last: 4, before: tail.pageInfo.startCursor },
      key,
    );
    expect(before.edges.map((edge: any) => edge.node.orderId)).toEqual(newestFirst.slice(4, 8));
    expect(before.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
  });

  it('keeps its place while transactions are created: the next slice neither repeats nor skips a row', async () => {
    const { transactionsConnection: first } = await graphqlDataTyped(gateway, TransactionsConnectionDocument, { first: 4 }, key);
    expect(first.edges.map((edge: any) => edge.node.orderId)).toEqual(newestFirst.slice(0, 4));
    // New rows arrive between the two slices (an OFFSET would shift the next page by three).
    const created = await Promise.all([0, 1, 2].map(() => pendingTransaction(gateway, key, { price: 5_000 })));
    const { transactionsConnection: next } = await graphqlDataTyped(
      gateway,
      TransactionsConnectionDocument,
      { first: 4, after: first.pageInfo.endCursor },
      key,
    );
    expect(next.edges.map((edge: any) => edge.node.orderId)).toEqual(newestFirst.slice(4, 8));
    expect(next.totalCount).toBe(15);
    // ...and the new rows are at the head of a fresh walk.
    const fresh = await walkForward(6);
    expect(new Set(fresh.slice(0, 3))).toEqual(new Set(created));
    expect(fresh.slice(3)).toEqual(newestFirst);
    newestFirst = fresh;
  });

  it('caps first above 100 and refuses a size below 1, or both directions at once, with BAD_USER_INPUT', async () => {
    const { transactionsConnection: all } = await graphqlDataTyped(gateway, TransactionsConnectionDocument, { first: 1_000 }, key);
    expect(all.edges).toHaveLength(newestFirst.length);
    for (const variables of [{ first: 0 }, { last: -1 }, { first: 2, last: 2 }]) {
      const response = await graphqlTyped(gateway, TransactionsConnectionDocument, variables, key);
      expect(response.status).toBeLessThan(500);
      expect(response.body.errors?.[0]?.extensions?.code, JSON.stringify(variables)).toBe('BAD_USER_INPUT');
    }
  });

  it('refuses a cursor that is not one of its own with a clear BAD_USER_INPUT (never a 500)', async () => {
    const forged = [
      'not a cursor!',
      Buffer.from('12:not-a-uuid').toString('base64url'),
      Buffer.from('abc:6f1c1d5e-0000-4000-8000-000000000000').toString('base64url'),
      'A'.repeat(500),
      'a',
      '',
      '%00',
      Buffer.from('\u0000\uffff junk').toString('base64'),
    ];
    for (const after of forged) {
      const response = await graphqlTyped(gateway, TransactionsConnectionDocument, { first: 2, after }, key);
      expect(response.status).toBeLessThan(500);
      expectGraphqlError(response, 'invalid_query', 'after is not a cursor of this list');
    }
    expectGraphqlError(
      await graphqlTyped(gateway, TransactionsConnectionDocument, { last: 2, before: 'nope!' }, key),
      'invalid_query',
      'before is not a cursor of this list',
    );
  });

  it('keeps a merchant to its own organisation; operators read every one or the one they name', async () => {
    const other = await gateway.merchant({ scope: 'readAndWrite' });
    await pendingTransaction(gateway, other.key);
    const own = await walkForward(50);
    expect(own).toEqual(newestFirst);
    const named = await graphqlDataTyped(gateway, TransactionsConnectionOfOrganizationDocument, { organizationId: organization.id, first: 100 });
    expect(named.transactionsConnection.totalCount).toBe(newestFirst.length);
    expect(new Set(named.transactionsConnection.edges.map((edge: any) => edge.node.organizationId))).toEqual(new Set([organization.id]));
    const foreign = await graphqlTyped(gateway, TransactionsConnectionOfOrganizationDocument, { organizationId: other.organization.id, first: 1 }, key);
    expectGraphqlError(foreign, 'permission_denied');
  });

  it('keeps today’s page fields working beside it', async () => {
    const { transactions } = await graphqlDataTyped(gateway, TransactionsPageDocument, { page: 2, limit: 5 }, key);
    expect(transactions.transactions.map((transaction: { orderId: string }) => transaction.orderId)).toEqual(newestFirst.slice(5, 10));
    expect(transactions.pagination).toEqual({ page: 2, limit: 5, totalCount: newestFirst.length, totalPages: Math.ceil(newestFirst.length / 5) });
  });
});

describe('payoutsConnection and an organisation’s connections', () => {
  it('pages through the payouts with the REST filters', async () => {
    const { payoutsConnection: first } = await graphqlDataTyped(gateway, PayoutsConnectionDocument, { first: 3 }, payoutKey);
    expect(first.totalCount).toBe(5);
    const { payoutsConnection: rest } = await graphqlDataTyped(gateway, PayoutsConnectionDocument, { first: 3, after: first.pageInfo.endCursor }, payoutKey);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    const amounts = [...first.edges, ...rest.edges].map((edge: any) => edge.node.amount);
    expect(amounts).toEqual([1_004, 1_003, 1_002, 1_001, 1_000]);
    const { payoutsConnection: ranged } = await graphqlDataTyped(gateway, PayoutsConnectionDocument, { first: 10, filter: { minAmount: 1_003 } }, payoutKey);
    expect(ranged.edges.map((edge: any) => edge.node.amount)).toEqual([1_004, 1_003]);
  });

  it('gives operators an organisation’s transactions and payouts as connections too', async () => {
    const { organization: read } = await graphqlDataTyped(gateway, OrganizationConnectionsDocument, { id: organization.id });
    expect(read.transactions.totalCount).toBe(paid.size);
    expect(read.transactions.edges.map((edge: any) => edge.node.orderId)).toEqual(newestFirst.filter((orderId) => paid.has(orderId)).slice(0, 3));
    expect(read.payouts).toEqual({ totalCount: 5, edges: [{ node: { amount: 1_004 } }, { node: { amount: 1_003 } }] });
  });
});
