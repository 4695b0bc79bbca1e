/** Operator: an organisation's API keys, newest first: metadata only, never a digest or secret. */
import type { ApiKey } from '../../generated/prisma/client.js';
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { findOrganization } from './organizations.js';

/**
 * Nothing limits how many keys an organisation accumulates (each rotation adds one, and revoked
 * keys are kept as a record), so one answer is capped at the most recent 100: a bounded response
 * and a bounded query whatever the history. Real organisations hold a handful; one that passes
 * 100 would need this list paginated, or a limit on keys where they are issued.
 */
export const MAX_LISTED_API_KEYS = 100;

/** What an operator may see of a key: everything but its digest. */
const API_KEY_METADATA = {
  id: true,
  organizationId: true,
  scope: true,
  prefix: true,
  revokedAt: true,
  createdAt: true,
} as const satisfies Partial<Record<keyof ApiKey, true>>;

/** A key as operators see it: what `API_KEY_METADATA` selects. */
export type ApiKeyMetadata = Pick<ApiKey, keyof typeof API_KEY_METADATA>;

export async function listApiKeys(ctx: GatewayContext, caller: Caller, organizationId: string): Promise<ApiKeyMetadata[]> {
  authorize(caller, 'listApiKeys');
  await findOrganization(ctx.db, organizationId);
  return ctx.db.apiKey.findMany({
    where: { organizationId },
    // The digest is not even read: what is never loaded cannot leak through a later field.
    select: API_KEY_METADATA,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: MAX_LISTED_API_KEYS,
  });
}
