/**
 * Starts (or resumes) setting up two-factor sign-in: a TOTP secret (kept encrypted, pending) and
 * the otpauth:// URL an authenticator app scans. Nothing changes until a code from it is confirmed.
 *
 * The pending secret stays the same until enrolment completes (issue 30): a reload of the set-up
 * page, a second tab, or a return the next day shows the secret the authenticator already scanned,
 * so its codes are accepted. Only an explicit `renew` (or a pending secret this server key cannot
 * open) makes a new one, and the answer says so (`renewed`), so the page can ask to scan again.
 */
import type { Caller } from '../access/caller.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { newTotpSecret, openTotpSecret, otpauthUrlOf, sealTotpSecret } from './secondFactor.js';
import { signedInUser } from './signedInUser.js';
import { storeFirstPendingTotp, storePendingTotp } from './store.js';

export interface TwoFactorEnrolment {
  /** Base32, for typing into an app that cannot scan. */
  secret: string;
  otpauthUrl: string;
  /** A pending secret existed and was replaced: an authenticator that scanned it must scan again. */
  renewed: boolean;
}

export async function startTwoFactorEnrolment(ctx: GatewayContext, caller: Caller, options: { renew?: boolean } = {}): Promise<TwoFactorEnrolment> {
  const { user } = await signedInUser(ctx, caller, 'startTwoFactorEnrolment');
  if (user.twoFactorEnabled) throw new DomainError('two_factor_already_enabled');
  const pending = user.totpPendingEncrypted;
  if (pending && !options.renew) {
    const secret = openedOrNull(ctx, user.id, pending);
    if (secret) return { secret, otpauthUrl: otpauthUrlOf(secret, user.email), renewed: false };
  }
  const enrolment = newTotpSecret(user.email);
  const sealed = sealTotpSecret(ctx, user.id, enrolment.secret);
  if (pending) {
    await storePendingTotp(ctx.db, user.id, sealed);
    return { ...enrolment, renewed: true };
  }
  // Two tabs starting at once: the first stored secret wins and both show it.
  if (await storeFirstPendingTotp(ctx.db, user.id, sealed)) return { ...enrolment, renewed: false };
  return startTwoFactorEnrolment(ctx, caller);
}

/** The pending secret, or null when this server key cannot open it (the key was changed): then a new one is made. */
function openedOrNull(ctx: GatewayContext, userId: string, sealed: string): string | null {
  try {
    return openTotpSecret(ctx, userId, sealed);
  } catch {
    return null;
  }
}
