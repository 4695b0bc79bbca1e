/**
 * Admin: revokes an issued operator token; the next request with it gets 401, on every instance.
 *
 * Operator tokens are not cached (unlike API keys, callerCache.ts): authentication reads the token
 * by its digest from the primary database on every request (one unique-index lookup; operator
 * traffic is people and internal tools, not merchants' checkout traffic). So once this commits,
 * every instance refuses the token at its next request, with nothing to propagate and nothing
 * that Redis being down could delay.
 *
 * The bootstrap GATEWAY_ADMIN_TOKEN is not a row: no id names it, so it cannot be revoked here
 * (it is replaced by changing the setting).
 */
import type { Caller } from './caller.js';
import { authorize } from './policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { markOperatorTokenRevoked, readOperatorToken, type OperatorTokenMetadata } from './store.js';

export async function revokeOperatorToken(ctx: GatewayContext, caller: Caller, tokenId: string): Promise<OperatorTokenMetadata> {
  authorize(caller, 'revokeOperatorToken');
  // An id that cannot be one names no token: 404, not a query PostgreSQL refuses (500).
  if (!isUuid(tokenId)) throw new DomainError('operator_token_not_found');
  // Revoking again is harmless: the answer shows the first revocation.
  await markOperatorTokenRevoked(ctx.db, tokenId, ctx.clock.now());
  const token = await readOperatorToken(ctx.db, tokenId);
  if (!token) throw new DomainError('operator_token_not_found');
  return token;
}
