/** The organisation's team: its active members, oldest first (the owner reads it; operators name the organisation). */
import type { MemberRecord } from './store.js';
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { MAX_TEAM_SIZE } from './rules.js';
import { listActiveMembers } from './store.js';

export async function listMembers(ctx: GatewayContext, caller: Caller, organizationId?: string | null): Promise<MemberRecord[]> {
  authorize(caller, 'listMembers');
  const organization = organizationOf(caller, organizationId);
  if (!organization) throw new DomainError('invalid_input', 'organizationId is required');
  return listActiveMembers(ctx.db, organization, MAX_TEAM_SIZE);
}
