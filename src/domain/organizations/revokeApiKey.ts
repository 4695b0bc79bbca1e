/**
 * Revokes an API key (an operator: any; an organisation's owner or developer: its own, another
 * organisation's key answers 404 like a missing one); later requests with it get 401 `Invalid API key`.
 *
 * The revocation is committed first, then every instance is told to drop the key from its
 * authentication cache (callerCache.ts says why that is enough). The answer says whether that
 * could be confirmed: `propagationConfirmed` false means the database refuses the key but the
 * message to the other instances did not go through in time. Those that cannot hear Redis are
 * bypassing their caches already (so refuse the key within SUBSCRIPTION_TRUST_MS), and the message
 * is sent again in the background; revoking again retries the confirmation.
 */
import type { ApiKey } from '../../generated/prisma/client.js';
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { invalidateCallers, invalidationOfKey } from '../access/callerCache.js';
import { isUuid } from '../ids.js';
import { markApiKeyRevoked, readApiKey, readOrganizationApiKey } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export interface RevokedApiKey extends ApiKey {
  /** True once every instance will refuse the key; false: revoked, but that could not be confirmed. */
  propagationConfirmed: boolean;
}

export async function revokeApiKey(ctx: GatewayContext, caller: Caller, keyId: string): Promise<RevokedApiKey> {
  authorize(caller, 'revokeApiKey');
  const key = isUuid(keyId) ? await readRevocableKey(ctx, caller, keyId) : null;
  if (!key) throw new DomainError('api_key_not_found');
  // Revoking again is harmless, and tells the instances again: the way to confirm an earlier
  // revocation that could not be.
  const revoked = key.revokedAt ? key : await revokeAndRecord(ctx, caller, key);
  return { ...revoked, propagationConfirmed: await invalidateCallers(ctx, invalidationOfKey(keyId), { apiKeyId: keyId }) };
}

/** Marks the key revoked and records who did it, in one database transaction. */
function revokeAndRecord(ctx: GatewayContext, caller: Caller, key: ApiKey): Promise<ApiKey> {
  return ctx.db.$transaction(async (tx) => {
    const revoked = await markApiKeyRevoked(tx, key.id, ctx.clock.now());
    await recordAuditEvent(tx, {
      organizationId: key.organizationId,
      actor: caller,
      action: 'api_key.revoked',
      target: key.id,
      details: { scope: key.scope, prefix: key.prefix },
    });
    return revoked;
  });
}

/** The key if the caller may revoke it: any for operators, else one of the caller's organisation. */
function readRevocableKey(ctx: GatewayContext, caller: Caller, keyId: string): Promise<ApiKey | null> {
  const organizationId = organizationOf(caller);
  return organizationId ? readOrganizationApiKey(ctx.db, organizationId, keyId) : readApiKey(ctx.db, keyId);
}
