/**
 * The business profile an organisation's owner completes (name and sector): with a sector set,
 * creating transactions and payouts no longer answers 403 "Complete your business profile".
 * An admin may do it for an organisation it names.
 */
import type { Caller } from '../access/caller.js';
import { invalidateCallers, invalidationOfOrganization } from '../access/callerCache.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { boundedInputText, MAX_NAME_LENGTH } from '../text.js';
import { findOrganization } from './organizations.js';
import { ownOrganizationOf } from './ownOrganization.js';
import { changeOrganization, type OrganizationRecord } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export interface UpdateBusinessProfileInput {
  /** Required for operators; a user's own organisation otherwise. */
  organizationId?: string | null;
  /** The business's name; omitted: unchanged. */
  name?: string | null;
  /** Its sector (free text, e.g. "retail"); omitted: unchanged. It cannot be cleared here. */
  sector?: string | null;
}

export async function updateBusinessProfile(ctx: GatewayContext, caller: Caller, input: UpdateBusinessProfileInput): Promise<OrganizationRecord> {
  const organizationId = ownOrganizationOf(caller, 'updateBusinessProfile', input.organizationId);
  const name = profileText('name', input.name);
  const businessSector = profileText('sector', input.sector);
  if (name === undefined && businessSector === undefined) throw new DomainError('invalid_input', 'give a name, a sector, or both');
  await findOrganization(ctx.db, organizationId);
  const updated = await ctx.db.$transaction(async (tx) => {
    const changes = { ...(name && { name }), ...(businessSector && { businessSector }) };
    const organization = await changeOrganization(tx, organizationId, changes);
    await recordAuditEvent(tx, { organizationId, actor: caller, action: 'business_profile.updated', target: organizationId, details: changes });
    return organization;
  });
  // Callers carry their organisation (its sector decides the 403): drop the cached copies.
  await invalidateCallers(ctx, invalidationOfOrganization(organizationId));
  return updated;
}

/** A profile field: undefined when omitted, else 1 to MAX_NAME_LENGTH storable characters once trimmed. */
function profileText(field: string, value: string | null | undefined): string | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (!text || text.length > MAX_NAME_LENGTH) throw new DomainError('invalid_input', `${field} must be 1 to ${MAX_NAME_LENGTH} characters`);
  return boundedInputText(field, text, MAX_NAME_LENGTH);
}
