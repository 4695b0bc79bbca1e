/**
 * The owner gives a member another role; it applies to the member's next request (sessions read
 * the role each time). The last owner cannot be demoted: an organisation keeps someone who runs it.
 */
import type { MemberRecord } from './store.js';
import type { Caller } from '../access/caller.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { parseRole } from './rules.js';
import { readMember, updateRole } from './store.js';
import { endLiveAccess } from './sessions.js';
import { keepAnOwner, memberFor } from './team.js';

export async function changeMemberRole(ctx: GatewayContext, caller: Caller, userId: string, role: string): Promise<MemberRecord> {
  const wanted = parseRole(role);
  const member = await memberFor(ctx, caller, 'changeMemberRole', userId);
  if (member.role === wanted) return (await readMember(ctx.db, member.id))!;
  const changed = await ctx.db.$transaction(async (tx) => {
    const current = wanted === 'owner' ? member : await keepAnOwner(tx, member);
    const updated = await updateRole(tx, member.id, wanted);
    await recordAuditEvent(tx, {
      organizationId: member.organizationId,
      actor: caller,
      action: 'member.role_changed',
      target: member.email,
      details: { from: current.role, to: wanted },
    });
    return updated;
  });
  await endLiveAccess(ctx, member.id);
  return changed;
}
