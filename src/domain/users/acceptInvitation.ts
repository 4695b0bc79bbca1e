/**
 * The invited person sets a password with the link's token: the user is created (or a removed
 * member's account given a new life) with the invitation's organisation and role, and the link
 * is used up. Refused alike when the token is unknown, expired or used: `invitation_invalid`.
 */
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { hashPassword } from './passwords.js';
import { checkPassword } from './rules.js';
import { claimInvitation, deleteRecoveryCodes, deleteSessionsOf, readUsableInvitation, readUserByEmail, upsertUserFromInvitation } from './store.js';
import { digestOfPresented } from './tokens.js';

export interface AcceptInvitationInput {
  token: unknown;
  password: unknown;
}

export async function acceptInvitation(ctx: GatewayContext, input: AcceptInvitationInput): Promise<{ email: string }> {
  const digest = digestOfPresented(input.token);
  const password = checkPassword(input.password);
  const now = ctx.clock.now();
  const invitation = digest ? await readUsableInvitation(ctx.db, digest, now) : null;
  if (!invitation) throw new DomainError('invitation_invalid');
  // Hashed before the transaction: argon2's ~50 ms should not hold row locks.
  const passwordHash = await hashPassword(password, ctx.settings.passwordHashCost);
  await ctx.db.$transaction(async (tx) => {
    if (!(await claimInvitation(tx, invitation.id, now))) throw new DomainError('invitation_invalid');
    const existing = await readUserByEmail(tx, invitation.email);
    if (existing && !existing.removedAt) throw new DomainError('member_exists');
    const user = await upsertUserFromInvitation(tx, invitation, passwordHash, now);
    // A revived account starts clean: no old second factor, no old sessions.
    await deleteRecoveryCodes(tx, user.id);
    await deleteSessionsOf(tx, user.id);
  });
  return { email: invitation.email };
}
