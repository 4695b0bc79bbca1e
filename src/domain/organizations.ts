/** Organisations as operators shape them. */
import type { Account, Organization } from '../generated/prisma/client.js';
import type { AccountName } from '../generated/prisma/enums.js';
import type { Db } from './context.js';

export type OrganizationRecord = Organization & { accounts: Account[] };

/** Every organisation has these accounts from birth; payments credit `main`. */
export const ORGANIZATION_ACCOUNTS: readonly { name: AccountName; type: string }[] = [
  { name: 'main', type: 'operating' },
  { name: 'escrow', type: 'escrow' },
];

export const withAccounts = { accounts: { orderBy: { name: 'asc' as const } } };

/** A sector makes the business profile complete enough to transact. */
export const DEFAULT_BUSINESS_SECTOR = 'general';

/**
 * Organisations created outside the operator path (imports, older data) may lack accounts:
 * create what is missing. Concurrent callers are harmless (unique per organisation and name).
 */
export async function ensureAccounts(db: Pick<Db, 'account'>, organizationId: string): Promise<void> {
  const existing = await db.account.count({ where: { organizationId } });
  if (existing >= ORGANIZATION_ACCOUNTS.length) return;
  await db.account.createMany({ data: ORGANIZATION_ACCOUNTS.map((account) => ({ ...account, organizationId })), skipDuplicates: true });
}
