/**
 * First step of signing in to the dashboard: email and password. Throttled per account and per
 * client address before any work; an unknown email costs the same argon2 verification as a known
 * one and gets the same refusal. Success opens a NEW session (any session the client held is
 * ended) that says what comes next:
 * - `two_factor`: the user has two-factor sign-in; the session only lets it send a code.
 * - `enrol_two_factor`: the organisation requires it and the user has none; the session only lets it enrol.
 * - `done`: signed in.
 */
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { verifyPassword } from './passwords.js';
import { MAX_PASSWORD_LENGTH, normalizeEmail } from './rules.js';
import { liveSession, openSession, userActor, type IssuedSession } from './sessions.js';
import { deleteExpiredSessions, deleteSession, readActiveUserByEmail } from './store.js';
import { throttleSignIn } from './throttle.js';

export type SignInNext = 'two_factor' | 'enrol_two_factor' | 'done';

export interface SignInInput {
  email: unknown;
  password: unknown;
  /** The client's address (the throttle's key; recorded on a failure in the audit log). */
  clientAddress: string;
  /** The session cookie the client sent, if any: ended, never carried over. */
  previousToken?: unknown;
}

/** Expired sessions removed per sign-in: housekeeping paid for by the rare sign-in, bounded. */
const EXPIRED_SESSIONS_SWEPT = 100;

export async function signIn(ctx: GatewayContext, input: SignInInput): Promise<{ next: SignInNext; session: IssuedSession }> {
  const typed = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' && input.password.length <= MAX_PASSWORD_LENGTH * 4 ? input.password : null;
  await throttleSignIn(ctx, typed.slice(0, 320), input.clientAddress);
  const email = safeEmail(typed);
  const user = email ? await readActiveUserByEmail(ctx.db, email) : null;
  const valid = (await verifyPassword(user?.passwordHash ?? null, password ?? '', ctx.settings.passwordHashCost)) && password !== null;
  const now = ctx.clock.now();
  if (!user || !valid) {
    if (user) {
      await recordAuditEvent(ctx.db, {
        organizationId: user.organizationId,
        actor: { kind: 'anonymous' },
        action: 'user.sign_in_failed',
        target: user.email,
        details: { step: 'password', clientAddress: input.clientAddress },
        at: now,
      });
    }
    throw new DomainError('invalid_credentials');
  }

  const next: SignInNext = user.twoFactorEnabled ? 'two_factor' : user.organization.requireTwoFactor ? 'enrol_two_factor' : 'done';
  const previous = await liveSession(ctx, input.previousToken);
  const session = await ctx.db.$transaction(async (tx) => {
    if (previous) await deleteSession(tx, previous.id);
    const opened = await openSession(tx, user.id, next === 'done', now);
    if (next === 'done')
      await recordAuditEvent(tx, {
        organizationId: user.organizationId,
        actor: userActor(user),
        action: 'user.signed_in',
        target: user.email,
        details: { secondFactor: 'none' },
        at: now,
      });
    return opened;
  });
  await deleteExpiredSessions(ctx.db, now, EXPIRED_SESSIONS_SWEPT);
  return { next, session };
}

function safeEmail(typed: string): string | null {
  try {
    return normalizeEmail(typed);
  } catch {
    return null;
  }
}
