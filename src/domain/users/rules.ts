/**
 * The rules of dashboard users, written once: what a password and an email must be, how long
 * invitations and sessions live, how big a team may grow.
 */
import { MerchantRole } from '../../generated/prisma/enums.js';
import { DomainError } from '../errors.js';

/** NIST SP 800-63B: long passphrases rather than composition rules; the upper bound caps hashing work. */
const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 128;
/** RFC 5321's longest forward path, the longest address anything can deliver to. */
const MAX_EMAIL_LENGTH = 254;

/** An invitation link works for 72 hours, once. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;
/** A session ends after 30 minutes without a request, and 12 hours after sign-in whatever happens. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/**
 * A session's last-seen time is written at most this often: every request slides the idle expiry,
 * but one write per minute is enough for a 30-minute window (not one per request).
 */
export const SESSION_TOUCH_INTERVAL_MS = 60 * 1000;
/** A password-only session waiting for the second factor lives this long. */
export const SECOND_FACTOR_WINDOW_MS = 10 * 60 * 1000;

/** Members and pending invitations of one organisation: far above a merchant's staff, bounded against scripted invitation floods. */
export const MAX_TEAM_SIZE = 100;

export const MERCHANT_ROLES: readonly MerchantRole[] = Object.values(MerchantRole);

/** A simple shape check (one @, a dot in the domain, no spaces): the invitation itself proves the address. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The one normal form of an email: trimmed and lowercased, so uniqueness ignores case. */
export function normalizeEmail(raw: unknown): string {
  if (typeof raw !== 'string') throw new DomainError('invalid_email');
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(email)) throw new DomainError('invalid_email');
  return email;
}

/** The password as given (never trimmed: every character counts), if its length is within the rule. */
export function checkPassword(raw: unknown): string {
  if (typeof raw !== 'string' || [...raw].length < MIN_PASSWORD_LENGTH || [...raw].length > MAX_PASSWORD_LENGTH) throw new DomainError('invalid_password');
  return raw;
}

export function parseRole(raw: unknown): MerchantRole {
  if (typeof raw !== 'string' || !(MERCHANT_ROLES as readonly string[]).includes(raw)) {
    throw new DomainError('invalid_input', `role must be one of ${MERCHANT_ROLES.join(', ')}`);
  }
  return raw as MerchantRole;
}
