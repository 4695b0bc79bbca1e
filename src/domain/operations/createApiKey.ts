/** Operator: issues an API key with one scope. The secret is returned here and never again. */
import type { ApiKey } from '../../generated/prisma/client.js';
import { API_KEY_PREFIX, authorizeOperator, generateSecret, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findOrganization } from '../organizations.js';
import { API_SCOPES, isOneOf } from '../enums.js';

export interface IssuedApiKey {
  apiKey: ApiKey;
  /** The full key: shown once. */
  secret: string;
}

export async function createApiKey(ctx: GatewayContext, caller: Caller, organizationId: string, scope: string): Promise<IssuedApiKey> {
  authorizeOperator(caller, 'mutate');
  if (!isOneOf(API_SCOPES, scope)) throw new DomainError('invalid_input', `scope must be one of ${API_SCOPES.join(', ')}`);
  await findOrganization(ctx.db, organizationId);
  const { secret, digest, displayPrefix } = generateSecret(API_KEY_PREFIX);
  const apiKey = await ctx.db.apiKey.create({
    data: { organizationId, scope, prefix: displayPrefix, keyDigest: digest },
  });
  return { apiKey, secret };
}
