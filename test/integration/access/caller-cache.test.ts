/**
 * Authentication is cached (no database read per request), and every change that matters takes
 * effect on the next request all the same: revocation, organisation status.
 */
import { describe, expect, it } from 'vitest';
import { createOperatorToken, revokeApiKey, revokeOperatorToken, updateOrganization } from '../../../src/domain/operations.js';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { useGateway } from '../../support/gateway.js';
import { TypenameDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';

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

/** The gateway here has in-process (local) coordination: the embedded, one-instance default. */
describe('the authentication cache, for issued operator tokens', () => {
  const asOperator = (token: string) => graphqlTyped(gateway, TypenameDocument, {}, token);

  it('serves a known token without reading it again (a change behind the domain’s back goes unseen)', async () => {
    const { secret, operatorToken } = await createOperatorToken(gateway.ctx, gateway.operator, 'analyst');
    expect((await asOperator(secret)).status).toBe(200);
    // Revoked straight in the database, not through the operation: no invalidation is sent.
    await gateway.ctx.db.operatorToken.update({ where: { id: operatorToken.id }, data: { revokedAt: new Date() } });
    expect((await asOperator(secret)).status).toBe(200);
  });

  it('refuses a token on the very next request once it is revoked through the operation; other tokens keep working', async () => {
    const [revoked, kept] = await Promise.all([
      createOperatorToken(gateway.ctx, gateway.operator, 'analyst'),
      createOperatorToken(gateway.ctx, gateway.operator, 'support'),
    ]);
    expect((await asOperator(revoked.secret)).status).toBe(200);
    expect((await asOperator(kept.secret)).status).toBe(200);
    expect(await revokeOperatorToken(gateway.ctx, gateway.operator, revoked.operatorToken.id)).toMatchObject({
      id: revoked.operatorToken.id,
      revokedAt: expect.any(Date),
      propagationConfirmed: true,
    });
    expect(await asOperator(revoked.secret)).toMatchObject({ status: 401, body: { errors: [expect.objectContaining({ message: 'Invalid API key' })] } });
    expect((await asOperator(kept.secret)).status).toBe(200);
  });

  it('does not cache a token lookup that raced its revocation', async () => {
    const { secret, operatorToken } = await createOperatorToken(gateway.ctx, gateway.operator, 'admin');
    const cache = gateway.ctx.callers!;
    const stamp = cache.stamp();
    await revokeOperatorToken(gateway.ctx, gateway.operator, operatorToken.id); // lands while the "lookup" is in flight
    cache.set('some-token-digest', { kind: 'operator', role: 'admin', tokenId: operatorToken.id }, stamp);
    expect(cache.get('some-token-digest')).toBeUndefined();
    expect((await asOperator(secret)).status).toBe(401);
  });

  it('never holds the bootstrap token (compared with the setting): only issued tokens are entries', async () => {
    const { secret, operatorToken } = await createOperatorToken(gateway.ctx, gateway.operator, 'analyst');
    expect((await asOperator(secret)).status).toBe(200);
    expect((await asOperator(gateway.adminToken)).status).toBe(200);
    expect(gateway.ctx.callers!.get(sha256Hex(secret))).toEqual({ kind: 'operator', role: 'analyst', tokenId: operatorToken.id });
    expect(gateway.ctx.callers!.get(sha256Hex(gateway.adminToken))).toBeUndefined();
  });
});
