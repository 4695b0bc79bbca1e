/** Operator: organisations with their accounts, newest first, filtered and paginated. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { ORGANIZATION_STATUSES, isOneOf } from '../enums.js';
import { DomainError } from '../errors.js';
import { countOrganizations, listOrganizationPage, type OrganizationFilter, type OrganizationRecord } from './store.js';
import { resolvePage, toPage, type Page, type PageRequest } from '../pagination.js';
import { MAX_SEARCH_LENGTH, filterText } from '../text.js';

export interface ListOrganizationsInput extends PageRequest {
  status?: string | null;
  /** Part of the name, case-insensitive. */
  search?: string | null;
}

export async function listOrganizations(ctx: GatewayContext, caller: Caller, input: ListOrganizationsInput = {}): Promise<Page<OrganizationRecord>> {
  authorize(caller, 'listOrganizations');
  const { page, limit, skip } = resolvePage(input);
  const filter = organizationFilter(input);
  const [items, totalCount] = await Promise.all([listOrganizationPage(ctx.db, filter, skip, limit), countOrganizations(ctx.db, filter)]);
  return toPage(items, totalCount, page, limit);
}

function organizationFilter(input: ListOrganizationsInput): OrganizationFilter {
  const status = input.status ?? undefined;
  if (status !== undefined && !isOneOf(ORGANIZATION_STATUSES, status)) {
    throw new DomainError('invalid_query', `status must be one of ${ORGANIZATION_STATUSES.join(', ')}`);
  }
  // A blank search is no search.
  const search = filterText('search', input.search?.trim() || undefined, MAX_SEARCH_LENGTH);
  return { status, nameContains: search };
}
