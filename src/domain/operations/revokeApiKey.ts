/** Operator: revokes an API key at once; later requests with it get 401 `Invalid API key`. */
import type { ApiKey } from '../../generated/prisma/client.js';
import { authorizeOperator, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { invalidateCallers } from '../organizations.js';
import { invalidationOfKey } from '../callerCache.js';
import { isUuid } from '../transactions.js';

export async function revokeApiKey(ctx: GatewayContext, caller: Caller, keyId: string): Promise<ApiKey> {
  authorizeOperator(caller, 'mutate');
  const key = isUuid(keyId) ? await ctx.db.apiKey.findUnique({ where: { id: keyId } }) : null;
  if (!key) throw new DomainError('api_key_not_found');
  if (key.revokedAt) return key;
  const revoked = await ctx.db.apiKey.update({ where: { id: keyId }, data: { revokedAt: ctx.clock.now() } });
  await invalidateCallers(ctx, invalidationOfKey(keyId));
  return revoked;
}
