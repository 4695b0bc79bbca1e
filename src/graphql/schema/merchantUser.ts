/**
 * Merchant dashboard users: `me` (every signed-in user), and the team (its owner; operators name
 * the organisation). A user is read through a session (the cookie and its X-CSRF-Token); who may
 * do what is the access policy's.
 */
import { MERCHANT_ROLES } from '../../domain/users/rules.js';
import type { MemberRecord } from '../../domain/users/store.js';
import { changeMemberRole, listMembers, me, removeMember } from '../../domain/operations.js';
import { builder } from '../builder.js';
import { organizationIdOf } from './arguments.js';
import { OrganizationRef } from './organization.js';

export const MerchantRoleEnum = builder.enumType('MerchantRole', {
  description:
    'A dashboard user’s role: owner everything (team, profile, audit log); developer reads money and manages API keys and webhooks; operations reads money, refunds, cancels, pays out and redelivers; viewer reads.',
  values: MERCHANT_ROLES,
});

export const MerchantUserRef = builder.objectRef<MemberRecord>('MerchantUser').implement({
  description: 'A person who signs in to the merchant dashboard, in one organisation.',
  fields: (t) => ({
    id: t.id({ resolve: (user) => user.id }),
    email: t.string({ resolve: (user) => user.email }),
    role: t.field({ type: MerchantRoleEnum, resolve: (user) => user.role }),
    twoFactorEnabled: t.boolean({
      description: 'Whether it signs in with a TOTP code (or a recovery code) after its password',
      resolve: (user) => user.twoFactorEnabled,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it accepted its invitation', resolve: (user) => user.createdAt }),
    organization: t.field({ type: OrganizationRef, resolve: (user) => user.organization }),
  }),
});

builder.queryField('me', (t) =>
  t.field({
    type: MerchantUserRef,
    description: 'The signed-in dashboard user (a session only).',
    authScopes: { run: 'me' },
    resolve: (_root, _args, ctx) => me(ctx.gateway, ctx.caller),
  }),
);

builder.queryField('members', (t) =>
  t.field({
    type: [MerchantUserRef],
    description: 'The team (owner; operators name the organisation): its members, oldest first, at most 100.',
    authScopes: { run: 'listMembers' },
    args: { organizationId: t.arg.id() },
    resolve: (_root, args, ctx) => listMembers(ctx.gateway, ctx.caller, organizationIdOf(args.organizationId)),
  }),
);

builder.mutationField('changeMemberRole', (t) =>
  t.field({
    type: MerchantUserRef,
    description: 'Owner: gives a member another role (from its next request). The last owner cannot be demoted (LAST_OWNER).',
    authScopes: { run: 'changeMemberRole' },
    args: { userId: t.arg.id({ required: true }), role: t.arg({ type: MerchantRoleEnum, required: true }) },
    resolve: (_root, args, ctx) => changeMemberRole(ctx.gateway, ctx.caller, String(args.userId), args.role),
  }),
);

builder.mutationField('removeMember', (t) =>
  t.field({
    type: MerchantUserRef,
    description: 'Owner: removes a member; its sessions end at once. The last owner cannot be removed (LAST_OWNER).',
    authScopes: { run: 'removeMember' },
    args: { userId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => removeMember(ctx.gateway, ctx.caller, String(args.userId)),
  }),
);
