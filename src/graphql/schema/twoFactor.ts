/**
 * A dashboard user's own two-factor sign-in (TOTP): enrol (secret, then a code to confirm, which
 * answers ten recovery codes shown once), disable or renew the recovery codes with a current code.
 */
import {
  confirmTwoFactorEnrolment,
  disableTwoFactor,
  me,
  regenerateRecoveryCodes,
  setTeamTwoFactorRequired,
  startTwoFactorEnrolment,
} from '../../domain/operations.js';
import type { TwoFactorEnrolment } from '../../domain/users/startTwoFactorEnrolment.js';
import { sessionCookie } from '../../edge/sessionCookie.js';
import { builder } from '../builder.js';
import { organizationIdOf } from './arguments.js';
import { MerchantUserRef } from './merchantUser.js';
import { OrganizationRef } from './organization.js';

const TwoFactorEnrolmentRef = builder.objectRef<TwoFactorEnrolment>('TwoFactorEnrolment').implement({
  description: 'A TOTP secret waiting for its first code (confirmTwoFactorEnrolment).',
  fields: (t) => ({
    secret: t.string({ description: 'Base32, to type into an authenticator app', resolve: (enrolment) => enrolment.secret }),
    otpauthUrl: t.string({ description: '`otpauth://totp/...`, to show as a QR code', resolve: (enrolment) => enrolment.otpauthUrl }),
    renewed: t.boolean({
      description: 'A pending secret was replaced by this call (renew): an authenticator that scanned it must scan the new one.',
      resolve: (enrolment) => enrolment.renewed,
    }),
  }),
});

builder.mutationField('startTwoFactorEnrolment', (t) =>
  t.field({
    type: TwoFactorEnrolmentRef,
    description:
      'Starts or resumes setting up two-factor sign-in: the pending secret stays the same until enrolment is confirmed; `renew: true` replaces it (answered `renewed`).',
    authScopes: { run: 'startTwoFactorEnrolment' },
    args: { renew: t.arg.boolean() },
    resolve: (_root, { renew }, ctx) => startTwoFactorEnrolment(ctx.gateway, ctx.caller, { renew: renew ?? false }),
  }),
);

builder.mutationField('confirmTwoFactorEnrolment', (t) =>
  t.field({
    type: ['String'],
    description:
      'Confirms two-factor sign-in with a code from the app; answers ten single-use recovery codes, shown only here. When the organisation required enrolment before letting the user in, the session is replaced (new cookie, same CSRF token).',
    authScopes: { run: 'confirmTwoFactorEnrolment' },
    args: { code: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const confirmed = await confirmTwoFactorEnrolment(ctx.gateway, ctx.caller, args.code);
      if (confirmed.session) {
        const { token, expiresAt } = confirmed.session;
        ctx.responseHeaders.set('set-cookie', sessionCookie(token, expiresAt, ctx.gateway.clock.now(), ctx.gateway.settings.publicUrl));
      }
      return confirmed.recoveryCodes;
    },
  }),
);

builder.mutationField('disableTwoFactor', (t) =>
  t.field({
    type: MerchantUserRef,
    description: 'Turns two-factor sign-in off, with a current TOTP or recovery code. Refused while the organisation requires it.',
    authScopes: { run: 'disableTwoFactor' },
    args: { code: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await disableTwoFactor(ctx.gateway, ctx.caller, args.code);
      return me(ctx.gateway, ctx.caller);
    },
  }),
);

builder.mutationField('regenerateRecoveryCodes', (t) =>
  t.field({
    type: ['String'],
    description: 'Ten new recovery codes (the old ones stop working), with a current TOTP or recovery code. Shown only here.',
    authScopes: { run: 'regenerateRecoveryCodes' },
    args: { code: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => regenerateRecoveryCodes(ctx.gateway, ctx.caller, args.code),
  }),
);

builder.mutationField('setTeamTwoFactorRequired', (t) =>
  t.field({
    type: OrganizationRef,
    description: 'Owner (or admin, naming the organisation): requires two-factor sign-in of every member; those without it enrol at their next sign-in.',
    authScopes: { run: 'setTeamTwoFactorRequired' },
    args: { required: t.arg.boolean({ required: true }), organizationId: t.arg.id() },
    resolve: (_root, args, ctx) => setTeamTwoFactorRequired(ctx.gateway, ctx.caller, args.required, organizationIdOf(args.organizationId)),
  }),
);
