/**
 * GET /accounts: the organisation's accounts (`main` first). Operators name the organisation:
 * accounts are listed per organisation, never all of the gateway's at once.
 */
import type { ReadAccess } from '../access/auth.js';
import type { AccountRecord } from './accounts.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findOrganization } from '../organizations/organizations.js';
import { accountsOf } from './store.js';

export async function listAccounts(ctx: GatewayContext, access: ReadAccess<'listAccounts'>): Promise<AccountRecord[]> {
  const { organizationId } = access;
  if (organizationId === null) throw new DomainError('invalid_input', 'organizationId is required: accounts are listed per organisation');
  const accounts = await accountsOf(ctx.db, organizationId);
  // Every organisation has accounts from birth, so an empty answer is rare: only then tell an
  // unknown organisation (an operator's typo) from one whose accounts are not prepared yet.
  if (accounts.length === 0) await findOrganization(ctx.db, organizationId);
  return accounts;
}
