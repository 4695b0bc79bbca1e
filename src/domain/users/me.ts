/** The signed-in user itself: email, role, two-factor state and organisation. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { readActiveUser, type UserWithOrganization } from './store.js';

export async function me(ctx: GatewayContext, caller: Caller): Promise<UserWithOrganization> {
  authorize(caller, 'me');
  if (caller.kind !== 'merchantUser') throw new DomainError('permission_denied');
  const user = await readActiveUser(ctx.db, caller.userId);
  if (!user) throw new DomainError('not_signed_in');
  return user;
}
