/**
 * Dashboard users (a session cookie and its CSRF token, over real HTTP) on the integration
 * surface, by role, through the one access policy: owners and developers issue, list and revoke
 * their organisation's API keys and send test events; operations resend deliveries but manage no
 * keys or webhooks; viewers read metadata and the delivery log and change nothing. Another
 * organisation's key or webhook answers 404; every change is audited with the user's email.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import {
  DeleteWebhookDocument,
  MerchantApiKeysDocument as LIST_KEYS,
  MerchantCreateApiKeyDocument as CREATE_KEY,
  MerchantCreateWebhookDocument as CREATE_WEBHOOK,
  MerchantDeliveryLogDocument as LOG,
  MerchantRedeliverFailedWebhooksDocument as REDELIVER_FAILED,
  MerchantRedeliverWebhookDocument as REDELIVER,
  MerchantRevokeApiKeyDocument as REVOKE_KEY,
  MerchantSendTestWebhookDocument as SEND_TEST,
  MerchantWebhookUrlsDocument as LIST_WEBHOOKS,
} from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { signedIn, type DashboardBrowser } from '../../support/dashboard.js';
import { eventually } from '../../support/webhookReceiver.js';
import { useDispatching } from '../../support/webhooks.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 30, maxRetries: 0, timeoutMs: 1_000 } });
const delivering = useDispatching(gateway);

/** The first error's code of a GraphQL answer (undefined when it succeeded). */
async function refusalOf<Result, Variables>(
  browser: DashboardBrowser,
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
): Promise<string | undefined> {
  const answer = await browser.graphqlTyped(document, variables);
  return answer.body.errors?.[0]?.extensions?.code;
}

/** An organisation and a signed-in member of each role (the first member is its owner). */
async function team() {
  const organization = await gateway.createOrganization();
  const owner = await signedIn(gateway, organization.id, 'owner');
  const developer = await signedIn(gateway, organization.id, 'developer');
  const operations = await signedIn(gateway, organization.id, 'operations');
  const viewer = await signedIn(gateway, organization.id, 'viewer');
  return { organization, owner, developer, operations, viewer };
}

const auditOf = (organizationId: string, action: string) => gateway.ctx.db.auditEvent.findMany({ where: { organizationId, action }, orderBy: { at: 'asc' } });

describe('API keys from the dashboard', () => {
  it('a developer issues a key for its own organisation (shown once), sees its last use, revokes it; audited with its email', async () => {
    const { organization, developer, viewer } = await team();
    const { createApiKey } = await developer.dataTyped(CREATE_KEY, { scope: 'read' });
    expect(createApiKey.apiKey).toMatchObject({ organizationId: organization.id, scope: 'read', revoked: false, lastUsedAt: null });

    expect((await gateway.rest('GET', '/api/v2/transactions?limit=1', { key: createApiKey.key })).status).toBe(200);
    const used = await eventually(async () => {
      const { apiKeys } = await viewer.dataTyped(LIST_KEYS, {});
      return apiKeys.find((key: { id: string; lastUsedAt: string | null }) => key.id === createApiKey.apiKey.id && key.lastUsedAt);
    });
    expect(new Date(used.lastUsedAt!).getTime()).toBeLessThanOrEqual(Date.now());
    // Metadata only, whoever reads: the listing has no field that could hold the key.
    expect(JSON.stringify(await viewer.dataTyped(LIST_KEYS, {}))).not.toContain(createApiKey.key);

    expect((await developer.dataTyped(REVOKE_KEY, { id: createApiKey.apiKey.id })).revokeApiKey.revoked).toBe(true);
    expect((await gateway.rest('GET', '/api/v2/transactions?limit=1', { key: createApiKey.key })).status).toBe(401);

    const audit = [...(await auditOf(organization.id, 'api_key.created')), ...(await auditOf(organization.id, 'api_key.revoked'))];
    expect(audit.map((event) => [event.action, event.actorKind, event.actorLabel, event.target])).toEqual([
      ['api_key.created', 'merchantUser', developer.email, createApiKey.apiKey.id],
      ['api_key.revoked', 'merchantUser', developer.email, createApiKey.apiKey.id],
    ]);
  });

  it('another organisation’s key answers 404 and stays usable; naming another organisation is refused', async () => {
    const { owner } = await team();
    const other = await gateway.merchant({ scope: 'read' });
    const [otherKey] = await gateway.ctx.db.apiKey.findMany({ where: { organizationId: other.organization.id } });
    expect(await refusalOf(owner, REVOKE_KEY, { id: otherKey!.id })).toBe('API_KEY_NOT_FOUND');
    expect((await gateway.rest('GET', '/api/v2/transactions?limit=1', { key: other.key })).status).toBe(200);
    expect(await refusalOf(owner, LIST_KEYS, { org: other.organization.id })).toBe('FORBIDDEN');
    expect(await refusalOf(owner, CREATE_KEY, { org: other.organization.id, scope: 'read' })).toBe('FORBIDDEN');
  });

  it('operations and viewers may not issue or revoke keys; a viewer lists them', async () => {
    const { organization, owner, operations, viewer } = await team();
    const { createApiKey } = await owner.dataTyped(CREATE_KEY, { scope: 'checkout' });
    for (const member of [operations, viewer]) {
      expect(await refusalOf(member, CREATE_KEY, { scope: 'payout' })).toBe('FORBIDDEN');
      expect(await refusalOf(member, REVOKE_KEY, { id: createApiKey.apiKey.id })).toBe('FORBIDDEN');
    }
    expect((await viewer.dataTyped(LIST_KEYS, {})).apiKeys.map((key: { id: string }) => key.id)).toContain(createApiKey.apiKey.id);
    expect(await gateway.ctx.db.apiKey.count({ where: { organizationId: organization.id, revokedAt: null } })).toBe(1);
  });
});

describe('webhooks from the dashboard', () => {
  it('an owner registers an endpoint and sends a test event; everyone reads the log; operations resend; the viewer cannot', async () => {
    const { organization, owner, developer, operations, viewer } = await team();
    const path = `/dashboard-${organization.id}`;
    const { createWebhook } = await owner.dataTyped(CREATE_WEBHOOK, { url: `${delivering.receiver.url}${path}` });
    delivering.receiver.configure(path, { secret: createWebhook.secret, behaviour: { statuses: [500, 200] } });
    const webhookId = createWebhook.webhook.id;

    // The receiver fails the test event (no retries here): it is dropped, with its attempt logged.
    const { sendTestWebhook } = await developer.dataTyped(SEND_TEST, { id: webhookId });
    const [dropped] = await eventually(async () => {
      const { webhookDeliveries } = await viewer.dataTyped(LOG, { filter: { webhookId, status: 'dropped' } });
      // Both counted: the count and the page are separate statements, and one may read the
      // delivery before it was dropped and the other after (seen once under a loaded run).
      return webhookDeliveries.totalCount === 1 && webhookDeliveries.edges.length === 1 && webhookDeliveries.edges.map((edge) => edge.node);
    });
    expect(dropped).toMatchObject({ id: sendTestWebhook.id, event: 'test', attempts: [{ statusCode: 500 }] });
    expect(dropped!.attempts[0]!.signature).toBe(delivering.receiver.on(path)[0]!.headers['x-signature']);

    // The viewer sees the webhook (never its secret) and may not resend or change anything.
    expect((await viewer.dataTyped(LIST_WEBHOOKS, {})).webhooks).toEqual([{ id: webhookId, url: `${delivering.receiver.url}${path}` }]);
    expect(await refusalOf(viewer, REDELIVER, { id: dropped!.id })).toBe('FORBIDDEN');
    expect(await refusalOf(viewer, REDELIVER_FAILED, { since: '2020-01-01T00:00:00Z' })).toBe('FORBIDDEN');
    expect(await refusalOf(viewer, SEND_TEST, { id: webhookId })).toBe('FORBIDDEN');
    // Operations resend but manage no endpoint.
    expect(await refusalOf(operations, SEND_TEST, { id: webhookId })).toBe('FORBIDDEN');
    expect(await refusalOf(operations, CREATE_WEBHOOK, { url: `${delivering.receiver.url}/x` })).toBe('FORBIDDEN');
    expect((await operations.dataTyped(REDELIVER_FAILED, { since: new Date(Date.now() - 60_000).toISOString() })).redeliverFailedWebhooks).toBe(1);
    await eventually(async () => (await viewer.dataTyped(LOG, { filter: { webhookId, status: 'delivered' } })).webhookDeliveries.totalCount === 1);
    expect(delivering.receiver.on(path).every((request) => request.signatureValid)).toBe(true);

    const audit = await gateway.ctx.db.auditEvent.findMany({
      where: { organizationId: organization.id, action: { startsWith: 'webhook.' } },
      orderBy: { at: 'asc' },
    });
    expect(audit.map((event) => [event.action, event.actorLabel])).toEqual([
      ['webhook.created', owner.email],
      ['webhook.test_sent', developer.email],
      ['webhook.redelivered', operations.email],
    ]);
  });

  it('another organisation’s webhook and delivery answer 404 to a user', async () => {
    const { owner } = await team();
    const other = await gateway.merchant({ scope: 'management' });
    const created = await graphqlTyped(gateway, CREATE_WEBHOOK, { url: 'https://93.184.215.14/hooks' }, other.key);
    const webhookId = created.body.data!.createWebhook.webhook.id;
    expect(await refusalOf(owner, SEND_TEST, { id: webhookId })).toBe('WEBHOOK_NOT_FOUND');
    expect(await refusalOf(owner, DeleteWebhookDocument, { id: webhookId })).toBe('WEBHOOK_NOT_FOUND');
    expect((await owner.dataTyped(LOG, { filter: { webhookId } })).webhookDeliveries.totalCount).toBe(0);
  });
});
