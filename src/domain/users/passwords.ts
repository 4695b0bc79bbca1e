/**
 * Password hashing: argon2id (@node-rs/argon2's defaults: 19 MiB, 2 passes, 1 lane, OWASP's
 * minimum), never the password itself. An unknown email is answered after verifying against a
 * dummy hash, so the time taken does not say whether an account exists.
 */
import { hash, verify } from '@node-rs/argon2';

export const hashPassword = (password: string): Promise<string> => hash(password);

let dummyHash: Promise<string> | undefined;

/** Verifies `password` against `stored`, or against a dummy hash when there is no account (always false then). */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    dummyHash ??= hash('not a password of anyone: equal work for unknown emails');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
