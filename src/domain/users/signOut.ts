/** Ends the session the cookie names (whatever state it is in); signing out twice is harmless. */
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { callerOf, endLiveAccess, liveSession } from './sessions.js';
import { deleteSession } from './store.js';

export async function signOut(ctx: GatewayContext, sessionToken: unknown): Promise<void> {
  const session = await liveSession(ctx, sessionToken);
  if (!session) return;
  await ctx.db.$transaction(async (tx) => {
    await deleteSession(tx, session.id);
    await recordAuditEvent(tx, {
      organizationId: session.user.organizationId,
      actor: callerOf(session.user, session),
      action: 'user.signed_out',
      target: session.user.email,
    });
  });
  await endLiveAccess(ctx, session.user.id);
}
