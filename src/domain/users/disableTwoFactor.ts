/**
 * Turns two-factor sign-in off, with a current code (TOTP or recovery) as proof: a stolen session
 * alone cannot weaken the account. Refused while the organisation requires it.
 */
import type { Caller } from '../access/caller.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { useSecondFactor } from './codes.js';
import { signedInUser } from './signedInUser.js';
import { throttleSecondFactor } from './throttle.js';
import { deleteRecoveryCodes, disableTotp } from './store.js';

export async function disableTwoFactor(ctx: GatewayContext, caller: Caller, code: unknown): Promise<{ twoFactorEnabled: false }> {
  const { user } = await signedInUser(ctx, caller, 'disableTwoFactor');
  // Codes are guessable one by one: the same budget as the sign-in's second step.
  await throttleSecondFactor(ctx, user.id);
  if (!user.twoFactorEnabled) throw new DomainError('two_factor_not_enabled');
  if (user.organization.requireTwoFactor) throw new DomainError('two_factor_required_by_team');
  await ctx.db.$transaction(async (tx) => {
    if (!(await useSecondFactor(ctx, tx, user, code))) throw new DomainError('invalid_second_factor');
    await disableTotp(tx, user.id);
    await deleteRecoveryCodes(tx, user.id);
    await recordAuditEvent(tx, { organizationId: user.organizationId, actor: caller, action: 'user.two_factor_disabled', target: user.email });
  });
  return { twoFactorEnabled: false };
}
