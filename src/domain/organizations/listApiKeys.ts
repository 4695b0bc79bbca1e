/** Operator: an organisation's API keys, newest first: metadata only, never a digest or secret. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { findOrganization } from './organizations.js';
import { listApiKeyMetadata, type ApiKeyMetadata } from './store.js';

/**
 * Nothing limits how many keys an organisation accumulates (each rotation adds one, and revoked
 * keys are kept as a record), so one answer is capped at the most recent 100: a bounded response
 * and a bounded query whatever the history. Real organisations hold a handful; one that passes
 * 100 would need this list paginated, or a limit on keys where they are issued.
 */
export const MAX_LISTED_API_KEYS = 100;

export async function listApiKeys(ctx: GatewayContext, caller: Caller, organizationId: string): Promise<ApiKeyMetadata[]> {
  authorize(caller, 'listApiKeys');
  await findOrganization(ctx.db, organizationId);
  return listApiKeyMetadata(ctx.db, organizationId, MAX_LISTED_API_KEYS);
}
