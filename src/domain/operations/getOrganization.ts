/** Operator: one organisation with its accounts. */
import { authorizeOperator, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { withAccounts, type OrganizationRecord } from '../organizations.js';
import { isUuid } from '../transactions.js';

export async function getOrganization(ctx: GatewayContext, caller: Caller, id: string): Promise<OrganizationRecord> {
  authorizeOperator(caller, 'read');
  const organization = isUuid(id) ? await ctx.db.organization.findUnique({ where: { id }, include: withAccounts }) : null;
  if (!organization) throw new DomainError('organization_not_found');
  return organization;
}
