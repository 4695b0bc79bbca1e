/**
 * Issues an API key with one scope for an organisation (an operator names it; the organisation's
 * own owner or developer issues theirs). The secret is returned here and never again.
 *
 * Two spellings of the same kind of key (same scopes, lookup by digest, revocation):
 * - `gateway` (default): `gw_sk_` + 43 base64url characters (256 random bits).
 * - `naboo`: the same followed by `_naboo-v1`, for merchants on the official NabooPay Python SDK
 *   (`naboopay` 1.0.2). Its constructor fails on a key without `naboo-`, raises (its check is
 *   inverted) when the text after `naboo-` IS a UUID, and PRINTS that text to stdout. So `naboo-`
 *   comes last, followed by a constant: the SDK prints `v1`, never part of the secret (an earlier
 *   `gw_sk_naboo-<random>` form had it print the whole secret). It keeps the `gw_sk_` prefix that
 *   authentication, log redaction and secret scanners know.
 */
import type { ApiKey } from '../../generated/prisma/client.js';
import type { Caller } from '../access/caller.js';
import { API_KEY_PREFIX, generateSecret, sha256Hex } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findOrganization } from './organizations.js';
import { API_SCOPES, isOneOf } from '../enums.js';
import { ownOrganizationOf } from './ownOrganization.js';
import { insertApiKey } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export interface IssuedApiKey {
  apiKey: ApiKey;
  /** The full key: shown once. */
  secret: string;
}

const API_KEY_FORMATS = ['gateway', 'naboo'] as const;
export type ApiKeyFormat = (typeof API_KEY_FORMATS)[number];

/** What the Python SDK 1.0.2 reads after `naboo-` (and prints): not a UUID, not secret. */
const NABOO_KEY_SUFFIX = '_naboo-v1';

function newSecret(format: ApiKeyFormat) {
  const generated = generateSecret(API_KEY_PREFIX);
  if (format === 'gateway') return generated;
  // The SDK reads from the FIRST `naboo-`: the random part must not contain one.
  if (generated.secret.includes('naboo-')) return newSecret(format);
  const secret = generated.secret + NABOO_KEY_SUFFIX;
  return { secret, digest: sha256Hex(secret), displayPrefix: generated.displayPrefix };
}

/** `organizationId`: required for operators; a merchant user's own organisation otherwise. */
export async function createApiKey(
  ctx: GatewayContext,
  caller: Caller,
  organizationId: string | null | undefined,
  scope: string,
  options: { format?: ApiKeyFormat } = {},
): Promise<IssuedApiKey> {
  organizationId = ownOrganizationOf(caller, 'createApiKey', organizationId);
  if (!isOneOf(API_SCOPES, scope)) throw new DomainError('invalid_input', `scope must be one of ${API_SCOPES.join(', ')}`);
  const format = options.format ?? 'gateway';
  if (!isOneOf(API_KEY_FORMATS, format)) throw new DomainError('invalid_input', `format must be one of ${API_KEY_FORMATS.join(', ')}`);
  await findOrganization(ctx.db, organizationId);
  const { secret, digest, displayPrefix } = newSecret(format);
  const owner = organizationId;
  const apiKey = await ctx.db.$transaction(async (tx) => {
    const issued = await insertApiKey(tx, { organizationId: owner, scope, prefix: displayPrefix, keyDigest: digest });
    await recordAuditEvent(tx, {
      organizationId: owner,
      actor: caller,
      action: 'api_key.created',
      target: issued.id,
      details: { scope, prefix: displayPrefix },
    });
    return issued;
  });
  return { apiKey, secret };
}
