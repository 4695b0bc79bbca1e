/**
 * Merchant accounts as the read operations see them: the accounts of one organisation (`main`,
 * the operating account, and `escrow`), one account by id, totals, and an account's ledger
 * entries. Visibility is the transactions' rule: another organisation's account answers exactly
 * like a missing one.
 */
import type { Account, LedgerEntry } from '../../generated/prisma/client.js';
import type { Db } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { findAccount } from './store.js';

export type AccountRecord = Account;
export type LedgerEntryRecord = LedgerEntry;

/**
 * One account the caller may see: of `organizationId`, or of any organisation when it is null
 * (operators). A malformed id is 400 `Invalid account ID` (the spec's row), an unknown or foreign
 * one 404 `Account not found`.
 */
export async function findVisibleAccount(db: Pick<Db, 'account'>, organizationId: string | null, id: string): Promise<AccountRecord> {
  if (!isUuid(id)) throw new DomainError('invalid_account_id');
  const account = await findAccount(db, organizationId, id);
  if (!account) throw new DomainError('account_not_found');
  return account;
}
