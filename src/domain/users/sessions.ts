/**
 * Dashboard sessions: a random 256-bit token in an HttpOnly cookie, only its SHA-256 digest
 * stored; a CSRF token kept with it. A session ends after SESSION_IDLE_MS without a request and
 * SESSION_ABSOLUTE_MS after it began; a password-only one (waiting for the second factor, or for
 * enrolment the organisation requires) within SECOND_FACTOR_WINDOW_MS. Every step of signing in
 * issues a NEW session (fixation: a token known before a step is worthless after it).
 */
import type { DashboardSession } from '../../generated/prisma/client.js';
import type { MerchantUserCaller } from '../access/caller.js';
import { invalidateCallers, invalidationOfMerchantUser } from '../access/callerCache.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { Db, DbTransaction } from '../ports.js';
import { SECOND_FACTOR_WINDOW_MS, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_INTERVAL_MS } from './rules.js';
import { deleteSession, insertSession, readSessionByDigest, touchSession, type SessionWithUser, type UserWithOrganization } from './store.js';
import { digestOfPresented, newCsrfToken, newToken } from './tokens.js';

/** What the adapter puts in the cookie and hands the client (the CSRF token). */
export interface IssuedSession {
  token: string;
  csrfToken: string;
  /** When the cookie should expire at the latest. */
  expiresAt: Date;
}

/** Opens a session for `userId`: complete (`signedIn`), or waiting for the second factor / enrolment. */
export async function openSession(db: Db | DbTransaction, userId: string, signedIn: boolean, now: Date, csrfToken = newCsrfToken()): Promise<IssuedSession> {
  const { token, digest } = newToken();
  const expiresAt = new Date(now.getTime() + (signedIn ? SESSION_ABSOLUTE_MS : SECOND_FACTOR_WINDOW_MS));
  await insertSession(db, { tokenDigest: digest, userId, csrfToken, secondFactorDone: signedIn, createdAt: now, expiresAt });
  return { token, csrfToken, expiresAt };
}

/** A live session by its cookie's token (expired ones are deleted on sight), with its user; null otherwise. */
export async function liveSession(ctx: GatewayContext, token: unknown): Promise<SessionWithUser | null> {
  const digest = digestOfPresented(token);
  if (!digest) return null;
  const session = await readSessionByDigest(ctx.db, digest);
  if (!session) return null;
  const now = ctx.clock.now().getTime();
  if (now >= session.expiresAt.getTime() || now - session.lastSeenAt.getTime() >= SESSION_IDLE_MS || session.user.removedAt) {
    await deleteSession(ctx.db, session.id);
    return null;
  }
  return session;
}

export const callerOf = (user: UserWithOrganization, session: DashboardSession, mustEnrolTwoFactor = false): MerchantUserCaller => ({
  kind: 'merchantUser',
  userId: user.id,
  email: user.email,
  role: user.role,
  organization: user.organization,
  sessionId: session.id,
  ...(mustEnrolTwoFactor && { mustEnrolTwoFactor: true }),
});

export interface AuthenticatedSession {
  caller: MerchantUserCaller;
  csrfToken: string;
  twoFactorEnabled: boolean;
}

/**
 * The caller a session cookie stands for: a signed-in user, or one who must enrol in two-factor
 * sign-in first (the policy lets it only enrol). Refused: no session, an expired one, a removed
 * user, or a sign-in still waiting for its second factor. Slides the idle expiry.
 */
export async function authenticateSession(ctx: GatewayContext, token: unknown): Promise<AuthenticatedSession> {
  const session = await liveSession(ctx, token);
  if (!session) throw new DomainError('not_signed_in');
  const { user } = session;
  let mustEnrol = false;
  if (!session.secondFactorDone) {
    if (user.twoFactorEnabled) throw new DomainError('second_factor_pending');
    if (!user.organization.requireTwoFactor) throw new DomainError('not_signed_in');
    mustEnrol = true;
  }
  const now = ctx.clock.now();
  if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) await touchSession(ctx.db, session.id, now);
  return { caller: callerOf(user, session, mustEnrol), csrfToken: session.csrfToken, twoFactorEnabled: user.twoFactorEnabled };
}

/** The user as the audit log's actor of its own sign-in (before its session exists). */
export const userActor = (user: UserWithOrganization): MerchantUserCaller => ({
  kind: 'merchantUser',
  userId: user.id,
  email: user.email,
  role: user.role,
  organization: user.organization,
  sessionId: '',
});

/**
 * After a user's access changed (committed): its live streams, in every instance, end (they were
 * authorised when opened). Best effort: a failure to publish is logged by invalidateCallers.
 */
export async function endLiveAccess(ctx: GatewayContext, userId: string): Promise<void> {
  await invalidateCallers(ctx, invalidationOfMerchantUser(userId), { userId });
}
