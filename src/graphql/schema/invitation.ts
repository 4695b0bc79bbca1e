/** Invitations to a dashboard team: the link is shown once, in the answer of inviteMember. */
import type { Invitation } from '../../domain/users/inviteMember.js';
import { inviteMember } from '../../domain/operations.js';
import { builder } from '../builder.js';
import { organizationIdOf } from './arguments.js';
import { MerchantRoleEnum } from './merchantUser.js';

const InvitationRef = builder.objectRef<Invitation>('Invitation').implement({
  description: 'A one-time invitation to the dashboard (72 hours).',
  fields: (t) => ({
    id: t.id({ resolve: (invitation) => invitation.id }),
    organizationId: t.id({ resolve: (invitation) => invitation.organizationId }),
    email: t.string({ resolve: (invitation) => invitation.email }),
    role: t.field({
      type: MerchantRoleEnum,
      description: 'An organisation’s first user is its owner, whatever was asked',
      resolve: (invitation) => invitation.role,
    }),
    link: t.string({
      description: '`{PUBLIC_URL}/dashboard/invitation#<token>`: hand it to the person. Shown only here (only a digest is kept).',
      resolve: (invitation) => invitation.link,
    }),
    expiresAt: t.field({ type: 'DateTime', resolve: (invitation) => invitation.expiresAt }),
  }),
});

builder.mutationField('inviteMember', (t) =>
  t.field({
    type: InvitationRef,
    description:
      'Owner (or admin, naming the organisation): invites a person by email. Role defaults to viewer; the first user of an organisation is its owner.',
    authScopes: { run: 'inviteMember' },
    args: { email: t.arg.string({ required: true }), role: t.arg({ type: MerchantRoleEnum }), organizationId: t.arg.id() },
    resolve: (_root, args, ctx) =>
      inviteMember(ctx.gateway, ctx.caller, { email: args.email, role: args.role ?? null, organizationId: organizationIdOf(args.organizationId) }),
  }),
);
