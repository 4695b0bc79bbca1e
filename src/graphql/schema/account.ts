/**
 * Accounts and their ledger entries: the same reads as REST v2's GET /accounts* for merchants
 * (API keys with scope read, readAndWrite or management: their own organisation), and for
 * operators (any organisation's); plus the operators' (admin) signed adjustment.
 */
import { LedgerEntryKind } from '../../generated/prisma/enums.js';
import { authorizeRead } from '../../domain/access/auth.js';
import type { LedgerEntryRecord } from '../../domain/ledger/accounts.js';
import type { AccountStats } from '../../domain/ledger/store.js';
import { toWireAmount } from '../../domain/money.js';
import { adjustAccount, getAccount, getAccountStats, listAccountEntries, listAccounts } from '../../domain/operations.js';
import type { Page } from '../../domain/pagination.js';
import { pageComplexity } from '../limits.js';
import { organizationIdOf } from './arguments.js';
import { builder } from '../builder.js';
import { AccountRef } from './organization.js';
import { PageInfoRef } from './pagination.js';

const LedgerEntryKindEnum = builder.enumType('LedgerEntryKind', { values: Object.values(LedgerEntryKind) });

const LedgerEntryRef = builder.prismaObject('LedgerEntry', {
  description: 'One entry of the double-entry ledger on a merchant account. The entries of one posting sum to zero.',
  fields: (t) => ({
    id: t.exposeID('id'),
    postingId: t.exposeID('postingId', { description: 'The balanced set of entries this one belongs to.' }),
    kind: t.field({ type: LedgerEntryKindEnum, resolve: (entry) => entry.kind }),
    amount: t.field({ type: 'SafeInt', description: 'Signed XOF: credit > 0, debit < 0.', resolve: (entry) => toWireAmount(entry.amount) }),
    balanceAfter: t.field({
      type: 'SafeInt',
      nullable: true,
      description: 'The account balance after this entry (always set on merchant accounts).',
      resolve: (entry) => (entry.balanceAfter === null ? null : toWireAmount(entry.balanceAfter)),
    }),
    transactionId: t.exposeID('transactionId', { nullable: true, description: 'The transaction (order id) that moved the money, if any.' }),
    description: t.exposeString('description'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const LedgerEntryPageRef = builder.objectRef<Page<LedgerEntryRecord>>('LedgerEntryPage').implement({
  description: 'One page of an account’s ledger entries, newest first.',
  fields: (t) => ({
    entries: t.field({ type: [LedgerEntryRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PageInfoRef, resolve: (page) => page }),
  }),
});

builder.objectField(AccountRef, 'organizationId', (t) => t.exposeID('organizationId'));

builder.objectField(AccountRef, 'entries', (t) =>
  t.field({
    type: LedgerEntryPageRef,
    description: 'The account’s ledger entries, newest first (page from 1; limit default 20, above 100 capped at 100).',
    authScopes: { run: 'listAccountEntries' },
    complexity: pageComplexity,
    args: { page: t.arg.int(), limit: t.arg.int() },
    // Reading the entries is reading the account: the same access rule, for the account's organisation.
    resolve: (account, { page, limit }, ctx) =>
      listAccountEntries(ctx.gateway, authorizeRead(ctx.caller, 'listAccountEntries', account.organizationId), account.id, {
        page: page ?? undefined,
        limit: limit ?? undefined,
      }),
  }),
);

const AccountStatsRef = builder.objectRef<AccountStats>('AccountStats').implement({
  fields: (t) => ({
    totalBalance: t.field({ type: 'SafeInt', description: 'XOF, over main and escrow.', resolve: (stats) => toWireAmount(stats.totalBalance) }),
    accountCount: t.exposeInt('accountCount'),
    activeAccountCount: t.exposeInt('activeAccountCount'),
  }),
});

builder.queryField('accounts', (t) =>
  t.field({
    type: [AccountRef],
    description: 'The accounts of an organisation, main first: the caller’s own (scopes: read, readAndWrite, management); operators name the organisation.',
    authScopes: { run: 'listAccounts' },
    args: { organizationId: t.arg.id() },
    resolve: (_root, { organizationId }, ctx) => listAccounts(ctx.gateway, authorizeRead(ctx.caller, 'listAccounts', organizationIdOf(organizationId))),
  }),
);

builder.queryField('account', (t) =>
  t.field({
    type: AccountRef,
    description: 'One account: of the caller’s organisation (scopes: read, readAndWrite, management), or of any for operators.',
    authScopes: { run: 'getAccount' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => getAccount(ctx.gateway, authorizeRead(ctx.caller, 'getAccount'), String(id)),
  }),
);

builder.queryField('accountStats', (t) =>
  t.field({
    type: AccountStatsRef,
    description:
      'Totals over an organisation’s accounts: the caller’s own (scopes: read, readAndWrite, management); operators name one, or get every merchant account’s totals without.',
    authScopes: { run: 'getAccountStats' },
    args: { organizationId: t.arg.id() },
    resolve: (_root, { organizationId }, ctx) => getAccountStats(ctx.gateway, authorizeRead(ctx.caller, 'getAccountStats', organizationIdOf(organizationId))),
  }),
);

builder.mutationField('adjustAccount', (t) =>
  t.field({
    type: AccountRef,
    description:
      'Operators (admin): a signed correction of an organisation’s main account (credit > 0, debit < 0), posted against the gateway’s adjustments account with the reason; never below zero (INSUFFICIENT_BALANCE). Answers the account.',
    authScopes: { run: 'adjustAccount' },
    args: {
      organizationId: t.arg.id({ required: true }),
      amount: t.arg({ type: 'SafeInt', required: true, description: 'Signed XOF, non-zero' }),
      reason: t.arg.string({ required: true, description: '1 to 500 characters, kept on the ledger entry' }),
    },
    resolve: (_root, { organizationId, amount, reason }, ctx) =>
      adjustAccount(ctx.gateway, ctx.caller, { organizationId: String(organizationId), amount, reason }),
  }),
);

/**
 * The ledger entries a transaction or payout moved on the organisation's own accounts (the
 * gateway's accounts are not the merchant's to read), oldest first: the account reads' rule.
 * At most 100 (a transaction moves a handful: payment, fees, escrow release, refund).
 */
const MOVED_ENTRIES_QUERY = { where: { accountId: { not: null } }, orderBy: [{ createdAt: 'asc' as const }, { id: 'asc' as const }], take: 100 };
builder.prismaObjectField('Transaction', 'ledgerEntries', (t) =>
  t.relation('ledgerEntries', {
    authScopes: { run: 'listAccountEntries' },
    description: 'What it moved on the organisation’s accounts, oldest first (at most 100).',
    query: MOVED_ENTRIES_QUERY,
  }),
);
builder.prismaObjectField('Payout', 'ledgerEntries', (t) =>
  t.relation('ledgerEntries', {
    authScopes: { run: 'listAccountEntries' },
    description: 'What it moved on the organisation’s accounts, oldest first (at most 100).',
    query: MOVED_ENTRIES_QUERY,
  }),
);
