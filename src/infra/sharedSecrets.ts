/**
 * Secrets every host of one deployment must share: the operator token (GATEWAY_ADMIN_TOKEN, from
 * which the checkout form key is also derived) and the webhook secret key (WEBHOOK_SECRET_KEY).
 * A host that used its own would half-work: forms rendered by a peer refused, webhook secrets
 * stored by a peer undecryptable, the operator token accepted by some hosts only.
 *
 * With a shared database (DATABASE_URL), the first host to start records a fingerprint of each
 * secret (a salted PBKDF2 digest: never the secret) in "SharedSecretFingerprint". Every later start
 * compares its own secret with it and refuses to start, naming the variable to set, when they
 * differ; a host without the secret (neither in the environment nor in its data folder) never
 * generates one once a peer has recorded theirs. Without DATABASE_URL (the embedded database, one
 * process) there are no peers and nothing is recorded.
 */
import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { StartupError } from './startupErrors.js';

export type SharedSecretName = 'GATEWAY_ADMIN_TOKEN' | 'WEBHOOK_SECRET_KEY';

/** Where fingerprints are kept (the shared database). */
export interface FingerprintStore {
  read(name: SharedSecretName): Promise<string | null>;
  /** Records `fingerprint` unless one is already recorded; returns the one recorded (first writer wins). */
  claim(name: SharedSecretName, fingerprint: string): Promise<string>;
}

/** The Prisma client's slice this needs (the generated client has it). */
interface FingerprintTable {
  sharedSecretFingerprint: {
    findUnique(args: { where: { name: string } }): Promise<{ fingerprint: string } | null>;
    createMany(args: { data: Array<{ name: string; fingerprint: string }>; skipDuplicates: boolean }): Promise<unknown>;
  };
}

export function databaseFingerprintStore(db: FingerprintTable): FingerprintStore {
  const read = async (name: SharedSecretName) => (await db.sharedSecretFingerprint.findUnique({ where: { name } }))?.fingerprint ?? null;
  return {
    read,
    async claim(name, fingerprint) {
      // ON CONFLICT DO NOTHING: of two hosts starting at once, the first insert wins and both read it.
      await db.sharedSecretFingerprint.createMany({ data: [{ name, fingerprint }], skipDuplicates: true });
      const stored = await read(name);
      if (stored === null) throw new Error(`the fingerprint of ${name} was not recorded`);
      return stored;
    },
  };
}

/**
 * PBKDF2-SHA256's cost: ~50 ms once per secret at start, so an operator-chosen token is not cheap
 * to guess from its fingerprint. Not scrypt: its 16 MB work buffer stayed in the process (glibc
 * keeps large freed blocks) and raised idle RSS by ~40 MB, measured against the 200 MB budget.
 */
const PBKDF2_ITERATIONS = 210_000;
const MAX_ITERATIONS = 10_000_000;
const DIGEST_BYTES = 32;

const digestOf = (secret: string, salt: Buffer, iterations: number): Promise<Buffer> =>
  new Promise((resolve, reject) => pbkdf2(secret, salt, iterations, DIGEST_BYTES, 'sha256', (error, key) => (error ? reject(error) : resolve(key))));

/** `pbkdf2-sha256$<iterations>$<salt>$<digest>` (base64url): what is stored in place of the secret. */
export async function fingerprintOf(secret: string, salt: Buffer = randomBytes(16)): Promise<string> {
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${salt.toString('base64url')}$${(await digestOf(secret, salt, PBKDF2_ITERATIONS)).toString('base64url')}`;
}

/** Whether `secret` is the one `fingerprint` was made from. A malformed fingerprint matches nothing. */
export async function fingerprintMatches(secret: string, fingerprint: string): Promise<boolean> {
  const parts = /^pbkdf2-sha256\$(\d{1,8})\$([A-Za-z0-9_-]{1,64})\$([A-Za-z0-9_-]{1,128})$/.exec(fingerprint);
  if (!parts) return false;
  const iterations = Number(parts[1]);
  if (iterations < 1 || iterations > MAX_ITERATIONS) return false;
  const expected = Buffer.from(parts[3]!, 'base64url');
  const actual = await digestOf(secret, Buffer.from(parts[2]!, 'base64url'), iterations);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** How one secret is found on this host when the environment does not give it. */
export interface LocalSecretSource {
  /** The value kept in the data folder, if any. */
  read(): Promise<string | null>;
  /** Generates and keeps a value; `created` false when another process on this folder wrote one first (its value is returned). */
  create(): Promise<{ value: string; created: boolean }>;
  /** Removes a value this start created and must not keep (a peer recorded another one meanwhile). */
  discard(): Promise<void>;
  /** Where it is kept, for messages. */
  where: string;
}

export interface ResolvedSecret {
  value: string;
  source: 'environment' | 'file' | 'created';
}

/**
 * This host's value of a shared secret: the environment's, else its data folder's, else a new one;
 * checked against (or recorded as) the fingerprint its peers share when `store` is given.
 */
export async function resolveSharedSecret(
  name: SharedSecretName,
  configured: string | undefined,
  local: LocalSecretSource,
  store?: FingerprintStore,
): Promise<ResolvedSecret> {
  const setIt = `set ${name} to the same value on every host`;
  let resolved: ResolvedSecret;
  if (configured) resolved = { value: configured, source: 'environment' };
  else {
    const kept = await local.read();
    if (kept) resolved = { value: kept, source: 'file' };
    else {
      if (store && (await store.read(name)) !== null) {
        throw new StartupError(
          `${name} is unset on this host, and the hosts sharing this database already use one: ${setIt} (this host will not generate its own)`,
        );
      }
      const made = await local.create();
      resolved = { value: made.value, source: made.created ? 'created' : 'file' };
    }
  }
  if (!store) return resolved;

  const recorded = await store.claim(name, await fingerprintOf(resolved.value));
  if (await fingerprintMatches(resolved.value, recorded)) return resolved;
  if (resolved.source === 'created') await local.discard().catch(() => undefined);
  const whose =
    resolved.source === 'environment'
      ? `${name} differs from the value the other hosts sharing this database use`
      : resolved.source === 'file'
        ? `${name} is unset and the value kept in ${local.where} differs from the one the other hosts sharing this database use`
        : `${name} is unset and another host sharing this database recorded its own value first`;
  throw new StartupError(`${whose}: ${setIt} (changing it on purpose: docs/operations.md, "Rotating a shared secret")`);
}
