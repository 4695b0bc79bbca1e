/**
 * Confirms two-factor sign-in with a code from the pending secret: it becomes the user's, and ten
 * recovery codes are issued (shown once). A user who had to enrol before being let in (its
 * organisation requires it) is then signed in, on a NEW session (`session`: the adapter replaces
 * the cookie; the CSRF token stays the same).
 */
import type { Caller } from '../access/caller.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { newRecoveryCodes, openTotpSecret, totpStepOf } from './secondFactor.js';
import { openSession, type IssuedSession } from './sessions.js';
import { signedInUser } from './signedInUser.js';
import { throttleSecondFactor } from './throttle.js';
import { deleteSession, enableTotp, readSessionCsrf, replaceRecoveryCodes } from './store.js';

export interface ConfirmedTwoFactor {
  recoveryCodes: string[];
  /** The new session when this enrolment completed the sign-in. */
  session: IssuedSession | null;
}

export async function confirmTwoFactorEnrolment(ctx: GatewayContext, caller: Caller, code: unknown): Promise<ConfirmedTwoFactor> {
  const { caller: userCaller, user } = await signedInUser(ctx, caller, 'confirmTwoFactorEnrolment');
  // Codes are guessable one by one: the same budget as the sign-in's second step.
  await throttleSecondFactor(ctx, user.id);
  if (user.twoFactorEnabled) throw new DomainError('two_factor_already_enabled');
  if (!user.totpPendingEncrypted) throw new DomainError('two_factor_enrolment_not_started');
  const now = ctx.clock.now();
  const step = typeof code === 'string' ? totpStepOf(openTotpSecret(ctx, user.id, user.totpPendingEncrypted), code.trim(), now) : null;
  if (step === null) throw new DomainError('invalid_second_factor');
  const { codes, digests } = newRecoveryCodes();
  return ctx.db.$transaction(async (tx) => {
    await enableTotp(tx, user.id, user.totpPendingEncrypted!, step);
    await replaceRecoveryCodes(tx, user.id, digests);
    let session: IssuedSession | null = null;
    if (userCaller.mustEnrolTwoFactor) {
      const csrfToken = await readSessionCsrf(tx, userCaller.sessionId);
      await deleteSession(tx, userCaller.sessionId);
      session = await openSession(tx, user.id, true, now, csrfToken ?? undefined);
    }
    await recordAuditEvent(tx, { organizationId: user.organizationId, actor: caller, action: 'user.two_factor_enabled', target: user.email, at: now });
    return { recoveryCodes: codes, session };
  });
}
