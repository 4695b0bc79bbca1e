/**
 * The domain as a graph: each relation answers exactly the rows that belong to its parent.
 * organisation -> accounts, transactions, payouts, webhooks, API keys (metadata only);
 * account -> entries, organisation; transaction -> organisation, products, payment attempts,
 * refund, webhook deliveries, ledger entries; payout -> organisation, ledger entries. Two
 * organisations side by side: nothing of one ever appears under the other. A merchant key reads a
 * relation only when the policy lets it run the relation's operation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createWebhook } from '../../../src/domain/operations.js';
import type { OrganizationRecord } from '../../../src/domain/organizations/store.js';
import { payTransaction } from '../../../src/domain/payments/payTransaction.js';
import { expectGraphqlError, graphqlData } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { pendingTransaction } from '../../support/accounts.js';
import {
  AccountRelationsDocument,
  OrganizationRelationsDocument,
  OrganizationWebhookDeliveriesDocument,
  PayoutRelationsDocument,
  SandboxPayDocument,
  TransactionDeliveriesRelationDocument,
  TransactionGraphDocument,
  TransactionMerchantRelationsDocument,
  TransactionOrganizationRelationDocument,
  TransactionsWithRelationsDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';
import { fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { PHONES, refund } from '../../support/refunds.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });

// Raw query text stays only for the introspection of ApiKey and Webhook.

interface World {
  organization: OrganizationRecord;
  key: string;
  orderId: string;
  payoutId: string;
  webhookId: string;
}

/** An organisation with a webhook, a transaction (one declined attempt, then paid, then refunded) and a payout. */
async function world(): Promise<World> {
  const { organization, key: payoutKey } = await fundedMerchant(gateway, { escrowEnabled: true });
  const key = await gateway.createKey(organization.id, 'readAndWrite');
  const webhook = (await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: 'http://127.0.0.1:9/hooks', version: 'v2' }))
    .webhook;
  const orderId = await pendingTransaction(gateway, key, { price: 4_000, feesCustomerSide: true });
  const declined = await graphqlDataTyped(gateway, SandboxPayDocument, { orderId, method: 'wave', phone: '+221770000000' });
  expect(declined.sandboxPay.outcome).toBe('failed');
  expect((await payTransaction(gateway.ctx, gateway.operator, orderId, { method: 'wave', phone: PHONES.refundSucceeds })).outcome).toBe('paid');
  expect((await refund(gateway, key, orderId)).status).toBe(200);
  const payout = await postPayout(gateway, payoutKey, payoutBody({ amount: 2_000 }));
  expect(payout.status, JSON.stringify(payout.body)).toBe(200);
  return { organization, key, orderId, payoutId: payout.body.order_id, webhookId: webhook.id };
}

let one: World;
let two: World;

beforeAll(async () => {
  one = await world();
  two = await world();
}, 60_000);

describe('a transaction', () => {
  it('leads to its organisation, products, attempts (oldest first), refund, deliveries and ledger entries', async () => {
    const { transaction } = await graphqlDataTyped(gateway, TransactionGraphDocument, { orderId: one.orderId });
    expect(transaction.organization).toEqual({ id: one.organization.id, name: one.organization.name });
    expect(transaction.products).toEqual([{ name: 'Thiakry', price: 4_000, quantity: 1 }]);
    expect(transaction.paymentAttempts.map((attempt: any) => [attempt.phone, attempt.state])).toEqual([
      ['+221770000000', 'failed'],
      [PHONES.refundSucceeds, 'succeeded'],
    ]);
    expect(transaction.refund).toMatchObject({ method: 'wave', status: 'succeeded' });
    // payment_status on payment: every delivery is this transaction's, none delivered (no dispatcher here).
    expect(transaction.webhookDeliveries.length).toBeGreaterThanOrEqual(1);
    expect(transaction.webhookDeliveries.every((delivery: any) => delivery.status === 'pending')).toBe(true);
    expect(transaction.webhookDeliveries.every((delivery: any) => delivery.orderId === one.orderId && delivery.event === 'payment_status')).toBe(true);
    // What moved on the merchant's accounts: the payment in, the refund out; nothing of the gateway's accounts.
    const kinds = transaction.ledgerEntries.map((entry: any) => entry.kind);
    expect(kinds).toContain('payment');
    expect(kinds).toContain('refund');
    expect(transaction.ledgerEntries.every((entry: any) => entry.transactionId === one.orderId)).toBe(true);
    expect(transaction.ledgerEntries.reduce((sum: number, entry: any) => sum + entry.amount, 0)).toBe(0);
  });

  it('is read the same through a list, each row with its own relations only', async () => {
    const { transactions } = await graphqlDataTyped(gateway, TransactionsWithRelationsDocument, {});
    for (const world of [one, two]) {
      const row = transactions.transactions.find((listed) => listed.orderId === world.orderId)!;
      expect(row.organization.id).toBe(world.organization.id);
      expect(row.paymentAttempts).toHaveLength(2);
      expect(row.refund!.status).toBe('succeeded');
      expect(new Set(row.ledgerEntries.map((entry: any) => entry.transactionId))).toEqual(new Set([world.orderId]));
      expect(new Set(row.webhookDeliveries.map((delivery: any) => delivery.orderId))).toEqual(new Set([world.orderId]));
    }
  });

  it('gives a merchant key its refund, attempts and ledger entries, but not its deliveries or organisation (another operation)', async () => {
    const { transaction } = await graphqlDataTyped(gateway, TransactionMerchantRelationsDocument, { orderId: one.orderId }, one.key);
    expect(transaction.refund!.status).toBe('succeeded');
    expect(transaction.paymentAttempts).toHaveLength(2);
    expect(transaction.ledgerEntries.length).toBeGreaterThan(0);
    for (const send of [
      () => graphqlTyped(gateway, TransactionDeliveriesRelationDocument, { orderId: one.orderId }, one.key),
      () => graphqlTyped(gateway, TransactionOrganizationRelationDocument, { orderId: one.orderId }, one.key),
    ]) {
      const refused = await send();
      expectGraphqlError(refused, 'permission_denied');
    }
  });
});

describe('a payout and an account', () => {
  it('a payout leads to its organisation and the entries it moved', async () => {
    const { payout } = await graphqlDataTyped(gateway, PayoutRelationsDocument, { orderId: one.payoutId });
    expect(payout.organization.id).toBe(one.organization.id);
    // amount + fees out of main, in one or more entries of this payout only.
    expect(payout.ledgerEntries.length).toBeGreaterThan(0);
    expect(payout.ledgerEntries.reduce((sum: number, entry: any) => sum + entry.amount, 0)).toBeLessThanOrEqual(-2_000);
  });

  it('an account leads to its organisation and its own entries', async () => {
    const main = one.organization.accounts.find((account) => account.name === 'main')!;
    const { account } = await graphqlDataTyped(gateway, AccountRelationsDocument, { id: main.id });
    expect(account.organization.id).toBe(one.organization.id);
    const orders = new Set(account.entries.entries.map((entry: any) => entry.transactionId).filter(Boolean));
    expect(orders).toEqual(new Set([one.orderId]));
  });
});

describe('an organisation', () => {
  it('leads to its accounts, transactions, payouts, webhooks and API keys, none of another organisation', async () => {
    const { organization } = await graphqlDataTyped(gateway, OrganizationRelationsDocument, { id: one.organization.id });
    expect(organization.accounts.map((account: any) => account.name).sort()).toEqual(['escrow', 'main']);
    expect(organization.transactions.edges.map((edge: any) => edge.node.orderId)).toEqual([one.orderId]);
    expect(organization.payouts.edges.map((edge: any) => edge.node.orderId)).toEqual([one.payoutId]);
    expect(organization.webhooks.map((webhook: any) => webhook.id)).toEqual([one.webhookId]);
    expect(organization.apiKeys.map((key: any) => key.scope).sort()).toEqual(['payout', 'readAndWrite']);
    for (const rows of [organization.accounts, organization.webhooks, organization.apiKeys]) {
      expect(rows.every((row: any) => row.organizationId === one.organization.id)).toBe(true);
    }
    expect(organization.apiKeys.every((key: any) => key.prefix.length < 20)).toBe(true);
  });

  it('leads from a webhook to its delivery log: the events sent to it, each about one of the organisation’s transactions', async () => {
    const { organization } = await graphqlDataTyped(gateway, OrganizationWebhookDeliveriesDocument, { id: one.organization.id });
    const webhook = organization.webhooks[0]!;
    expect(webhook.deliveries.length).toBeGreaterThanOrEqual(1);
    expect(webhook.deliveries.every((delivery: any) => delivery.webhookId === one.webhookId && delivery.orderId === one.orderId)).toBe(true);
  });

  it('shows API keys as metadata only: no field of ApiKey can carry the key or its digest', async () => {
    const { __type } = await graphqlData(gateway, `{ __type(name: "ApiKey") { fields { name } } }`);
    expect(__type.fields.map((field: { name: string }) => field.name).sort()).toEqual([
      'createdAt',
      'id',
      'lastUsedAt',
      'organizationId',
      'prefix',
      'revoked',
      'revokedAt',
      'scope',
    ]);
    const { __type: webhook } = await graphqlData(gateway, `{ __type(name: "Webhook") { fields { name } } }`);
    expect(webhook.fields.map((field: { name: string }) => field.name)).not.toContain('secret');
    expect(webhook.fields.map((field: { name: string }) => field.name)).not.toContain('encryptedSecret');
  });
});
