/**
 * An organisation's API keys, newest first: metadata only (prefix, scope, created, last used,
 * revoked), never a digest or secret. Operators name the organisation; its own users read theirs.
 */
import type { Caller } from '../access/caller.js';
import type { GatewayContext } from '../context.js';
import { findOrganization } from './organizations.js';
import { ownOrganizationOf } from './ownOrganization.js';
import { listApiKeyMetadata, type ApiKeyMetadata } from './store.js';

/**
 * Nothing limits how many keys an organisation accumulates (each rotation adds one, and revoked
 * keys are kept as a record), so one answer is capped at the most recent 100: a bounded response
 * and a bounded query whatever the history. Real organisations hold a handful; one that passes
 * 100 would need this list paginated, or a limit on keys where they are issued.
 */
const MAX_LISTED_API_KEYS = 100;

export async function listApiKeys(ctx: GatewayContext, caller: Caller, organizationId?: string | null): Promise<ApiKeyMetadata[]> {
  const organization = ownOrganizationOf(caller, 'listApiKeys', organizationId);
  await findOrganization(ctx.db, organization);
  return listApiKeyMetadata(ctx.db, organization, MAX_LISTED_API_KEYS);
}
