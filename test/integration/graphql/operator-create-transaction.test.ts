/**
 * An admin creates a transaction in an organisation's place (GraphQL createTransaction naming it:
 * what `gateway trigger` runs), judged as the organisation's own key would be; and the body a
 * `payment_status` delivery carries for a transaction (Transaction.paymentStatusWebhookBody: what
 * `gateway listen` forwards), compared with the outbox's own rows.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adjustAccount } from '../../../src/domain/operations.js';
import { useGateway } from '../../support/gateway.js';
import {
  CreateTransactionForDocument,
  CreateWebhookDocument,
  MerchantCancelTransactionDocument,
  RefundTransactionDocument,
  ReleaseEscrowDocument,
  SandboxPayDocument,
  TransactionWebhookBodyAsDocument,
  TransactionWebhookBodyDocument,
  TransactionsOfOrganizationDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlRefusalTyped, issueOperatorToken } from '../../support/graphql/typed.js';

// Private URLs allowed: a webhook on 127.0.0.1 gets outbox rows (no dispatcher runs here to send them).
const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });

const INPUT = { methodOfPayment: ['wave' as const], products: [{ name: 'Trigger probe', price: 2500, quantity: 2 }] };

const countOf = async (organizationId: string) =>
  (await graphqlDataTyped(gateway, TransactionsOfOrganizationDocument, { organizationId })).transactions.pagination.totalCount;

describe('createTransaction by an admin, naming the organisation', () => {
  it('creates a pending transaction of that organisation, which sandboxPay then pays', async () => {
    const organization = await gateway.createOrganization();
    const { createTransaction } = await graphqlDataTyped(gateway, CreateTransactionForDocument, { organizationId: organization.id, input: INPUT });
    expect(createTransaction.transaction).toMatchObject({ organizationId: organization.id, status: 'pending', amount: 5000 });
    expect(createTransaction.checkoutUrl).toContain(createTransaction.transaction.orderId);
    const { sandboxPay } = await graphqlDataTyped(gateway, SandboxPayDocument, { orderId: createTransaction.transaction.orderId });
    expect(sandboxPay).toMatchObject({ outcome: 'paid', transaction: { status: 'paid', organizationId: organization.id } });
  });

  it('refuses bad input with a clear error and creates nothing', async () => {
    const organization = await gateway.createOrganization();
    const blocked = await gateway.createOrganization({ update: { status: 'blocked' } });
    const inactive = await gateway.createOrganization({ update: { status: 'inactive' } });
    const waveOnly = await gateway.createOrganization({ allowedMethods: ['wave'] });
    const cases = [
      { variables: { input: INPUT }, code: 'BAD_USER_INPUT', message: /organizationId is required/ },
      { variables: { organizationId: randomUUID(), input: INPUT }, code: 'ORGANIZATION_NOT_FOUND', message: /Organization not found/ },
      { variables: { organizationId: 'not-an-id', input: INPUT }, code: 'ORGANIZATION_NOT_FOUND', message: /Organization not found/ },
      { variables: { organizationId: blocked.id, input: INPUT }, code: 'ORGANIZATION_BLOCKED', message: /./ },
      { variables: { organizationId: inactive.id, input: INPUT }, code: 'ORGANIZATION_INACTIVE', message: /./ },
      { variables: { organizationId: organization.id, input: { ...INPUT, products: [] } }, code: 'NO_PRODUCT', message: /product/ },
      {
        variables: { organizationId: waveOnly.id, input: { ...INPUT, methodOfPayment: ['orange_money' as const] } },
        code: 'PAYMENT_METHOD_NOT_ALLOWED',
        message: /orange_money/,
      },
    ];
    for (const { variables, code, message } of cases) {
      const refusal = await graphqlRefusalTyped(gateway, CreateTransactionForDocument, variables);
      expect({ code: refusal.extensions?.code, message: refusal.message }, JSON.stringify(variables)).toEqual({
        code,
        message: expect.stringMatching(message),
      });
    }
    for (const { id } of [organization, blocked, inactive, waveOnly]) expect(await countOf(id)).toBe(0);
  });

  it('is for admins only; a merchant key may name its own organisation, never another', async () => {
    const { organization, key } = await gateway.merchant();
    const other = await gateway.createOrganization();
    for (const role of ['analyst', 'support'] as const) {
      const token = await issueOperatorToken(gateway, role);
      const refusal = await graphqlRefusalTyped(gateway, CreateTransactionForDocument, { organizationId: organization.id, input: INPUT }, token);
      expect(refusal.extensions?.code).toBe('FORBIDDEN');
    }
    expect((await graphqlRefusalTyped(gateway, CreateTransactionForDocument, { organizationId: other.id, input: INPUT }, key)).extensions?.code).toBe(
      'FORBIDDEN',
    );
    expect(await countOf(other.id)).toBe(0);
    const own = await graphqlDataTyped(gateway, CreateTransactionForDocument, { organizationId: organization.id, input: INPUT }, key);
    expect(own.createTransaction.transaction.organizationId).toBe(organization.id);
    expect(await countOf(organization.id)).toBe(1);
  });
});

describe('Transaction.paymentStatusWebhookBody', () => {
  const bodyOf = async (orderId: string) => (await graphqlDataTyped(gateway, TransactionWebhookBodyDocument, { orderId })).transaction;
  /** The v2 bodies the outbox wrote for the transaction, oldest first. */
  const outboxBodies = async (transactionId: string) =>
    (await gateway.ctx.db.webhookDelivery.findMany({ where: { transactionId }, orderBy: { createdAt: 'asc' }, select: { body: true } })).map((row) => row.body);

  it('is byte for byte the body of the outbox’s v2 delivery at each notified status, and null while none is sent', async () => {
    const organization = await gateway.createOrganization({ escrowEnabled: true });
    await graphqlDataTyped(gateway, CreateWebhookDocument, { organizationId: organization.id, url: 'http://127.0.0.1:9/hooks', version: 'v2' });
    const { createTransaction } = await graphqlDataTyped(gateway, CreateTransactionForDocument, {
      organizationId: organization.id,
      input: { ...INPUT, isEscrow: true },
    });
    const { orderId } = createTransaction.transaction;
    expect(await bodyOf(orderId)).toEqual({ status: 'pending', paymentStatusWebhookBody: null });

    await graphqlDataTyped(gateway, SandboxPayDocument, { orderId });
    const held = await bodyOf(orderId);
    expect(held.status).toBe('paid_and_blocked');
    expect(await outboxBodies(orderId)).toEqual([held.paymentStatusWebhookBody]);
    expect(JSON.parse(held.paymentStatusWebhookBody!)).toMatchObject({ order_id: orderId, transaction_status: 'paid_and_blocked', amount: 5000 });

    await graphqlDataTyped(gateway, ReleaseEscrowDocument, { orderId });
    const released = await bodyOf(orderId);
    expect(released.status).toBe('paid');
    expect(await outboxBodies(orderId)).toEqual([held.paymentStatusWebhookBody, released.paymentStatusWebhookBody]);
  });

  it('asStatus: a payment refunded since reads as the body written when it was paid, but for updated_at (gateway listen reading a change late)', async () => {
    const { organization, key } = await gateway.merchant();
    // The refund gives back the amount; the fees stay with the gateway, so main needs a float.
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 10_000, reason: 'float' });
    await graphqlDataTyped(gateway, CreateWebhookDocument, { organizationId: organization.id, url: 'http://127.0.0.1:9/hooks', version: 'v2' });
    const { createTransaction } = await graphqlDataTyped(gateway, CreateTransactionForDocument, { organizationId: organization.id, input: INPUT });
    const { orderId } = createTransaction.transaction;
    await graphqlDataTyped(gateway, SandboxPayDocument, { orderId });
    const [written] = await outboxBodies(orderId);
    await graphqlDataTyped(gateway, RefundTransactionDocument, { orderId }, key);
    expect(await bodyOf(orderId)).toEqual({ status: 'refunded', paymentStatusWebhookBody: null });
    const asPaid = (await graphqlDataTyped(gateway, TransactionWebhookBodyAsDocument, { orderId, asStatus: 'paid' })).transaction;
    const { updated_at: _then, ...thenBody } = JSON.parse(written!);
    const { updated_at: _now, ...asPaidBody } = JSON.parse(asPaid.paymentStatusWebhookBody!);
    expect(asPaidBody).toEqual(thenBody);
    expect(Object.keys(JSON.parse(asPaid.paymentStatusWebhookBody!))).toEqual(Object.keys(JSON.parse(written!)));
    expect(
      (await graphqlDataTyped(gateway, TransactionWebhookBodyAsDocument, { orderId, asStatus: 'refunded' })).transaction.paymentStatusWebhookBody,
    ).toBeNull();
  });

  it('is null for a cancelled transaction (no delivery is written for it)', async () => {
    const { organization, key } = await gateway.merchant();
    const { createTransaction } = await graphqlDataTyped(gateway, CreateTransactionForDocument, { organizationId: organization.id, input: INPUT });
    await graphqlDataTyped(gateway, MerchantCancelTransactionDocument, { orderId: createTransaction.transaction.orderId }, key);
    expect(await bodyOf(createTransaction.transaction.orderId)).toEqual({ status: 'cancelled', paymentStatusWebhookBody: null });
  });

  it('asStatus: never the body of a payment that did not happen (a pending or cancelled transaction asked as paid)', async () => {
    const { organization, key } = await gateway.merchant();
    const { createTransaction } = await graphqlDataTyped(gateway, CreateTransactionForDocument, { organizationId: organization.id, input: INPUT });
    const { orderId } = createTransaction.transaction;
    for (const asStatus of ['paid', 'paid_and_blocked'] as const) {
      expect((await graphqlDataTyped(gateway, TransactionWebhookBodyAsDocument, { orderId, asStatus })).transaction).toEqual({
        status: 'pending',
        paymentStatusWebhookBody: null,
      });
    }
    await graphqlDataTyped(gateway, MerchantCancelTransactionDocument, { orderId }, key);
    expect((await graphqlDataTyped(gateway, TransactionWebhookBodyAsDocument, { orderId, asStatus: 'paid' })).transaction.paymentStatusWebhookBody).toBeNull();
  });

  it('asStatus: a value that is not a transaction status is refused with 400 and a code, and reads nothing', async () => {
    const { organization } = await gateway.merchant();
    const { createTransaction } = await graphqlDataTyped(gateway, CreateTransactionForDocument, { organizationId: organization.id, input: INPUT });
    for (const asStatus of ['PAID', 'settled', '', 7, null]) {
      const answer = await gateway.graphql(
        'query ($orderId: ID!, $asStatus: TransactionStatus!) { transaction(orderId: $orderId) { paymentStatusWebhookBody(asStatus: $asStatus) } }',
        { orderId: createTransaction.transaction.orderId, asStatus },
        gateway.adminToken,
      );
      expect(answer.status, JSON.stringify(asStatus)).toBe(400);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors[0].extensions.code).toEqual(expect.any(String));
      expect(answer.body.errors[0].extensions.code).not.toBe('INTERNAL_SERVER_ERROR');
    }
  });
});
