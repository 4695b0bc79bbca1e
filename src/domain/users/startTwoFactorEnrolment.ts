/**
 * Starts setting up two-factor sign-in: a new TOTP secret (kept encrypted, pending) and the
 * otpauth:// URL an authenticator app scans. Nothing changes until a code from it is confirmed.
 */
import type { Caller } from '../access/caller.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { newTotpSecret, sealTotpSecret } from './secondFactor.js';
import { signedInUser } from './signedInUser.js';
import { storePendingTotp } from './store.js';

export interface TwoFactorEnrolment {
  /** Base32, for typing into an app that cannot scan. */
  secret: string;
  otpauthUrl: string;
}

export async function startTwoFactorEnrolment(ctx: GatewayContext, caller: Caller): Promise<TwoFactorEnrolment> {
  const { user } = await signedInUser(ctx, caller, 'startTwoFactorEnrolment');
  if (user.twoFactorEnabled) throw new DomainError('two_factor_already_enabled');
  const enrolment = newTotpSecret(user.email);
  await storePendingTotp(ctx.db, user.id, sealTotpSecret(ctx, user.id, enrolment.secret));
  return enrolment;
}
