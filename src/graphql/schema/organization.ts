/** Organisations and their accounts, for operators (admin token or operator tokens). */
import { toWireAmount } from '../../domain/money.js';
import { createOrganization, getOrganization, updateOrganization } from '../../domain/operations/index.js';
import { builder } from '../builder.js';
import { OrganizationStatusEnum, PaymentMethodEnum } from './enums.js';

export const AccountRef = builder.prismaObject('Account', {
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

export const OrganizationRef = builder.prismaObject('Organization', {
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
    accounts: t.relation('accounts', { query: { orderBy: { name: 'asc' } } }),
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
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => getOrganization(ctx.gateway, ctx.caller, String(args.id)),
  }),
);

builder.mutationField('createOrganization', (t) =>
  t.field({
    type: OrganizationRef,
    description: 'Operators (admin): registers an organisation with its main and escrow accounts.',
    args: { input: t.arg({ type: CreateOrganizationInput, required: true }) },
    resolve: (_root, { input }, ctx) => createOrganization(ctx.gateway, ctx.caller, input),
  }),
);

builder.mutationField('updateOrganization', (t) =>
  t.field({
    type: OrganizationRef,
    description: 'Operators (admin): changes status, flags, methods, profile and limits.',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateOrganizationInput, required: true }) },
    // An explicit null clears a limit, an omitted field leaves it: keep that distinction.
    resolve: (_root, { id, input }, ctx) => updateOrganization(ctx.gateway, ctx.caller, String(id), input),
  }),
);
