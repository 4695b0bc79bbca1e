/**
 * The owner removes a member: it can no longer sign in, and its sessions end at once. The last
 * owner cannot be removed (an owner may leave once another owner exists).
 */
import type { MemberRecord } from './store.js';
import type { Caller } from '../access/caller.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { deleteSessionsOf, markRemoved } from './store.js';
import { endLiveAccess } from './sessions.js';
import { keepAnOwner, memberFor } from './team.js';

export async function removeMember(ctx: GatewayContext, caller: Caller, userId: string): Promise<MemberRecord> {
  const member = await memberFor(ctx, caller, 'removeMember', userId);
  const now = ctx.clock.now();
  const removed = await ctx.db.$transaction(async (tx) => {
    await keepAnOwner(tx, member);
    const gone = await markRemoved(tx, member.id, now);
    await deleteSessionsOf(tx, member.id);
    await recordAuditEvent(tx, {
      organizationId: member.organizationId,
      actor: caller,
      action: 'member.removed',
      target: member.email,
      details: { role: member.role },
      at: now,
    });
    return gone;
  });
  await endLiveAccess(ctx, member.id);
  return removed;
}
