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
import { graphqlData } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { paidTransaction, refund } from '../../support/refunds.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });

const NESTED_PAGE = `query($organizationId: ID, $limit: Int) {
  transactions(organizationId: $organizationId, limit: $limit) {
    transactions {
      orderId products { name }
      refund { status } paymentAttempts { state }
      webhookDeliveries { status attempts { number } }
      ledgerEntries { kind }
    }
  }
}`;

const NESTED_CONNECTION = `query($organizationId: ID, $first: Int) {
  transactionsConnection(organizationId: $organizationId, first: $first) {
    edges { node { orderId products { name } refund { status } webhookDeliveries { event attempts { number } } ledgerEntries { kind } } }
  }
}`;

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
      small = await graphqlData(gateway, NESTED_PAGE, { organizationId: organization.id, limit: 20 });
    });
    const largeStatements = await statementsOf(async () => {
      large = await graphqlData(gateway, NESTED_PAGE, { organizationId: organization.id, limit: 100 });
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
    const statements = await statementsOf(() => graphqlData(gateway, `query($organizationId: ID) { transactions(organizationId: $organizationId, limit: 100) { transactions { orderId products { name } } } }`, { organizationId: organization.id }));
    // The page (products inside it) and its count: nothing per product, nothing per transaction.
    expect(statements, statements.join('\n')).toHaveLength(2);
  });

  it('reads the same relations through the Relay connection in the same number of statements for 20 and 100', async () => {
    const small = await statementsOf(() => graphqlData(gateway, NESTED_CONNECTION, { organizationId: organization.id, first: 20 }));
    let data: any;
    const large = await statementsOf(async () => {
      data = await graphqlData(gateway, NESTED_CONNECTION, { organizationId: organization.id, first: 100 });
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
    const query = `query($search: String, $limit: Int) { organizations(search: $search, limit: $limit) {
      organizations { id accounts { name } apiKeys { scope } webhooks { url } }
    } }`;
    const small = await statementsOf(() => graphqlData(gateway, query, { search: tag, limit: 5 }));
    let data: any;
    const large = await statementsOf(async () => {
      data = await graphqlData(gateway, query, { search: tag, limit: 20 });
    });
    expect(data.organizations.organizations).toHaveLength(20);
    expect(data.organizations.organizations.every((organization: any) => organization.accounts.length === 2 && organization.apiKeys.length === 1 && organization.webhooks.length === 1)).toBe(true);
    expect(large.length, large.join('\n')).toBe(small.length);
    expect(large.length).toBeLessThanOrEqual(8);
  });
});
