/**
 * The dashboard session's transport, shared by the surfaces that accept it (the session endpoints
 * of src/dashboard/auth, /graphql, the CSV upload of src/dashboard/uploads.ts, the exports' downloads): the `gateway_session` cookie (HttpOnly, SameSite=Strict,
 * Path=/, Secure when PUBLIC_URL is https), the X-CSRF-Token comparison, and the Origin check.
 * The cookie's value is never logged (src/http/logging.ts censors cookies).
 */
import { timingSafeEqual } from 'node:crypto';

const SESSION_COOKIE = 'gateway_session';
/** Longest Cookie header worth reading: a browser's for one site stays far below. */
const MAX_COOKIE_HEADER = 8192;

/** The session token from a Cookie header (the first `gateway_session`), or undefined. */
export function sessionTokenOf(cookieHeader: string | string[] | undefined): string | undefined {
  const header = Array.isArray(cookieHeader) ? cookieHeader.join('; ') : cookieHeader;
  if (!header || header.length > MAX_COOKIE_HEADER) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === SESSION_COOKIE) return part.slice(index + 1).trim() || undefined;
  }
  return undefined;
}

const isHttps = (publicUrl: string | undefined): boolean => (publicUrl ?? '').toLowerCase().startsWith('https:');

/** Set-Cookie for a new session, living until the session's absolute expiry at most. */
export function sessionCookie(token: string, expiresAt: Date, now: Date, publicUrl: string | undefined): string {
  const maxAge = Math.max(0, Math.round((expiresAt.getTime() - now.getTime()) / 1000));
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${isHttps(publicUrl) ? '; Secure' : ''}`;
}

/** Set-Cookie that makes the browser forget the session. */
export const clearedSessionCookie = (publicUrl: string | undefined): string =>
  `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${isHttps(publicUrl) ? '; Secure' : ''}`;

/** Whether the X-CSRF-Token sent is the session's (constant time). */
export function sameCsrfToken(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string' || sent.length === 0 || sent.length > 128) return false;
  const left = Buffer.from(sent, 'utf8');
  const right = Buffer.from(expected, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A request's Origin, when sent, must be the API origin's (PUBLIC_URL): a page elsewhere cannot post for the user. */
export function sameOrigin(origin: string | string[] | undefined, publicUrl: string | undefined): boolean {
  if (origin === undefined) return true;
  if (typeof origin !== 'string' || !publicUrl) return false;
  try {
    return new URL(publicUrl).origin === origin;
  } catch {
    return false;
  }
}
