/**
 * Who is calling, and may they do this? API keys belong to one organisation and carry one
 * scope; operator tokens (GATEWAY_ADMIN_TOKEN, or issued ones) act on the whole gateway.
 * Secrets are never stored: only their SHA-256 digests.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Organization } from '../../generated/prisma/client.js';
import type { Caller, MerchantCaller, OperatorCaller } from './caller.js';
import type { OrganizationCaller } from './caller.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { authorize, organizationOf, type Operation } from './policy.js';
import type { MerchantOperation } from './scopes.js';
import { readApiKeyByDigest, readOperatorTokenByDigest } from './store.js';
import { noteApiKeyUse } from './apiKeyUse.js';

export type { Caller, MerchantCaller, OperatorCaller } from './caller.js';

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

/**
 * The one Authorization header of a request, from its raw header list (name, value, name, value...).
 * Node keeps only the first of several in `headers.authorization`, so a request carrying two (one a
 * proxy added, one the client sent; or a smuggling attempt) would be judged by whichever came
 * first. Two or more are ambiguous: undefined, which `authenticate` refuses with 401.
 */
export function singleAuthorizationHeader(rawHeaders: readonly string[]): string | undefined {
  let value: string | undefined;
  let seen = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    seen += 1;
    value = rawHeaders[i + 1];
  }
  return seen === 1 ? value : undefined;
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

  if (token.startsWith(API_KEY_PREFIX)) return noteApiKeyUse(ctx, await authenticateApiKey(ctx, sha256Hex(token)));

  if (options.allowOperators) {
    if (options.adminToken && sameSecret(token, options.adminToken)) return { kind: 'operator', role: 'admin', tokenId: null };
    if (token.startsWith(OPERATOR_TOKEN_PREFIX)) return authenticateIssuedOperatorToken(ctx, sha256Hex(token));
  }
  throw new DomainError('invalid_api_key');
}

/** An API key's caller: from the cache when it holds the key, else from the database (then cached). */
async function authenticateApiKey(ctx: GatewayContext, digest: string): Promise<MerchantCaller> {
  const cached = ctx.callers?.get(digest);
  if (cached?.kind === 'merchant') return cached;
  const stamp = ctx.callers?.stamp() ?? 0;
  const key = await readApiKeyByDigest(ctx.db, digest);
  if (!key || key.revokedAt) throw new DomainError('invalid_api_key');
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: key.id, scope: key.scope, organization: key.organization };
  ctx.callers?.set(digest, caller, stamp);
  return caller;
}

/**
 * An issued operator token's caller: cached like an API key (revokeOperatorToken invalidates it in
 * every instance; callerCache.ts says when the cache is trusted), else read by its digest.
 */
async function authenticateIssuedOperatorToken(ctx: GatewayContext, digest: string): Promise<OperatorCaller> {
  const cached = ctx.callers?.get(digest);
  if (cached?.kind === 'operator') return cached;
  const stamp = ctx.callers?.stamp() ?? 0;
  const issued = await readOperatorTokenByDigest(ctx.db, digest);
  if (!issued || issued.revokedAt) throw new DomainError('invalid_api_key');
  const caller = { kind: 'operator', role: issued.role, tokenId: issued.id } as const;
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
export interface MerchantAccess<Op extends Operation = MerchantOperation> {
  readonly operation: Op;
  /** A merchant key, or a dashboard user of the organisation (a session): the policy admitted either. */
  readonly caller: OrganizationCaller;
  readonly organization: Organization;
  readonly organizationId: string;
}

/**
 * Access to act in one organisation's place: what a MerchantAccess is, or an admin operator naming
 * the organisation where the policy admits one (createTransaction: `gateway trigger`). The
 * operation reads only the organisation, whoever acts.
 */
export interface OrganizationAccess<Op extends Operation = MerchantOperation> {
  readonly operation: Op;
  readonly caller: Caller;
  readonly organization: Organization;
  readonly organizationId: string;
}

/**
 * Access for reading: one organisation's data, or every organisation's (`organizationId` null)
 * for operators. A MerchantAccess is one.
 */
export interface ReadAccess<Op extends Operation = MerchantOperation> {
  readonly operation: Op;
  readonly organizationId: string | null;
  /** Who reads: what holds the access open (a live stream) ends when this caller is revoked. */
  readonly caller: Caller;
}

/** A merchant key or dashboard user running `operation` on its organisation, by the one access policy. */
export function authorizeMerchant<Op extends Operation>(caller: Caller, operation: Op): MerchantAccess<Op> {
  if (caller.kind === 'operator') throw new DomainError('permission_denied');
  const { organization } = authorize(caller, operation);
  return { operation, caller, organization, organizationId: organization.id };
}

/**
 * Reads of merchant data, by the one access policy: a merchant reads its own organisation; an
 * operator whose role the policy admits reads any organisation, or all of them when
 * `organizationId` is omitted. A merchant naming another organisation is refused.
 */
export function authorizeRead<Op extends Operation>(caller: Caller, operation: Op, organizationId?: string | null): ReadAccess<Op> {
  if (caller.kind === 'operator') return { operation, organizationId: organizationOf(authorize(caller, operation), organizationId), caller };
  const access = authorizeMerchant(caller, operation);
  organizationOf(caller, organizationId);
  return access;
}
