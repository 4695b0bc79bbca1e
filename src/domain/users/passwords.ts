/**
 * Password hashing: argon2id (@node-rs/argon2's defaults: 19 MiB, 2 passes, 1 lane, OWASP's
 * minimum), never the password itself. An unknown email is answered after verifying against a
 * dummy hash, so the time taken does not say whether an account exists.
 *
 * The native binding is loaded at the first sign-in, not at start: it adds ~12 MB of resident
 * memory that a gateway nobody signs in to (an API-only deployment, the bench's idle RSS row) need
 * not carry.
 */
import { loadOnce } from '../loadOnce.js';

const loadArgon2 = loadOnce(() => import('@node-rs/argon2'));

export const hashPassword = async (password: string): Promise<string> => (await loadArgon2()).hash(password);

const dummyHash = loadOnce(() => hashPassword('not a password of anyone: equal work for unknown emails'));

/** Verifies `password` against `stored`, or against a dummy hash when there is no account (always false then). */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  const { verify } = await loadArgon2();
  if (stored === null) {
    await verify(await dummyHash(), password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
