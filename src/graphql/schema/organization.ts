/** Organisations and their accounts, for operators (admin token or operator tokens). */
import { toWireAmount } from '../../domain/money.js';
import { createOrganization, getOrganization, listOrganizations, updateBusinessProfile, updateOrganization } from '../../domain/operations.js';
import type { OrganizationRecord } from '../../domain/organizations/store.js';
import type { Page } from '../../domain/pagination.js';
import { pageComplexity } from '../limits.js';
import { builder } from '../builder.js';
import { organizationIdOf } from './arguments.js';
import { OrganizationStatusEnum, PaymentMethodEnum } from './enums.js';
import { nodeWhere } from './node.js';
import { PageInfoRef } from './pagination.js';

export const AccountRef = builder.prismaNode('Account', {
  id: { field: 'id' },
  // node(id): the caller's read of an account, its own organisation's only (node.ts).
  findUnique: (id, ctx) => nodeWhere(ctx, 'Account', id),
  nullable: true,
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    type: t.exposeString('type'),
    balance: t.field({ type: 'SafeInt', resolve: (account) => toWireAmount(account.balance) }),
    currency: t.exposeString('currency'),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const optionalAmount = (amount: bigint | null): number | null => (amount === null ? null : toWireAmount(amount));

export const OrganizationRef = builder.prismaNode('Organization', {
  id: { field: 'id' },
  // node(id): operators only, as the policy's getOrganization (node.ts).
  findUnique: (id, ctx) => nodeWhere(ctx, 'Organization', id),
  nullable: true,
  // Always with its accounts, as the operations return it (OrganizationRecord).
  include: { accounts: { orderBy: { name: 'asc' } } },
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    status: t.field({ type: OrganizationStatusEnum, resolve: (organization) => organization.status }),
    verified: t.exposeBoolean('verified'),
    escrowEnabled: t.exposeBoolean('escrowEnabled'),
    payoutEnabled: t.exposeBoolean('payoutEnabled'),
    allowedMethods: t.field({ type: [PaymentMethodEnum], resolve: (organization) => organization.allowedMethods }),
    businessSector: t.exposeString('businessSector', { nullable: true }),
    minTransactionAmount: t.field({ type: 'SafeInt', nullable: true, resolve: (o) => optionalAmount(o.minTransactionAmount) }),
    maxTransactionAmount: t.field({ type: 'SafeInt', nullable: true, resolve: (o) => optionalAmount(o.maxTransactionAmount) }),
    maxPayoutAmount: t.field({ type: 'SafeInt', nullable: true, resolve: (o) => optionalAmount(o.maxPayoutAmount) }),
    requireTwoFactor: t.exposeBoolean('requireTwoFactor', { description: 'Dashboard users must sign in with two factors (setTeamTwoFactorRequired)' }),
    // Read from the parent: operations return organisations with their accounts (OrganizationRecord),
    // and the plugin loads them with every organisation (the type's include), in the same query.
    accounts: t.field({ type: [AccountRef], authScopes: { run: 'listAccounts' }, resolve: (organization) => organization.accounts }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const CreateOrganizationInput = builder.inputType('CreateOrganizationInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    verified: t.boolean(),
    escrowEnabled: t.boolean(),
    payoutEnabled: t.boolean(),
    allowedMethods: t.field({ type: [PaymentMethodEnum] }),
    businessSector: t.string({ description: 'Omitted: "general". Empty: unset (the organisation must complete its profile).' }),
  }),
});

const UpdateOrganizationInput = builder.inputType('UpdateOrganizationInput', {
  fields: (t) => ({
    status: t.field({ type: OrganizationStatusEnum }),
    verified: t.boolean(),
    escrowEnabled: t.boolean(),
    payoutEnabled: t.boolean(),
    allowedMethods: t.field({ type: [PaymentMethodEnum] }),
    businessSector: t.string(),
    minTransactionAmount: t.field({ type: 'SafeInt', description: 'null clears the limit' }),
    maxTransactionAmount: t.field({ type: 'SafeInt', description: 'null clears the limit' }),
    maxPayoutAmount: t.field({ type: 'SafeInt', description: 'null clears the limit' }),
  }),
});

builder.queryField('organization', (t) =>
  t.field({
    type: OrganizationRef,
    description: 'Operators: one organisation.',
    authScopes: { run: 'getOrganization' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => getOrganization(ctx.gateway, ctx.caller, String(args.id)),
  }),
);

const OrganizationPageRef = builder.objectRef<Page<OrganizationRecord>>('OrganizationPage').implement({
  description: 'One page of organisations, newest first.',
  fields: (t) => ({
    organizations: t.field({ type: [OrganizationRef], description: 'The organisations of this page', resolve: (page) => page.items }),
    pagination: t.field({ type: PageInfoRef, description: 'Where this page is in the whole list', resolve: (page) => page }),
  }),
});

builder.queryField('organizations', (t) =>
  t.field({
    type: OrganizationPageRef,
    description: 'Operators (any role): organisations, newest first, filtered and paginated.',
    authScopes: { run: 'listOrganizations' },
    complexity: pageComplexity,
    args: {
      page: t.arg.int({ description: 'From 1 (default 1)' }),
      limit: t.arg.int({ description: 'Per page: default 20, above 100 capped at 100' }),
      status: t.arg({ type: OrganizationStatusEnum, description: 'Only organisations with this status' }),
      search: t.arg.string({ description: 'Part of the name, case-insensitive (at most 100 characters)' }),
    },
    // GraphQL's "absent" is null; the page arithmetic's is undefined.
    resolve: (_root, { page, limit, status, search }, ctx) =>
      listOrganizations(ctx.gateway, ctx.caller, { page: page ?? undefined, limit: limit ?? undefined, status, search }),
  }),
);

builder.mutationField('createOrganization', (t) =>
  t.field({
    type: OrganizationRef,
    description: 'Operators (admin): registers an organisation with its main and escrow accounts.',
    authScopes: { run: 'createOrganization' },
    args: { input: t.arg({ type: CreateOrganizationInput, required: true }) },
    resolve: (_root, { input }, ctx) => createOrganization(ctx.gateway, ctx.caller, input),
  }),
);

builder.mutationField('updateOrganization', (t) =>
  t.field({
    type: OrganizationRef,
    description: 'Operators (admin): changes status, flags, methods, profile and limits.',
    authScopes: { run: 'updateOrganization' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateOrganizationInput, required: true }) },
    // An explicit null clears a limit, an omitted field leaves it: keep that distinction.
    resolve: (_root, { id, input }, ctx) => updateOrganization(ctx.gateway, ctx.caller, String(id), input),
  }),
);

builder.mutationField('updateBusinessProfile', (t) =>
  t.field({
    type: OrganizationRef,
    description:
      'The business profile (name, sector): its owner completes it (an admin names the organisation). With a sector set, creating transactions and payouts ' +
      'no longer answers 403 "Complete your business profile". An omitted field is left as it is.',
    authScopes: { run: 'updateBusinessProfile' },
    args: { organizationId: t.arg.id({ description: 'Required for operators; the owner’s own when omitted' }), name: t.arg.string(), sector: t.arg.string() },
    resolve: (_root, args, ctx) =>
      updateBusinessProfile(ctx.gateway, ctx.caller, { organizationId: organizationIdOf(args.organizationId), name: args.name, sector: args.sector }),
  }),
);

// The organisation a transaction, payout or account belongs to: the operators' read of organisations.
builder.prismaObjectField('Transaction', 'organization', (t) => t.relation('organization', { authScopes: { run: 'getOrganization' } }));
builder.prismaObjectField('Payout', 'organization', (t) => t.relation('organization', { authScopes: { run: 'getOrganization' } }));
builder.prismaObjectField('Account', 'organization', (t) => t.relation('organization', { authScopes: { run: 'getOrganization' } }));
