/**
 * Admin: issues an operator token with one role (`admin`, `analyst` or `support`; what each may do
 * is the access policy's). The token, `gw_op_` + 43 base64url characters (256 random bits), is
 * returned here and never again: the gateway keeps only its SHA-256 digest and a display prefix.
 */
import { OperatorRole } from '../../generated/prisma/enums.js';
import type { Caller } from './caller.js';
import { authorize } from './policy.js';
import { OPERATOR_TOKEN_PREFIX, generateSecret } from './auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isOneOf } from '../enums.js';
import { insertOperatorTokenWithin, type OperatorTokenMetadata } from './store.js';

export const OPERATOR_ROLES: readonly OperatorRole[] = Object.values(OperatorRole);

/**
 * Tokens in use at once (not revoked). A deployment's operators are a handful of people and
 * tools; the bound keeps `listOperatorTokens` (which shows every token in use) complete and small,
 * and stops a script issuing tokens in a loop from piling up live credentials.
 */
export const MAX_ACTIVE_OPERATOR_TOKENS = 100;

export interface IssuedOperatorToken {
  operatorToken: OperatorTokenMetadata;
  /** The full token: shown once. */
  secret: string;
}

export async function createOperatorToken(ctx: GatewayContext, caller: Caller, role: string): Promise<IssuedOperatorToken> {
  authorize(caller, 'createOperatorToken');
  if (!isOneOf(OPERATOR_ROLES, role)) throw new DomainError('invalid_input', `role must be one of ${OPERATOR_ROLES.join(', ')}`);
  const { secret, digest, displayPrefix } = generateSecret(OPERATOR_TOKEN_PREFIX);
  const operatorToken = await insertOperatorTokenWithin(ctx.db, { role, prefix: displayPrefix, tokenDigest: digest }, MAX_ACTIVE_OPERATOR_TOKENS);
  if (!operatorToken) throw new DomainError('too_many_operator_tokens', String(MAX_ACTIVE_OPERATOR_TOKENS));
  return { operatorToken, secret };
}
