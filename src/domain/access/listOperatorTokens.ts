/**
 * Operators (any role): the issued operator tokens, metadata only (id, role, display prefix,
 * revocation, creation), never a token or its digest. Read from the primary, not `laggingReads`:
 * an admin lists right after revoking to see that it took, and a replica's lag would show the
 * token still in use.
 */
import type { Caller } from './caller.js';
import { authorize } from './policy.js';
import type { GatewayContext } from '../context.js';
import { MAX_ACTIVE_OPERATOR_TOKENS } from './createOperatorToken.js';
import { listOperatorTokenMetadata, type OperatorTokenMetadata } from './store.js';

/**
 * One answer's size: every token in use (at most MAX_ACTIVE_OPERATOR_TOKENS, listed first) and
 * as many of the most recently revoked ones again. Revoked tokens are kept as a record and
 * accumulate; older ones than that are not listed.
 */
const MAX_LISTED_OPERATOR_TOKENS = 2 * MAX_ACTIVE_OPERATOR_TOKENS;

export async function listOperatorTokens(ctx: GatewayContext, caller: Caller): Promise<OperatorTokenMetadata[]> {
  authorize(caller, 'listOperatorTokens');
  return listOperatorTokenMetadata(ctx.db, MAX_LISTED_OPERATOR_TOKENS);
}
