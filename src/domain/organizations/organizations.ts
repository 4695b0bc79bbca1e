/** Organisations as operators shape them. */
import type { Db } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { countAccounts, insertMissingAccounts, readOrganization, type NewAccount, type OrganizationRecord } from './store.js';

/** Every organisation has these accounts from birth; payments credit `main`. */
export const ORGANIZATION_ACCOUNTS: readonly NewAccount[] = [
  { name: 'main', type: 'operating' },
  { name: 'escrow', type: 'escrow' },
];

/** A sector makes the business profile complete enough to transact. */
export const DEFAULT_BUSINESS_SECTOR = 'general';

/**
 * Organisations known to have every account. Accounts are never deleted, so the fact never goes
 * stale: each organisation is counted once per process, not on every creation. Only accounts seen
 * committed are remembered (ones created by the caller's transaction could still roll back).
 * Bounded against unbounded growth: past the cap it starts over (a few counts again).
 */
const organizationsWithAccounts = new Set<string>();
const MAX_REMEMBERED_ORGANIZATIONS = 100_000;

/**
 * Organisations created outside the operator path (imports, older data) may lack accounts:
 * create what is missing. Concurrent callers are harmless (unique per organisation and name).
 */
export async function ensureAccounts(db: Pick<Db, 'account'>, organizationId: string): Promise<void> {
  if (organizationsWithAccounts.has(organizationId)) return;
  const existing = await countAccounts(db, organizationId);
  if (existing >= ORGANIZATION_ACCOUNTS.length) return rememberAccounts(organizationId);
  await insertMissingAccounts(db, organizationId, ORGANIZATION_ACCOUNTS);
}

function rememberAccounts(organizationId: string): void {
  if (organizationsWithAccounts.size >= MAX_REMEMBERED_ORGANIZATIONS) organizationsWithAccounts.clear();
  organizationsWithAccounts.add(organizationId);
}

/** An organisation by id; a malformed id is just one that does not exist (404, never a 500). */
export async function findOrganization(db: Pick<Db, 'organization'>, id: string): Promise<OrganizationRecord> {
  const organization = isUuid(id) ? await readOrganization(db, id) : null;
  if (!organization) throw new DomainError('organization_not_found');
  return organization;
}
