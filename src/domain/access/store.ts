/** Access's SQL: the credentials authentication looks up, by the SHA-256 digest of their secret. */
import type { ApiKey, OperatorToken, Organization } from '../../generated/prisma/client.js';
import type { Db } from '../context.js';

/** The API key with this digest, revoked or not, with its organisation; null when there is none. */
export function readApiKeyByDigest(db: Pick<Db, 'apiKey'>, keyDigest: string): Promise<(ApiKey & { organization: Organization }) | null> {
  return db.apiKey.findUnique({ where: { keyDigest }, include: { organization: true } });
}

/** The issued operator token with this digest, revoked or not; null when there is none. */
export function readOperatorTokenByDigest(db: Pick<Db, 'operatorToken'>, tokenDigest: string): Promise<OperatorToken | null> {
  return db.operatorToken.findUnique({ where: { tokenDigest } });
}
