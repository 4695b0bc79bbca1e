/** The signed-in user itself: email, role, two-factor state and organisation. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { readMember, type MemberRecord } from './store.js';

export async function me(ctx: GatewayContext, caller: Caller): Promise<MemberRecord> {
  authorize(caller, 'me');
  if (caller.kind !== 'merchantUser') throw new DomainError('permission_denied');
  const user = await readMember(ctx.db, caller.userId);
  if (!user || user.removedAt) throw new DomainError('not_signed_in');
  return user;
}
