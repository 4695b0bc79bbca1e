/**
 * Idempotency-Key: a retried request with the same key gets the first answer instead of being
 * executed again. Keys are scoped to the organisation and kept 24 hours. Same key + same request:
 * the stored status and body are replayed. Same key + another request: 422. Same key while the
 * first still runs: 409.
 *
 * The stored answer is opaque here (each surface renders its own shape); the rule about which
 * answers are kept is this module's: 2xx and 4xx are final, but 5xx, 409 and 429 are transient
 * and are not stored, so the client may retry them with the same key.
 */
import { createHash } from 'node:crypto';
import type { GatewayContext } from './context.js';
import { DomainError } from './errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still `in_progress` after this long belongs to a process that died mid-request; it is
 * taken over. Far above any request's duration (provider calls time out long before).
 */
export const ABANDONED_CLAIM_MS = 5 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface StoredAnswer {
  status: number;
  body: string;
}

export interface IdempotentRequest {
  organizationId: string;
  /** The Idempotency-Key header, or undefined to run without idempotency. */
  key: string | undefined;
  /** What the request is, in full: surface + operation + path + canonical body. */
  fingerprint: string;
}

const isFinal = (status: number): boolean => status < 500 && status !== 409 && status !== 429;

export async function runIdempotently(
  ctx: GatewayContext,
  request: IdempotentRequest,
  execute: () => Promise<StoredAnswer>,
): Promise<StoredAnswer & { replayed: boolean }> {
  if (request.key === undefined) return { ...(await execute()), replayed: false };
  if (!KEY_PATTERN.test(request.key)) throw new DomainError('invalid_idempotency_key');

  const id = { organizationId_key: { organizationId: request.organizationId, key: request.key } };
  const requestHash = createHash('sha256').update(request.fingerprint).digest('hex');
  const replay = await claimOrReplay(ctx, request.organizationId, request.key, requestHash);
  if (replay) return { ...replay, replayed: true };

  let answer: StoredAnswer;
  try {
    answer = await execute();
  } catch (error) {
    await ctx.db.idempotencyKey.delete({ where: id }).catch(() => undefined);
    throw error;
  }
  if (isFinal(answer.status)) {
    await ctx.db.idempotencyKey.update({ where: id, data: { state: 'completed', responseStatus: answer.status, responseBody: answer.body } });
  } else {
    await ctx.db.idempotencyKey.delete({ where: id }).catch(() => undefined);
  }
  return { ...answer, replayed: false };
}

/** Claims the key for this request (returns null), or returns the stored answer to replay. */
async function claimOrReplay(ctx: GatewayContext, organizationId: string, key: string, requestHash: string): Promise<StoredAnswer | null> {
  const now = ctx.clock.now();
  // Two attempts: the second after clearing an expired or abandoned claim.
  for (let attempt = 0; attempt < 2; attempt++) {
    // ON CONFLICT DO NOTHING: the unique (organisation, key) decides which request owns the key.
    const claimed = await ctx.db.$executeRaw`
      INSERT INTO "IdempotencyKey" ("organizationId", "key", "requestHash", "state", "createdAt", "expiresAt")
      VALUES (${organizationId}::uuid, ${key}, ${requestHash}, 'in_progress', ${now}, ${new Date(now.getTime() + IDEMPOTENCY_TTL_MS)})
      ON CONFLICT ("organizationId", "key") DO NOTHING`;
    if (claimed === 1) return null;

    const existing = await ctx.db.idempotencyKey.findUnique({ where: { organizationId_key: { organizationId, key } } });
    if (!existing) continue; // released between our insert and this read: claim again
    const expired = existing.expiresAt <= now;
    const abandoned = existing.state === 'in_progress' && now.getTime() - existing.createdAt.getTime() > ABANDONED_CLAIM_MS;
    if (expired || abandoned) {
      await ctx.db.idempotencyKey.deleteMany({ where: { organizationId, key, createdAt: existing.createdAt } });
      continue;
    }
    if (existing.requestHash !== requestHash) throw new DomainError('idempotency_key_reused');
    if (existing.state === 'in_progress') throw new DomainError('idempotency_key_in_use');
    return { status: existing.responseStatus ?? 200, body: existing.responseBody ?? '' };
  }
  throw new DomainError('idempotency_key_in_use');
}

/** Drops keys past their 24 hours; run periodically so the table stays bounded. */
export async function purgeExpiredIdempotencyKeys(ctx: GatewayContext): Promise<number> {
  const { count } = await ctx.db.idempotencyKey.deleteMany({ where: { expiresAt: { lt: ctx.clock.now() } } });
  return count;
}

/** JSON with sorted keys, so the same request re-serialised by a client has the same fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
