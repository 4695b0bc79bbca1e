/** Random tokens of sessions, CSRF and invitations: 256 bits each, base64url; only digests are stored. */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../access/auth.js';

const TOKEN_BYTES = 32;
/** Longest token presented that is worth hashing (ours are 43 characters). */
const MAX_TOKEN_LENGTH = 128;

export function newToken(): { token: string; digest: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, digest: sha256Hex(token) };
}

/** The digest of a presented token, or null when it cannot be one of ours (too long, wrong alphabet). */
export function digestOfPresented(token: unknown): string | null {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
  return sha256Hex(token);
}

export const newCsrfToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');
