/**
 * Invites a person to an organisation's dashboard: a one-time link, `{PUBLIC_URL}/dashboard/invitation#<token>`,
 * valid INVITATION_TTL_MS (the token in the fragment is never sent to a server in a Referer or a
 * log line). The organisation's owner invites (an admin too: the CLI's `gateway user invite`). An
 * organisation without users gets an owner, whatever role was asked: someone must run the team.
 * Later invitations default to viewer, the least a member can do.
 */
import type { MerchantRole } from '../../generated/prisma/enums.js';
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf } from '../access/policy.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { readOrganizationOrThrow } from './organization.js';
import { INVITATION_TTL_MS, MAX_TEAM_SIZE, normalizeEmail, parseRole } from './rules.js';
import { countActiveMembers, countPendingInvitations, insertInvitation, readUserByEmail } from './store.js';
import { newToken } from './tokens.js';

export interface InviteMemberInput {
  organizationId?: string | null;
  email: string;
  role?: string | null;
}

export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: MerchantRole;
  expiresAt: Date;
  /** The link to hand to the person: shown once (only the token's digest is stored). */
  link: string;
}

const invitationLink = (ctx: GatewayContext, token: string): string => `${ctx.settings.publicUrl ?? ''}/dashboard/invitation#${token}`;

export async function inviteMember(ctx: GatewayContext, caller: Caller, input: InviteMemberInput): Promise<Invitation> {
  authorize(caller, 'inviteMember');
  const organizationId = organizationOf(caller, input.organizationId);
  if (!organizationId) throw new DomainError('invalid_input', 'organizationId is required');
  const email = normalizeEmail(input.email);
  const asked = input.role == null ? null : parseRole(input.role);
  await readOrganizationOrThrow(ctx.db, organizationId);
  const now = ctx.clock.now();
  const { token, digest } = newToken();
  const invitation = await ctx.db.$transaction(async (tx) => {
    const existing = await readUserByEmail(tx, email);
    if (existing && !existing.removedAt) throw new DomainError('member_exists');
    const members = await countActiveMembers(tx, organizationId);
    if (members + (await countPendingInvitations(tx, organizationId, now)) >= MAX_TEAM_SIZE) throw new DomainError('team_full', String(MAX_TEAM_SIZE));
    const role: MerchantRole = members === 0 ? 'owner' : (asked ?? 'viewer');
    const created = await insertInvitation(tx, { tokenDigest: digest, organizationId, email, role, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) });
    await recordAuditEvent(tx, { organizationId, actor: caller, action: 'member.invited', target: email, details: { role }, at: now });
    return created;
  });
  return { id: invitation.id, organizationId, email, role: invitation.role, expiresAt: invitation.expiresAt, link: invitationLink(ctx, token) };
}
