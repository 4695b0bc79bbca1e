/** The dashboard user an operation on one's own sign-in acts for (the policy admitted it; only users have one). */
import type { Caller, MerchantUserCaller } from '../access/caller.js';
import { authorize, type Operation } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { readActiveUser, type UserWithOrganization } from './store.js';

export async function signedInUser(
  ctx: GatewayContext,
  caller: Caller,
  operation: Operation,
): Promise<{ caller: MerchantUserCaller; user: UserWithOrganization }> {
  authorize(caller, operation);
  if (caller.kind !== 'merchantUser') throw new DomainError('permission_denied');
  const user = await readActiveUser(ctx.db, caller.userId);
  if (!user) throw new DomainError('not_signed_in');
  return { caller, user };
}
