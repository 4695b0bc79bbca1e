/** What changing or removing a member shares: finding it in the caller's organisation, and keeping an owner. */
import type { MerchantUser } from '../../generated/prisma/client.js';
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf, type Operation } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { DbTransaction } from '../ports.js';
import { lockOwners, readActiveMember, readActiveUser } from './store.js';

/** The member `userId` of the organisation the caller acts on (an operator acts on the member's own). */
export async function memberFor(ctx: GatewayContext, caller: Caller, operation: Operation, userId: string): Promise<MerchantUser> {
  authorize(caller, operation);
  if (!isUuid(userId)) throw new DomainError('member_not_found');
  const member = await readActiveUser(ctx.db, userId);
  if (!member) throw new DomainError('member_not_found');
  // Another organisation's member is not found, exactly like a missing one (docs/architecture.md#cross-organisation-access).
  if (caller.kind !== 'operator' && organizationOf(caller) !== member.organizationId) throw new DomainError('member_not_found');
  return member;
}

/** Within the change's transaction: refuses when `member` is the organisation's last owner and would stop being one. */
export async function keepAnOwner(tx: DbTransaction, member: MerchantUser): Promise<MerchantUser> {
  const owners = await lockOwners(tx, member.organizationId);
  const current = await readActiveMember(tx, member.organizationId, member.id);
  if (!current) throw new DomainError('member_not_found');
  if (current.role === 'owner' && owners.length <= 1) throw new DomainError('last_owner');
  return current;
}
