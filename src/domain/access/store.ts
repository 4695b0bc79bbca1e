/**
 * Access's SQL: the credentials authentication looks up, by the SHA-256 digest of their secret,
 * and the operator tokens admins issue, list and revoke.
 */
import type { ApiKey, OperatorToken, Organization } from '../../generated/prisma/client.js';
import type { OperatorRole } from '../../generated/prisma/enums.js';
import type { Db } from '../context.js';

/** The API key with this digest, revoked or not, with its organisation; null when there is none. */
export function readApiKeyByDigest(db: Pick<Db, 'apiKey'>, keyDigest: string): Promise<(ApiKey & { organization: Organization }) | null> {
  return db.apiKey.findUnique({ where: { keyDigest }, include: { organization: true } });
}

/**
 * Notes that the key was used at `now`, unless a use at most `minIntervalMs` earlier is already
 * recorded: one conditional statement, so instances sharing the database write a key's row at most
 * about once per interval between them.
 */
export async function recordApiKeyUse(db: Pick<Db, '$executeRaw'>, apiKeyId: string, now: Date, minIntervalMs: number): Promise<void> {
  const notBefore = new Date(now.getTime() - minIntervalMs);
  await db.$executeRaw`UPDATE "ApiKey" SET "lastUsedAt" = ${now} WHERE id = ${apiKeyId}::uuid AND ("lastUsedAt" IS NULL OR "lastUsedAt" <= ${notBefore})`;
}

/** The issued operator token with this digest, revoked or not; null when there is none. */
export function readOperatorTokenByDigest(db: Pick<Db, 'operatorToken'>, tokenDigest: string): Promise<OperatorToken | null> {
  return db.operatorToken.findUnique({ where: { tokenDigest } });
}

/** What anyone may see of an operator token: everything but its digest. */
const OPERATOR_TOKEN_METADATA = {
  id: true,
  role: true,
  prefix: true,
  revokedAt: true,
  createdAt: true,
} as const satisfies Partial<Record<keyof OperatorToken, true>>;

/** An operator token as operators see it: what `OPERATOR_TOKEN_METADATA` selects. */
export type OperatorTokenMetadata = Pick<OperatorToken, keyof typeof OPERATOR_TOKEN_METADATA>;

export interface NewOperatorToken {
  role: OperatorRole;
  /** The first characters of the token, to recognise it in lists. */
  prefix: string;
  tokenDigest: string;
}

/**
 * Issues a token unless `maxActive` are in use already: one database transaction that first takes
 * a transaction-scoped advisory lock, so concurrent issues count one after the other (without it,
 * two could both see maxActive - 1 and both insert). Null when the limit is reached.
 */
export function insertOperatorTokenWithin(db: Pick<Db, '$transaction'>, token: NewOperatorToken, maxActive: number): Promise<OperatorTokenMetadata | null> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('operator-token:issue', 0))`;
    const active = await tx.operatorToken.count({ where: { revokedAt: null } });
    if (active >= maxActive) return null;
    return tx.operatorToken.create({ data: token, select: OPERATOR_TOKEN_METADATA });
  });
}

/** The token `id` (a UUID), metadata only; null when there is none. */
export function readOperatorToken(db: Pick<Db, 'operatorToken'>, id: string): Promise<OperatorTokenMetadata | null> {
  return db.operatorToken.findUnique({ where: { id }, select: OPERATOR_TOKEN_METADATA });
}

/** Revokes the token `id` unless it is revoked already (the first revocation's time stays). */
export async function markOperatorTokenRevoked(db: Pick<Db, 'operatorToken'>, id: string, revokedAt: Date): Promise<void> {
  await db.operatorToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt } });
}

/** Tokens in use first (newest first), then revoked ones (most recently revoked first); at most `limit`. */
export function listOperatorTokenMetadata(db: Pick<Db, 'operatorToken'>, limit: number): Promise<OperatorTokenMetadata[]> {
  return db.operatorToken.findMany({
    select: OPERATOR_TOKEN_METADATA,
    orderBy: [{ revokedAt: { sort: 'desc', nulls: 'first' } }, { createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}
