/**
 * API keys of an organisation over GraphQL: listed with their last use (recorded at most once a
 * minute, off the request's path), issued with the secret shown once, revoked (then refused), each
 * change audited in its own transaction. Another organisation's key answers 404 to a merchant
 * principal; a key cannot manage keys.
 */
import { describe, expect, it } from 'vitest';
import { LAST_USE_RESOLUTION_MS } from '../../../src/domain/access/apiKeyUse.js';
import { expectGraphqlError } from '../../support/assertions.js';
import {
  MerchantApiKeysDocument as LIST,
  MerchantCreateApiKeyDocument as CREATE,
  MerchantRevokeApiKeyDocument as REVOKE,
  TypenameDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped as graphqlData, graphqlTyped } from '../../support/graphql/typed.js';
import { useGateway } from '../../support/gateway.js';
import { eventually } from '../../support/webhookReceiver.js';

const gateway = useGateway();

const keyRow = (id: string) => gateway.ctx.db.apiKey.findUniqueOrThrow({ where: { id } });

describe('API keys of an organisation', () => {
  it('shows when a key was last used, written once per minute at most', async () => {
    const organization = await gateway.createOrganization();
    const { createApiKey } = await graphqlData(gateway, CREATE, { org: organization.id, scope: 'read' });
    expect(createApiKey.apiKey).toMatchObject({ organizationId: organization.id, scope: 'read', revoked: false, lastUsedAt: null });
    expect(createApiKey.key.startsWith(createApiKey.apiKey.prefix)).toBe(true);

    const before = Date.now();
    expect((await gateway.rest('GET', '/api/v2/transactions?limit=1', { key: createApiKey.key })).status).toBe(200);
    const firstUse = await eventually(async () => (await keyRow(createApiKey.apiKey.id)).lastUsedAt);
    expect(firstUse.getTime()).toBeGreaterThanOrEqual(before - 5);
    const { apiKeys } = await graphqlData(gateway, LIST, { org: organization.id });
    expect(apiKeys).toEqual([expect.objectContaining({ id: createApiKey.apiKey.id, lastUsedAt: firstUse.toISOString() })]);

    // Within the minute, more requests write nothing: the time stays the first one's.
    for (let i = 0; i < 5; i++) expect((await gateway.rest('GET', '/api/v2/transactions?limit=1', { key: createApiKey.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await keyRow(createApiKey.apiKey.id)).lastUsedAt).toEqual(firstUse);
    expect(LAST_USE_RESOLUTION_MS).toBe(60_000);

    // The instance's memory alone holds it back: with the stored time made two minutes old, a request
    // within the minute still writes nothing (no read, no write on the request's path).
    await gateway.ctx.db.apiKey.update({ where: { id: createApiKey.apiKey.id }, data: { lastUsedAt: new Date(Date.now() - 2 * LAST_USE_RESOLUTION_MS) } });
    const second = await graphqlTyped(gateway, TypenameDocument, {}, createApiKey.key);
    expect(second.status).toBe(200);
    expect((await keyRow(createApiKey.apiKey.id)).lastUsedAt!.getTime()).toBeLessThan(before);
  });

  it('issues (secret once) and revokes keys with the audit entries written alongside', async () => {
    const organization = await gateway.createOrganization();
    const { createApiKey } = await graphqlData(gateway, CREATE, { org: organization.id, scope: 'payout' });
    const { revokeApiKey } = await graphqlData(gateway, REVOKE, { id: createApiKey.apiKey.id });
    expect(revokeApiKey).toMatchObject({ id: createApiKey.apiKey.id, revoked: true, propagationConfirmed: true });
    expect((await gateway.rest('GET', '/api/v2/payouts', { key: createApiKey.key })).status).toBe(401);
    // Revoking again changes nothing and records nothing more.
    await graphqlData(gateway, REVOKE, { id: createApiKey.apiKey.id });

    const audit = await gateway.ctx.db.auditEvent.findMany({ where: { organizationId: organization.id }, orderBy: { at: 'asc' } });
    expect(audit.map((event) => [event.action, event.target, event.actorKind, event.actorLabel])).toEqual([
      ['api_key.created', createApiKey.apiKey.id, 'operator', 'operator (admin)'],
      ['api_key.revoked', createApiKey.apiKey.id, 'operator', 'operator (admin)'],
    ]);
    expect(audit[0]!.details).toEqual({ scope: 'payout', prefix: createApiKey.apiKey.prefix });
    // Never the secret.
    expect(JSON.stringify(audit)).not.toContain(createApiKey.key);
  });

  it('an operator must name the organisation; an API key may not list, issue or revoke keys', async () => {
    expectGraphqlError(await graphqlTyped(gateway, LIST, {}, gateway.adminToken), 'invalid_input', 'organizationId is required');
    expectGraphqlError(await graphqlTyped(gateway, CREATE, { scope: 'read' }, gateway.adminToken), 'invalid_input', 'organizationId is required');
    const { organization, key } = await gateway.merchant({ scope: 'management' });
    expectGraphqlError(await graphqlTyped(gateway, LIST, {}, key), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, CREATE, { scope: 'payout' }, key), 'permission_denied');
    const [own] = await gateway.ctx.db.apiKey.findMany({ where: { organizationId: organization.id } });
    expectGraphqlError(await graphqlTyped(gateway, REVOKE, { id: own!.id }, key), 'permission_denied');
    expect((await keyRow(own!.id)).revokedAt).toBeNull();
  });
});
