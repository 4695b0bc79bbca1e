/**
 * Password hashing: argon2id (OWASP's minimum by default: 19 MiB, 2 passes, 1 lane, which are
 * @node-rs/argon2's own defaults), never the password itself. An unknown email is answered after
 * verifying against a dummy hash of the same cost, so the time taken does not say whether an
 * account exists. Verification reads the cost from the stored hash (its PHC string).
 *
 * The native binding is loaded at the first sign-in, not at start: it adds ~12 MB of resident
 * memory that a gateway nobody signs in to (an API-only deployment, the bench's idle RSS row) need
 * not carry.
 */
import type { PasswordHashCost } from '../context.js';
import { loadOnce } from '../loadOnce.js';

const loadArgon2 = loadOnce(() => import('@node-rs/argon2'));

/** OWASP's minimum for argon2id (Password Storage Cheat Sheet): what every deployment uses. */
export const OWASP_PASSWORD_HASH_COST: PasswordHashCost = { memoryCost: 19_456, timeCost: 2 };

export const hashPassword = async (password: string, cost: PasswordHashCost = OWASP_PASSWORD_HASH_COST): Promise<string> =>
  (await loadArgon2()).hash(password, { ...cost, parallelism: 1 });

/** One dummy hash per cost in use (a deployment has one; the tests two). */
const dummyHashes = new Map<string, Promise<string>>();
function dummyHashOf(cost: PasswordHashCost): Promise<string> {
  const key = `${cost.memoryCost}:${cost.timeCost}`;
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = hashPassword('not a password of anyone: equal work for unknown emails', cost);
    dummyHashes.set(key, hash);
    // A failed hash (the binding could not load) is made again by the next sign-in, as loadOnce does.
    hash.catch(() => dummyHashes.delete(key));
  }
  return hash;
}

/** Verifies `password` against `stored`, or against a dummy hash when there is no account (always false then). */
export async function verifyPassword(stored: string | null, password: string, cost: PasswordHashCost = OWASP_PASSWORD_HASH_COST): Promise<boolean> {
  const { verify } = await loadArgon2();
  if (stored === null) {
    await verify(await dummyHashOf(cost), password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
