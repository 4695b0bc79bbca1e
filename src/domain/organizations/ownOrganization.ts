/**
 * The one organisation an operation on an organisation's own things (its API keys, its business
 * profile) acts on, once the access policy allows it: a merchant's or dashboard user's own (naming
 * another one is refused), or the one an operator must name.
 */
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf, type Operation } from '../access/policy.js';
import { DomainError } from '../errors.js';

export function ownOrganizationOf(caller: Caller, operation: Operation, organizationId?: string | null): string {
  const organization = organizationOf(authorize(caller, operation), organizationId);
  if (!organization) throw new DomainError('invalid_input', 'organizationId is required');
  return organization;
}
