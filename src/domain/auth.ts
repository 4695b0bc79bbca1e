/**
 * Who is calling, and may they do this? API keys belong to one organisation and carry one
 * scope; operator tokens (GATEWAY_ADMIN_TOKEN, or issued ones) act on the whole gateway.
 * Secrets are never stored: only their SHA-256 digests.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiScope, OperatorRole } from '../generated/prisma/enums.js';
import type { Organization } from '../generated/prisma/client.js';
import type { GatewayContext } from './context.js';
import { DomainError } from './errors.js';
import { MERCHANT_OPERATIONS, type MerchantOperation } from './scopes.js';

export interface MerchantCaller {
  kind: 'merchant';
  apiKeyId: string;
  scope: ApiScope;
  organization: Organization;
}

export interface OperatorCaller {
  kind: 'operator';
  role: OperatorRole;
  /** null for the bootstrap GATEWAY_ADMIN_TOKEN. */
  tokenId: string | null;
}

export type Caller = MerchantCaller | OperatorCaller;

/** Prefixes make leaked secrets recognisable (secret scanners, logs) and tell key from token. */
export const API_KEY_PREFIX = 'gw_sk_';
export const OPERATOR_TOKEN_PREFIX = 'gw_op_';
/** 32 random bytes = 256 bits of entropy, base64url: 43 characters. */
const SECRET_BYTES = 32;
/** Longest bearer token we will hash; anything longer is not ours (and bounds the work). */
const MAX_TOKEN_LENGTH = 256;
/** Characters shown to recognise a key in lists: prefix + 8 characters, never enough to use it. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

export function generateSecret(prefix: string): { secret: string; digest: string; displayPrefix: string } {
  const secret = prefix + randomBytes(SECRET_BYTES).toString('base64url');
  return { secret, digest: sha256Hex(secret), displayPrefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** `Bearer <token>` (scheme case-insensitive, one space or more); anything else is malformed. */
export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header);
  const token = match?.[1];
  return token && token.length <= MAX_TOKEN_LENGTH ? token : null;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(sha256Hex(a), 'hex');
  const right = Buffer.from(sha256Hex(b), 'hex');
  return timingSafeEqual(left, right);
}

export interface AuthOptions {
  /** The bootstrap operator token (GATEWAY_ADMIN_TOKEN). */
  adminToken: string | null;
  /** REST accepts API keys only; GraphQL accepts operator tokens too. */
  allowOperators: boolean;
}

/** Resolves the Authorization header to a caller, or throws 401 `Invalid API key`. */
export async function authenticate(ctx: GatewayContext, authorization: string | undefined, options: AuthOptions): Promise<Caller> {
  const token = parseBearer(authorization);
  if (!token) throw new DomainError('invalid_api_key');

  if (token.startsWith(API_KEY_PREFIX)) return authenticateApiKey(ctx, sha256Hex(token));

  if (options.allowOperators) {
    if (options.adminToken && sameSecret(token, options.adminToken)) return { kind: 'operator', role: 'admin', tokenId: null };
    if (token.startsWith(OPERATOR_TOKEN_PREFIX)) {
      const issued = await ctx.db.operatorToken.findUnique({ where: { tokenDigest: sha256Hex(token) } });
      if (issued && !issued.revokedAt) return { kind: 'operator', role: issued.role, tokenId: issued.id };
    }
  }
  throw new DomainError('invalid_api_key');
}

/** An API key's caller: from the cache when it holds the key, else from the database (then cached). */
async function authenticateApiKey(ctx: GatewayContext, digest: string): Promise<MerchantCaller> {
  const cached = ctx.callers?.get(digest);
  if (cached) return cached;
  const stamp = ctx.callers?.stamp() ?? 0;
  const key = await ctx.db.apiKey.findUnique({ where: { keyDigest: digest }, include: { organization: true } });
  if (!key || key.revokedAt) throw new DomainError('invalid_api_key');
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: key.id, scope: key.scope, organization: key.organization };
  ctx.callers?.set(digest, caller, stamp);
  return caller;
}

/**
 * What authorisation hands an operation: proof that `caller` may run `operation` for
 * `organization`. Operations take this instead of a Caller, so each request is authorised exactly
 * once (by its adapter, before the input is even parsed) and an operation cannot be called with
 * access meant for another one: `MerchantAccess<'getTransaction'>` does not type-check as
 * `MerchantAccess<'createTransaction'>`.
 */
export interface MerchantAccess<Op extends MerchantOperation = MerchantOperation> {
  readonly operation: Op;
  readonly caller: MerchantCaller;
  readonly organization: Organization;
  readonly organizationId: string;
}

/**
 * Access for reading: one organisation's data, or every organisation's (`organizationId` null)
 * for operators. A MerchantAccess is one.
 */
export interface ReadAccess<Op extends MerchantOperation = MerchantOperation> {
  readonly operation: Op;
  readonly organizationId: string | null;
}

/**
 * The spec's access rules for a merchant operation, in order: blocked organisations get 403 on
 * everything, inactive ones 401 on writes (reads still work), then the key's scope.
 */
export function authorizeMerchant<Op extends MerchantOperation>(caller: Caller, operation: Op): MerchantAccess<Op> {
  if (caller.kind !== 'merchant') throw new DomainError('permission_denied');
  const { organization } = caller;
  const access = MERCHANT_OPERATIONS[operation];
  if (organization.status === 'blocked') throw new DomainError('organization_blocked');
  if (organization.status === 'inactive' && access.write) throw new DomainError('organization_inactive');
  if (!(access.scopes as readonly ApiScope[]).includes(caller.scope)) throw new DomainError('permission_denied');
  return { operation, caller, organization, organizationId: organization.id };
}

/**
 * Reads of merchant data: a merchant reads its own organisation (by the rules above); every
 * operator role reads any organisation, or all of them when `organizationId` is omitted.
 * A merchant naming another organisation is refused.
 */
export function authorizeRead<Op extends MerchantOperation>(caller: Caller, operation: Op, organizationId?: string | null): ReadAccess<Op> {
  if (caller.kind === 'operator') {
    authorizeOperator(caller, 'read');
    return { operation, organizationId: organizationId ?? null };
  }
  const access = authorizeMerchant(caller, operation);
  if (organizationId && organizationId !== access.organizationId) throw new DomainError('permission_denied');
  return access;
}

/** Operator actions: `admin` may change things; `analyst` and `support` only read. */
export function authorizeOperator(caller: Caller, action: 'read' | 'mutate'): OperatorCaller {
  if (caller.kind !== 'operator') throw new DomainError('permission_denied');
  if (action === 'mutate' && caller.role !== 'admin') throw new DomainError('operator_forbidden');
  return caller;
}
