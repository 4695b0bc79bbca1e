/** Operator: one organisation with its accounts. */
import { authorizeOperator, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { findOrganization, type OrganizationRecord } from '../organizations.js';

export async function getOrganization(ctx: GatewayContext, caller: Caller, id: string): Promise<OrganizationRecord> {
  authorizeOperator(caller, 'read');
  return findOrganization(ctx.db, id);
}
