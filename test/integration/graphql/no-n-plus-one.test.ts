/**
 * A nested list costs a constant number of SQL statements, whatever its length: 20 or 100
 * transactions, each with its products, refund, payment attempts, webhook deliveries (with their
 * attempts) and ledger entries, are read in the same few statements (the page, its count, then
 * one batched read per relation), never one per transaction.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook } from '../../../src/domain/operations.js';
import type { OrganizationRecord } from '../../../src/domain/organizations/store.js';
import { useGateway } from '../../support/gateway.js';
import {
  NestedOrganizationConnectionsDocument,
  type NestedOrganizationConnectionsQueryVariables,
  NestedOrganizationsDocument,
  NestedTransactionsConnectionDocument,
  NestedTransactionsPageDocument,
  OrganizationConnectionsAloneDocument,
  TransactionProductsDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';
import { paidTransaction, refund } from '../../support/refunds.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });

/** Every statement any pool client sends while `run` runs (the test's gateway is the only user of pg here). */
let counting: string[] | null = null;
const originalQuery = pg.Client.prototype.query;
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  counting = [];
  try {
    await run();
    return counting;
  } finally {
    counting = null;
  }
}

let organization: OrganizationRecord;

beforeAll(async () => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    counting?.push(typeof config === 'string' ? config : String(config?.text));
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;

  const merchant = await gateway.merchant({ scope: 'readAndWrite' });
  organization = merchant.organization;
  // An endpoint no dispatcher calls: each payment leaves its delivery in the log, pending.
  await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: 'http://127.0.0.1:9/hooks', version: 'v2' });
  // 100 paid transactions (a delivery, a payment attempt and ledger entries each); every other one refunded.
  for (let batch = 0; batch < 10; batch += 1) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const orderId = await paidTransaction(gateway, merchant.key, { price: 1_000 + batch * 10 + i });
        if (i % 2 === 0) expect((await refund(gateway, merchant.key, orderId)).status).toBe(200);
      }),
    );
  }
}, 120_000);

afterAll(() => {
  pg.Client.prototype.query = originalQuery;
});

describe('a nested list of transactions', () => {
  it('reads 20 and 100 transactions with every relation in the same small number of statements', async () => {
    let small: any;
    let large: any;
    const smallStatements = await statementsOf(async () => {
      small = await graphqlDataTyped(gateway, NestedTransactionsPageDocument, { organizationId: organization.id, limit: 20 });
    });
    const largeStatements = await statementsOf(async () => {
      large = await graphqlDataTyped(gateway, NestedTransactionsPageDocument, { organizationId: organization.id, limit: 100 });
    });

    // The data is really there: the relations were read, not skipped.
    const rows = large.transactions.transactions;
    expect(small.transactions.transactions).toHaveLength(20);
    expect(rows).toHaveLength(100);
    expect(rows.every((row: any) => row.products.length === 1 && row.paymentAttempts.length === 1 && row.webhookDeliveries.length >= 1)).toBe(true);
    expect(rows.filter((row: any) => row.refund?.status === 'succeeded')).toHaveLength(50);
    expect(rows.every((row: any) => row.ledgerEntries.length >= 1)).toBe(true);

    expect(largeStatements.length, largeStatements.join('\n')).toBe(smallStatements.length);
    // The page, its count, and one read per relation: a small constant.
    expect(largeStatements.length, largeStatements.join('\n')).toBeLessThanOrEqual(10);
  });

  it('reads the products of a listed transaction from the list’s own statement (no further read)', async () => {
    const statements = await statementsOf(() => graphqlDataTyped(gateway, TransactionProductsDocument, { organizationId: organization.id }));
    // The page (products inside it) and its count: nothing per product, nothing per transaction.
    expect(statements, statements.join('\n')).toHaveLength(2);
  });

  it('reads the same relations through the Relay connection in the same number of statements for 20 and 100', async () => {
    const small = await statementsOf(() => graphqlDataTyped(gateway, NestedTransactionsConnectionDocument, { organizationId: organization.id, first: 20 }));
    let data: any;
    const large = await statementsOf(async () => {
      data = await graphqlDataTyped(gateway, NestedTransactionsConnectionDocument, { organizationId: organization.id, first: 100 });
    });
    expect(data.transactionsConnection.edges).toHaveLength(100);
    expect(large.length, large.join('\n')).toBe(small.length);
    expect(large.length).toBeLessThanOrEqual(10);
  });
});

describe('a nested list of organisations', () => {
  it('reads 5 and 20 organisations with their accounts, API keys and webhooks in the same number of statements', async () => {
    const tag = `NPlusOne${Date.now()}`;
    for (let i = 0; i < 20; i += 1) {
      const created = await gateway.createOrganization({ name: `${tag} ${i}` });
      await gateway.createKey(created.id, 'read');
      await createWebhook(gateway.ctx, gateway.operator, { organizationId: created.id, url: `http://127.0.0.1:9/hooks/${i}`, version: 'v2' });
    }
    const small = await statementsOf(() => graphqlDataTyped(gateway, NestedOrganizationsDocument, { search: tag, limit: 5 }));
    let data: any;
    const large = await statementsOf(async () => {
      data = await graphqlDataTyped(gateway, NestedOrganizationsDocument, { search: tag, limit: 20 });
    });
    expect(data.organizations.organizations).toHaveLength(20);
    expect(
      data.organizations.organizations.every(
        (organization: any) => organization.accounts.length === 2 && organization.apiKeys.length === 1 && organization.webhooks.length === 1,
      ),
    ).toBe(true);
    expect(large.length, large.join('\n')).toBe(small.length);
    expect(large.length).toBeLessThanOrEqual(8);
  });
});

describe('a list of organisations with their transactions and payouts (Relay connections)', () => {
  const tag = `Connections${Date.now()}`;
  const PER_ORGANIZATION = 12;
  const organizationIds: string[] = [];

  beforeAll(async () => {
    const db = gateway.ctx.db;
    // 50 organisations, PER_ORGANIZATION transactions and payouts each, written directly (the
    // reads are under test, not how rows are made). Rows of one organisation share creation
    // instants in pairs, so the keyset's tie-break on id is exercised too.
    for (let i = 0; i < 50; i += 1) {
      const created = await gateway.createOrganization({ name: `${tag} ${String(i).padStart(2, '0')}` });
      organizationIds.push(created.id);
    }
    const base = Date.UTC(2026, 0, 1);
    await db.transaction.createMany({
      data: organizationIds.flatMap((organizationId, o) =>
        Array.from({ length: PER_ORGANIZATION }, (_, n) => ({
          organizationId,
          amount: BigInt(1_000 + n * 100),
          methodOfPayment: ['wave' as const],
          status: n % 3 === 0 ? ('paid' as const) : ('pending' as const),
          customerPhone: `+22177000${String(o).padStart(2, '0')}${n % 2}`,
          isDeleted: n === 5,
          createdAt: new Date(base + o * 60_000 + Math.floor(n / 2) * 1_000),
        })),
      ),
    });
    await db.payout.createMany({
      data: organizationIds.flatMap((organizationId, o) =>
        Array.from({ length: PER_ORGANIZATION }, (_, n) => ({
          organizationId,
          selectedPaymentMethod: n % 2 === 0 ? ('wave' as const) : ('orange_money' as const),
          amount: BigInt(5_000 + n * 1_000),
          recipientPhone: `+22177100${String(o).padStart(2, '0')}${n % 3}`,
          recipientFirstName: n % 4 === 0 ? 'Awa' : 'Moussa',
          reason: `salary_${n}%`,
          status: n % 3 === 0 ? ('completed' as const) : ('pending' as const),
          isDeleted: n === 7,
          createdAt: new Date(base + o * 60_000 + Math.floor(n / 2) * 1_000),
        })),
      ),
    });
  }, 120_000);

  it('reads 20 and 50 organisations, each with its first 10 transactions and payouts, in the same number of statements', async () => {
    let small: any;
    let large: any;
    const smallStatements = await statementsOf(async () => {
      small = await graphqlDataTyped(gateway, NestedOrganizationConnectionsDocument, { search: tag, limit: 20, first: 10 });
    });
    const largeStatements = await statementsOf(async () => {
      large = await graphqlDataTyped(gateway, NestedOrganizationConnectionsDocument, { search: tag, limit: 50, first: 10 });
    });
    expect(small.organizations.organizations).toHaveLength(20);
    const organizations = large.organizations.organizations;
    expect(organizations).toHaveLength(50);
    for (const organization of organizations) {
      // One soft-deleted row each, left out: 11 match, 10 shown, more follow.
      for (const connection of [organization.transactions, organization.payouts]) {
        expect(connection).toMatchObject({ totalCount: PER_ORGANIZATION - 1, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
        expect(connection.edges).toHaveLength(10);
      }
    }
    // The page, its count, the accounts (the type's include), then one statement for every
    // organisation's transactions and one for their payouts, totals inside: a constant, not two per
    // organisation and connection (before: 2 + 1 + 4 per organisation, 203 for 50).
    expect(largeStatements.length, largeStatements.join('\n')).toBe(smallStatements.length);
    expect(largeStatements.length, largeStatements.join('\n')).toBeLessThanOrEqual(5);
  });

  it('answers each organisation exactly as its connection read alone does: rows, order, totals, cursors, next slices', async () => {
    const filters: Pick<NestedOrganizationConnectionsQueryVariables, 'transactionFilter' | 'payoutFilter'>[] = [
      {},
      { transactionFilter: { status: 'paid' }, payoutFilter: { status: 'completed' } },
      {
        transactionFilter: { includeDeleted: true, minAmount: 1_300, maxAmount: 2_000 },
        payoutFilter: { includeDeleted: true, minAmount: 6_000, maxAmount: 12_000 },
      },
      {
        transactionFilter: { customerPhone: '+221770000031', paymentMethod: null },
        payoutFilter: { paymentMethod: 'orange_money', recipientPhone: '+221771000031' },
      },
      { transactionFilter: { startDate: '2026-01-01T00:03:02.000Z', endDate: '2026-01-01T00:03:04.000Z' }, payoutFilter: { search: 'awa' } },
      { payoutFilter: { search: 'y_1%' } },
      { payoutFilter: { search: '77100031' } },
    ];
    const sample = [0, 3, 31, 49].map((i) => organizationIds[i]!);
    for (const filter of filters) {
      for (const first of [3, 10]) {
        const listed = (await graphqlDataTyped(gateway, NestedOrganizationConnectionsDocument, { search: tag, limit: 50, first, ...filter })).organizations
          .organizations;
        const byId = new Map(listed.map((organization: any) => [organization.id, organization]));
        for (const organizationId of sample) {
          const alone = await graphqlDataTyped(gateway, OrganizationConnectionsAloneDocument, { organizationId, first, ...filter });
          const nested = byId.get(organizationId) as any;
          expect(nested.transactions, JSON.stringify(filter)).toEqual(alone.transactionsConnection);
          expect(nested.payouts, JSON.stringify(filter)).toEqual(alone.payoutsConnection);
        }
        // The next slice, after the first one's last cursor (every organisation's are the same
        // argument here, so take one organisation's): the batched read pages like the lone one.
        const organizationId = sample[2]!;
        const nested = byId.get(organizationId) as any;
        for (const field of ['transactions', 'payouts'] as const) {
          const after = nested[field].pageInfo.endCursor;
          if (!after) continue;
          const next = (
            await graphqlDataTyped(gateway, NestedOrganizationConnectionsDocument, { search: tag, limit: 50, first, after, ...filter })
          ).organizations.organizations.find((organization) => organization.id === organizationId)!;
          const aloneNext = await graphqlDataTyped(gateway, OrganizationConnectionsAloneDocument, { organizationId, first, after, ...filter });
          expect(next[field]).toEqual(aloneNext[field === 'transactions' ? 'transactionsConnection' : 'payoutsConnection']);
        }
      }
    }
  }, 120_000);
});
