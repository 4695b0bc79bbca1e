/**
 * Authentication is cached (no database read per request), and every change that matters takes
 * effect on the next request all the same: revocation, organisation status.
 */
import { describe, expect, it } from 'vitest';
import { revokeApiKey, updateOrganization } from '../../../src/domain/operations.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
const list = (key: string) => gateway.rest('GET', '/api/v2/transactions', { key });

describe('the authentication cache', () => {
  it('serves a known key without reading it again (a change behind the domain’s back goes unseen)', async () => {
    const { key, organization } = await gateway.merchant();
    expect((await list(key)).status).toBe(200);
    // Revoked straight in the database, not through the operation: no invalidation is sent.
    await gateway.ctx.db.apiKey.updateMany({ where: { organizationId: organization.id }, data: { revokedAt: new Date() } });
    expect((await list(key)).status).toBe(200);
  });

  it('refuses a key on the very next request once it is revoked through the operation', async () => {
    const { key, organization } = await gateway.merchant();
    expect((await list(key)).status).toBe(200);
    const [apiKey] = await gateway.ctx.db.apiKey.findMany({ where: { organizationId: organization.id } });
    await revokeApiKey(gateway.ctx, gateway.operator, apiKey!.id);
    expect(await list(key)).toMatchObject({ status: 401, body: { error: 'Invalid API key' } });
  });

  it('applies an organisation’s new status on the very next request', async () => {
    const { key, organization } = await gateway.merchant();
    expect((await list(key)).status).toBe(200);
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { status: 'blocked' });
    expect((await list(key)).status).toBe(403);
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { status: 'active' });
    expect((await list(key)).status).toBe(200);
  });

  it('does not cache a lookup that raced an invalidation', async () => {
    const { key, organization } = await gateway.merchant();
    const [apiKey] = await gateway.ctx.db.apiKey.findMany({ where: { organizationId: organization.id } });
    const cache = gateway.ctx.callers!;
    const stamp = cache.stamp();
    await revokeApiKey(gateway.ctx, gateway.operator, apiKey!.id); // lands while the "lookup" is in flight
    cache.set('some-digest', { kind: 'merchant', apiKeyId: apiKey!.id, scope: 'checkout', organization }, stamp);
    expect(cache.get('some-digest')).toBeUndefined();
    expect((await list(key)).status).toBe(401);
  });
});
