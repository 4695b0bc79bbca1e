/** The organisation a team operation names must exist (an operator may name any id). */
import type { Organization } from '../../generated/prisma/client.js';
import { DomainError } from '../errors.js';
import type { Db, DbTransaction } from '../ports.js';
import { readOrganization } from './store.js';

export async function readOrganizationOrThrow(db: Db | DbTransaction, organizationId: string): Promise<Organization> {
  const organization = await readOrganization(db, organizationId);
  if (!organization) throw new DomainError('organization_not_found');
  return organization;
}
