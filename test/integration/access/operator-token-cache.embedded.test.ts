/**
 * The embedded, one-instance default (PGlite, in-process coordination: no Redis): issued operator
 * tokens are cached there too (callerCache.ts), and the invalidation bus is this process, so a
 * token revoked through GraphQL is refused at its very next request, while other tokens keep working.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import {
  CreateOperatorTokenDocument as CREATE,
  OrganizationCountDocument as ORGANIZATIONS,
  RevokeOperatorTokenConfirmedDocument as REVOKE,
  type OperatorRole,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped as graphqlData, graphqlTyped } from '../../support/graphql/typed.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway({ embedded: true });

async function issue(role: OperatorRole): Promise<{ token: string; id: string }> {
  const { createOperatorToken } = await graphqlData(gateway, CREATE, { role });
  return { token: createOperatorToken.token, id: createOperatorToken.operatorToken.id };
}

describe('issued operator tokens on the embedded database with in-process coordination', () => {
  it('are served from the cache, and one revoked through GraphQL is refused at its very next request', async () => {
    expect(gateway.db.kind).toBe('pglite');
    expect(gateway.ctx.coordination.kind).toBe('local');
    const [revoked, kept] = await Promise.all([issue('analyst'), issue('support')]);
    for (const { token } of [revoked, kept]) expect((await graphqlTyped(gateway, ORGANIZATIONS, {}, token)).status).toBe(200);
    expect(gateway.ctx.callers!.get(sha256Hex(revoked.token))).toMatchObject({ kind: 'operator', tokenId: revoked.id });

    const { revokeOperatorToken } = await graphqlData(gateway, REVOKE, { id: revoked.id });
    expect(revokeOperatorToken).toEqual({ id: revoked.id, revoked: true, propagationConfirmed: true });

    const refused = await graphqlTyped(gateway, ORGANIZATIONS, {}, revoked.token);
    expect(refused.status).toBe(401);
    expect(refused.body.errors).toEqual([expect.objectContaining({ message: 'Invalid API key' })]);
    expect(gateway.ctx.callers!.get(sha256Hex(revoked.token))).toBeUndefined();
    expect((await graphqlTyped(gateway, ORGANIZATIONS, {}, kept.token)).status).toBe(200);
  });
});
