/**
 * The one organisation an operation on an organisation's own things (its API keys, its business
 * profile) acts on, once the access policy allows it: a merchant's or dashboard user's own (naming
 * another one is refused), or the one an operator must name.
 */
import { authorizeMerchant, type OrganizationAccess } from '../access/auth.js';
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf, refuseForOrganizationState, type Operation } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findOrganization } from './organizations.js';

export function ownOrganizationOf(caller: Caller, operation: Operation, organizationId?: string | null): string {
  const organization = organizationOf(authorize(caller, operation), organizationId);
  if (!organization) throw new DomainError('invalid_input', 'organizationId is required');
  return organization;
}

/**
 * Access to act in an organisation's place: a merchant key or dashboard user on its own (naming
 * another one is refused), or an operator the policy admits on the one it must name, which must
 * exist and is judged by its state as its own key would be (blocked, inactive).
 */
export async function actingForOrganization<Op extends Operation>(
  ctx: GatewayContext,
  caller: Caller,
  operation: Op,
  organizationId?: string | null,
): Promise<OrganizationAccess<Op>> {
  if (caller.kind !== 'operator') {
    const access = authorizeMerchant(caller, operation);
    organizationOf(caller, organizationId);
    return access;
  }
  const organization = await findOrganization(ctx.db, ownOrganizationOf(caller, operation, organizationId));
  refuseForOrganizationState(organization, operation);
  return { operation, caller, organization, organizationId: organization.id };
}
