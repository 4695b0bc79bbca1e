/**
 * Admin: revokes an issued operator token; the next request with it gets 401, on every instance.
 *
 * Operator tokens are not cached (unlike API keys, callerCache.ts): authentication reads the token
 * by its digest from the primary database on every request (one unique-index lookup; operator
 * traffic is people and internal tools, not merchants' checkout traffic; the bench's "operator
 * token lookup" row measures it). So once this commits, every instance refuses the token at its
 * next request, with nothing to propagate and nothing that Redis being down could delay.
 *
 * What a request authenticated before the revocation still holds open (a live-update stream) is
 * another matter: the revocation is also told to every instance on the invalidation bus
 * (`invalidationOfOperatorToken`), for whatever holds such a thing to end it. Best effort: the
 * revocation itself is committed either way, and a failure to tell is logged.
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
import { markOperatorTokenRevoked, readOperatorToken, type OperatorTokenMetadata } from './store.js';

export async function revokeOperatorToken(ctx: GatewayContext, caller: Caller, tokenId: string): Promise<OperatorTokenMetadata> {
  authorize(caller, 'revokeOperatorToken');
  // An id that cannot be one names no token: 404, not a query PostgreSQL refuses (500).
  if (!isUuid(tokenId)) throw new DomainError('operator_token_not_found');
  // Revoking again is harmless: the answer shows the first revocation (and the instances are told again).
  await markOperatorTokenRevoked(ctx.db, tokenId, ctx.clock.now());
  const token = await readOperatorToken(ctx.db, tokenId);
  if (!token) throw new DomainError('operator_token_not_found');
  await tellInstances(ctx, tokenId);
  return token;
}

/** Publishes the revocation (bounded: CallerCache.invalidate gives up after PUBLISH_TIMEOUT_MS and retries in the background). */
async function tellInstances(ctx: GatewayContext, tokenId: string): Promise<void> {
  try {
    await ctx.callers?.invalidate(invalidationOfOperatorToken(tokenId));
  } catch (error) {
    ctx.log.warn({ err: error, operatorTokenId: tokenId }, 'an operator token is revoked (every request with it is refused), but the other instances could not be told in time; the message is sent again in the background');
  }
}
