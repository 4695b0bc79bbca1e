/**
 * Global ids and `node(id)`: Transaction, Payout, Organization, Account and Webhook each carry a
 * `nodeId` that `node(id)` loads again, with its relations; a merchant key reaches only its own
 * organisation's objects: another organisation's id answers null, exactly like a missing one.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWebhook } from '../../../src/domain/operations.js';
import type { OrganizationRecord } from '../../../src/domain/organizations/store.js';
import { expectGraphqlError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import {
  NodeDocument,
  NodeIdsOfEachTypeDocument,
  NodeTransactionLedgerEntriesDocument,
  NodeTransactionOrganizationDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped, nodeOfType } from '../../support/graphql/typed.js';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });

interface Fixture {
  organization: OrganizationRecord;
  readKey: string;
  payoutKey: string;
  ids: { Transaction: string; Payout: string; Organization: string; Account: string; Webhook: string };
  rowIds: { Transaction: string; Payout: string; Organization: string; Account: string; Webhook: string };
}

/** An organisation with one object of each node type, and their global ids. */
async function fixture(): Promise<Fixture> {
  const { organization, key: payoutKey } = await fundedMerchant(gateway);
  const readAndWrite = await gateway.createKey(organization.id, 'readAndWrite');
  const readKey = await gateway.createKey(organization.id, 'read');
  const orderId = await pendingTransaction(gateway, readAndWrite);
  await sandboxPay(gateway, orderId);
  const payout = await postPayout(gateway, payoutKey, payoutBody({ amount: 1_000 }));
  expect(payout.status, JSON.stringify(payout.body)).toBe(200);
  const webhook = (await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: 'http://127.0.0.1:9/hooks', version: 'v2' }))
    .webhook;
  const main = organization.accounts.find((account) => account.name === 'main')!;
  const data = await graphqlDataTyped(gateway, NodeIdsOfEachTypeDocument, {
    orderId,
    payoutId: payout.body.order_id,
    organizationId: organization.id,
    accountId: main.id,
  });
  return {
    organization,
    readKey,
    payoutKey,
    ids: {
      Transaction: data.transaction.nodeId,
      Payout: data.payout.nodeId,
      Organization: data.organization.nodeId,
      Account: data.account.nodeId,
      Webhook: data.webhooks.find((listed: { id: string }) => listed.id === webhook.id)!.nodeId,
    },
    rowIds: { Transaction: orderId, Payout: payout.body.order_id, Organization: organization.id, Account: main.id, Webhook: webhook.id },
  };
}

let mine: Fixture;
let theirs: Fixture;

beforeAll(async () => {
  mine = await fixture();
  theirs = await fixture();
}, 60_000);

describe('global ids', () => {
  it('gives each node type an opaque global id that node(id) loads again, with its fields and relations', async () => {
    for (const [type, nodeId] of Object.entries(mine.ids)) {
      expect(nodeId).not.toContain(mine.rowIds[type as keyof Fixture['rowIds']]);
      const { node } = await graphqlDataTyped(gateway, NodeDocument, { id: nodeId });
      expect(node).toMatchObject({ __typename: type, nodeId });
    }
    const { node: transaction } = await graphqlDataTyped(gateway, NodeDocument, { id: mine.ids.Transaction });
    expect(transaction).toEqual({ __typename: 'Transaction', nodeId: mine.ids.Transaction, orderId: mine.rowIds.Transaction, products: [{ name: 'Thiakry' }] });
    const organization = nodeOfType((await graphqlDataTyped(gateway, NodeDocument, { id: mine.ids.Organization })).node, 'Organization');
    expect(organization.accounts.map((account: { name: string }) => account.name).sort()).toEqual(['escrow', 'main']);
    const { node: webhook } = await graphqlDataTyped(gateway, NodeDocument, { id: mine.ids.Webhook });
    expect(webhook).toMatchObject({ id: mine.rowIds.Webhook, url: 'http://127.0.0.1:9/hooks' });
  });

  it('answers null for an id of nothing: a deleted-looking row, an unknown type, or not a global id at all', async () => {
    const unknownRow = Buffer.from(`Transaction:${randomUUID()}`).toString('base64');
    expect((await graphqlDataTyped(gateway, NodeDocument, { id: unknownRow })).node).toBeNull();
    const notAUuid = Buffer.from('Payout:12').toString('base64');
    expect((await graphqlDataTyped(gateway, NodeDocument, { id: notAUuid })).node).toBeNull();
  });

  it('refuses an id that is no global id with a clear BAD_USER_INPUT, never a 500', async () => {
    const malformed = [
      'not a global id',
      'a',
      '',
      '%00',
      '====',
      Buffer.from('junk without a type').toString('base64'),
      Buffer.from('\u0000\uffff:x').toString('base64'),
      Buffer.from(`Nope:${randomUUID()}`).toString('base64'),
      Buffer.from(`__proto__:${randomUUID()}`).toString('base64'),
      Buffer.from('Transaction:').toString('base64'),
    ];
    for (const id of malformed) {
      const response = await graphqlTyped(gateway, NodeDocument, { id }, gateway.adminToken);
      expect(response.status, id).toBe(200);
      expect(response.body.data?.node ?? null, id).toBeNull();
      expectGraphqlError(response, 'invalid_global_id');
    }
  });
});

describe('a merchant key', () => {
  it('loads its own organisation’s transaction, payout and account by global id', async () => {
    const load = async (id: string) => (await graphqlDataTyped(gateway, NodeDocument, { id }, mine.readKey)).node;
    expect(nodeOfType(await load(mine.ids.Transaction), 'Transaction').orderId).toBe(mine.rowIds.Transaction);
    expect(nodeOfType(await load(mine.ids.Payout), 'Payout').orderId).toBe(mine.rowIds.Payout);
    expect(nodeOfType(await load(mine.ids.Account), 'Account').id).toBe(mine.rowIds.Account);
  });

  it('gets null for another organisation’s transaction, payout or account, as for a missing one', async () => {
    for (const type of ['Transaction', 'Payout', 'Account'] as const) {
      const response = await graphqlTyped(gateway, NodeDocument, { id: theirs.ids[type] }, mine.readKey);
      expect({ data: response.body.data, errors: response.body.errors }, type).toEqual({ data: { node: null }, errors: undefined });
    }
    const missing = await graphqlTyped(gateway, NodeDocument, { id: Buffer.from(`Transaction:${randomUUID()}`).toString('base64') }, mine.readKey);
    expect({ data: missing.body.data, errors: missing.body.errors }).toEqual({ data: { node: null }, errors: undefined });
  });

  it('cannot reach another organisation’s rows through a relation of its own objects either', async () => {
    // The merchant's own transaction leads nowhere else: its ledger entries are its own organisation's.
    const { node } = await graphqlDataTyped(gateway, NodeTransactionLedgerEntriesDocument, { id: mine.ids.Transaction }, mine.readKey);
    expect(node!.ledgerEntries.length).toBeGreaterThan(0);
    expect(new Set(node!.ledgerEntries.map((entry) => entry.transactionId))).toEqual(new Set([mine.rowIds.Transaction]));
    // ...and the organisation behind it is the operators' to read.
    const organization = await graphqlTyped(gateway, NodeTransactionOrganizationDocument, { id: mine.ids.Transaction }, mine.readKey);
    expectGraphqlError(organization, 'permission_denied');
    expect(organization.body.data).toEqual({ node: null });
  });

  it('is refused, as the policy refuses the type’s read, for an organisation or a type its scope may not read', async () => {
    expectGraphqlError(await graphqlTyped(gateway, NodeDocument, { id: mine.ids.Organization }, mine.readKey), 'permission_denied');
    // A payout key reads payouts, not transactions: refused before anything is looked up.
    expectGraphqlError(await graphqlTyped(gateway, NodeDocument, { id: mine.ids.Transaction }, mine.payoutKey), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, NodeDocument, { id: theirs.ids.Transaction }, mine.payoutKey), 'permission_denied');
  });
});
