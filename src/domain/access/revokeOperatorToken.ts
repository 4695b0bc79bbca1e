/**
 * Admin: revokes an issued operator token; later requests with it get 401, on every instance.
 *
 * Operator tokens are cached like API keys (callerCache.ts): the revocation is committed first,
 * then every instance is told to drop the token from its authentication cache, and to end what it
 * holds open (a live-update stream). The answer says whether that could be confirmed, exactly as
 * revokeApiKey's does: `propagationConfirmed` false means the database refuses the token but the
 * message to the other instances did not go through in time. Those that cannot hear Redis are
 * bypassing their caches already (so refuse the token within SUBSCRIPTION_TRUST_MS), and the
 * message is sent again in the background; revoking again retries the confirmation.
 *
 * The bootstrap GATEWAY_ADMIN_TOKEN is not a row: no id names it, so it cannot be revoked here
 * (it is replaced by changing the setting).
 */
import type { Caller } from './caller.js';
import { invalidationOfOperatorToken } from './callerCache.js';
import { authorize } from './policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { invalidateCallers } from './callerCache.js';
import { markOperatorTokenRevoked, readOperatorToken, type OperatorTokenMetadata } from './store.js';

export interface RevokedOperatorToken extends OperatorTokenMetadata {
  /** True once every instance will refuse the token; false: revoked, but that could not be confirmed. */
  propagationConfirmed: boolean;
}

export async function revokeOperatorToken(ctx: GatewayContext, caller: Caller, tokenId: string): Promise<RevokedOperatorToken> {
  authorize(caller, 'revokeOperatorToken');
  // An id that cannot be one names no token: 404, not a query PostgreSQL refuses (500).
  if (!isUuid(tokenId)) throw new DomainError('operator_token_not_found');
  // Revoking again is harmless: the answer shows the first revocation (and the instances are told
  // again: the way to confirm an earlier revocation that could not be).
  await markOperatorTokenRevoked(ctx.db, tokenId, ctx.clock.now());
  const token = await readOperatorToken(ctx.db, tokenId);
  if (!token) throw new DomainError('operator_token_not_found');
  return { ...token, propagationConfirmed: await invalidateCallers(ctx, invalidationOfOperatorToken(tokenId), { operatorTokenId: tokenId }) };
}
