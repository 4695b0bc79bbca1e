/** Operator: one organisation with its accounts. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { findOrganization } from './organizations.js';
import type { OrganizationRecord } from './store.js';

export async function getOrganization(ctx: GatewayContext, caller: Caller, id: string): Promise<OrganizationRecord> {
  authorize(caller, 'getOrganization');
  return findOrganization(ctx.db, id);
}
