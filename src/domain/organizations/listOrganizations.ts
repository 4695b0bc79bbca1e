/** Operator: organisations with their accounts, newest first, filtered and paginated. */
import type { Prisma } from '../../generated/prisma/client.js';
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { ORGANIZATION_STATUSES, isOneOf } from '../enums.js';
import { DomainError } from '../errors.js';
import { withAccounts, type OrganizationRecord } from './organizations.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { MAX_SEARCH_LENGTH, escapeLike, filterText } from '../text.js';

export interface ListOrganizationsInput extends PageRequest {
  status?: string | null;
  /** Part of the name, case-insensitive. */
  search?: string | null;
}

export async function listOrganizations(ctx: GatewayContext, caller: Caller, input: ListOrganizationsInput = {}): Promise<Page<OrganizationRecord>> {
  authorize(caller, 'listOrganizations');
  const { page, limit, skip } = resolvePage(input);
  const where = organizationFilter(input);
  const [items, totalCount] = await Promise.all([
    // The id breaks ties between organisations created in the same millisecond, so pages never
    // repeat or skip one.
    ctx.db.organization.findMany({ where, include: withAccounts, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take: limit }),
    ctx.db.organization.count({ where }),
  ]);
  return toPage(items, totalCount, page, limit);
}

function organizationFilter(input: ListOrganizationsInput): Prisma.OrganizationWhereInput {
  const status = input.status ?? undefined;
  if (status !== undefined && !isOneOf(ORGANIZATION_STATUSES, status)) {
    throw new DomainError('invalid_query', `status must be one of ${ORGANIZATION_STATUSES.join(', ')}`);
  }
  // A blank search is no search.
  const search = filterText('search', input.search?.trim() || undefined, MAX_SEARCH_LENGTH);
  return {
    ...(status && { status }),
    ...(search && { name: { contains: escapeLike(search), mode: 'insensitive' } }),
  };
}
