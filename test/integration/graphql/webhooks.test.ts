/**
 * Webhook management over GraphQL: operators (admin) and a merchant's `management` key create,
 * list, rotate and delete webhooks, read the delivery log with its attempts and redeliver; the
 * secret appears only in the create / rotate answers; other keys and organisations are refused.
 */
import { describe, expect, it } from 'vitest';
import { expectGraphqlError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import {
  CreateWebhookDocument,
  DeleteWebhookDocument,
  RedeliverWebhookDocument,
  RotateWebhookSecretDocument,
  WebhookDeliveriesDocument,
  WebhooksDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';
import { eventually } from '../../support/webhookReceiver.js';
import { paidTransaction, useDispatching } from '../../support/webhooks.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 50, maxRetries: 1, timeoutMs: 1_000 } });
const delivering = useDispatching(gateway);

const nodesOf = <Node>(connection: { edges: { node: Node }[] }) => connection.edges.map((edge) => edge.node);

describe('webhooks over GraphQL', () => {
  it('operators create (secret once), list, read the delivery log, redeliver, rotate and delete', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    const { createWebhook } = await graphqlDataTyped(gateway, CreateWebhookDocument, {
      organizationId: organization.id,
      url: `${delivering.receiver.url}/gql`,
      version: 'v1',
    });
    expect(createWebhook.webhook).toMatchObject({ organizationId: organization.id, url: `${delivering.receiver.url}/gql`, version: 'v1', active: true });
    expect(createWebhook.secret).toMatch(/^whsec_/);
    delivering.receiver.configure('/gql', { secret: createWebhook.secret });

    const { webhooks } = await graphqlDataTyped(gateway, WebhooksDocument, { organizationId: organization.id });
    expect(webhooks).toEqual([createWebhook.webhook]);

    const paid = await paidTransaction(gateway, key);
    const log = await eventually(async () => {
      const webhookDeliveries = nodesOf((await graphqlDataTyped(gateway, WebhookDeliveriesDocument, { filter: { orderId: paid.id } })).webhookDeliveries);
      return webhookDeliveries[0]?.status === 'delivered' ? webhookDeliveries : null;
    });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ webhookId: createWebhook.webhook.id, event: 'payment_status', orderId: paid.id, attemptCount: 1, redeliveryOf: null });
    expect(JSON.parse(log[0]!.body)).toMatchObject({ order_id: paid.id, transaction_status: 'paid', payment_method: 'WAVE' });
    expect(log[0]!.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: 200, error: null, response: 'status 200' })]);
    expect(delivering.receiver.on('/gql')[0]!.signatureValid).toBe(true);

    const { redeliverWebhook } = await graphqlDataTyped(gateway, RedeliverWebhookDocument, { deliveryId: log[0]!.id });
    expect(redeliverWebhook).toMatchObject({ redeliveryOf: log[0]!.id, eventId: log[0]!.eventId, status: 'pending', attempts: [] });
    await eventually(() => delivering.receiver.on('/gql').length === 2);

    const { rotateWebhookSecret } = await graphqlDataTyped(gateway, RotateWebhookSecretDocument, { id: createWebhook.webhook.id });
    expect(rotateWebhookSecret.secret).not.toBe(createWebhook.secret);
    const { deleteWebhook } = await graphqlDataTyped(gateway, DeleteWebhookDocument, { id: createWebhook.webhook.id });
    expect(deleteWebhook.active).toBe(false);
    expect((await graphqlDataTyped(gateway, WebhooksDocument, { organizationId: organization.id })).webhooks).toEqual([]);
  });

  it('a management key manages its own organisation’s webhooks only; other keys are refused', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'management' });
    const { createWebhook } = await graphqlDataTyped(gateway, CreateWebhookDocument, { url: 'https://93.184.215.14/hooks' }, key);
    expect(createWebhook.webhook).toMatchObject({ organizationId: organization.id, version: 'v2' });
    expect((await graphqlDataTyped(gateway, WebhooksDocument, {}, key)).webhooks.map((webhook: { id: string }) => webhook.id)).toEqual([
      createWebhook.webhook.id,
    ]);

    const other = await gateway.merchant({ scope: 'management' });
    expectGraphqlError(await graphqlTyped(gateway, RotateWebhookSecretDocument, { id: createWebhook.webhook.id }, other.key), 'webhook_not_found');
    expectGraphqlError(
      await graphqlTyped(gateway, CreateWebhookDocument, { organizationId: organization.id, url: 'https://93.184.215.14/x' }, other.key),
      'permission_denied',
    );
    expect(
      nodesOf((await graphqlDataTyped(gateway, WebhookDeliveriesDocument, { organizationId: other.organization.id }, other.key)).webhookDeliveries),
    ).toEqual([]);

    const checkout = await gateway.merchant({ scope: 'checkout' });
    expectGraphqlError(await graphqlTyped(gateway, WebhooksDocument, {}, checkout.key), 'permission_denied');
    expectGraphqlError(
      await graphqlTyped(gateway, CreateWebhookDocument, { organizationId: null, url: 'https://93.184.215.14/hooks' }, checkout.key),
      'permission_denied',
    );
  });

  it('refuses a bad URL with its own code', async () => {
    const { organization } = await gateway.merchant();
    expectGraphqlError(
      await graphqlTyped(gateway, CreateWebhookDocument, { organizationId: organization.id, url: 'ftp://93.184.215.14/' }, gateway.adminToken),
      'invalid_webhook_url',
      'it must use http or https',
    );
  });
});
