/** Organisations as operators shape them. */
import type { Account, Organization } from '../generated/prisma/client.js';
import type { AccountName } from '../generated/prisma/enums.js';

export type OrganizationRecord = Organization & { accounts: Account[] };

/** Every organisation has these accounts from birth; payments credit `main`. */
export const ORGANIZATION_ACCOUNTS: readonly { name: AccountName; type: string }[] = [
  { name: 'main', type: 'operating' },
  { name: 'escrow', type: 'escrow' },
];

export const withAccounts = { accounts: { orderBy: { name: 'asc' as const } } };

/** A sector makes the business profile complete enough to transact. */
export const DEFAULT_BUSINESS_SECTOR = 'general';
