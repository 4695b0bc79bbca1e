/**
 * Roles at work through the dashboard's session: a viewer cannot move money, operations can; only
 * the owner runs the team; the last owner cannot be demoted or removed; a removed member is out at
 * once; a team that requires two-factor sign-in gets its members enrolled before anything else.
 */
import { describe, expect, it } from 'vitest';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { DashboardBrowser, PASSWORD, member, signedIn } from '../../support/dashboard.js';
import { useGateway } from '../../support/gateway.js';
import {
  AuditLogDocument,
  ChangeMemberRoleDocument,
  ConfirmTwoFactorEnrolmentDocument,
  DisableTwoFactorDocument,
  InviteMemberDocument,
  MeEmailDocument as ME_EMAIL,
  MeIdDocument,
  MeRoleDocument,
  MemberEmailsDocument,
  MemberTransactionStatusDocument,
  MemberTransactionsProbeDocument,
  MembersDocument,
  MerchantRefundTransactionDocument as REFUND,
  RemoveMemberDocument,
  SetTeamTwoFactorRequiredDocument,
  StartTwoFactorEnrolmentDocument,
} from '../../support/graphql/generated.js';
import { subscribe } from '../../support/sse.js';
import { totpCodeAt } from '../../../src/domain/users/secondFactor.js';
import { adjustAccount } from '../../../src/domain/operations.js';

const gateway = useGateway();

const codeOf = (answer: { body: any }) => answer.body.errors?.[0]?.extensions?.code;

describe('roles', () => {
  it('a viewer cannot refund (the policy), operations can: the transaction is refunded', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    const owner = await signedIn(gateway, organization.id, 'owner');
    const viewer = await signedIn(gateway, organization.id, 'viewer');
    const operations = await signedIn(gateway, organization.id, 'operations');
    const orderId = await pendingTransaction(gateway, key);
    await sandboxPay(gateway, orderId);
    // The merchant pays the fees: main holds the amount less fees, and a refund returns the whole amount.
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 10_000, reason: 'float for refunds' });

    const refused = await viewer.graphqlTyped(REFUND, { orderId });
    expect(codeOf(refused)).toBe('FORBIDDEN');
    expect((await viewer.dataTyped(MemberTransactionStatusDocument, { orderId })).transaction.status).toBe('paid');
    const refunded = await operations.dataTyped(REFUND, { orderId });
    expect(refunded.refundTransaction).toEqual({ orderId, status: 'refunded' });
    expect(owner.email).toBeTruthy();
  });

  it('only the owner reads and runs the team', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const developer = await signedIn(gateway, organization.id, 'developer');
    const ownerOnly = {
      members: () => developer.graphqlTyped(MemberEmailsDocument, {}),
      inviteMember: () => developer.graphqlTyped(InviteMemberDocument, { email: 'new@shop.example.sn' }),
      setTeamTwoFactorRequired: () => developer.graphqlTyped(SetTeamTwoFactorRequiredDocument, { required: true }),
      auditEvents: () => developer.graphqlTyped(AuditLogDocument, {}),
    };
    for (const [field, send] of Object.entries(ownerOnly)) expect(codeOf(await send()), field).toBe('FORBIDDEN');
    const { members } = await owner.dataTyped(MembersDocument, {});
    expect(members.map((m: { role: string }) => m.role)).toEqual(['owner', 'developer']);
    const developerId = members[1]!.id;
    expect(codeOf(await developer.graphqlTyped(ChangeMemberRoleDocument, { role: 'owner', id: developerId }))).toBe('FORBIDDEN');
    expect((await owner.dataTyped(ChangeMemberRoleDocument, { role: 'operations', id: developerId })).changeMemberRole.role).toBe('operations');
    // The new role applies to the member's next request.
    expect((await developer.dataTyped(MeRoleDocument, {})).me.role).toBe('operations');

    // Another organisation's member is not found, like a missing one.
    const stranger = await signedIn(gateway, (await gateway.createOrganization({})).id, 'owner');
    expect(codeOf(await stranger.graphqlTyped(RemoveMemberDocument, { id: developerId }))).toBe('MEMBER_NOT_FOUND');
  });

  it('keeps the last owner: not demoted, not removed; with a second owner, either may go; a removed member is out at once', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const developer = await signedIn(gateway, organization.id, 'developer');
    const { me } = await owner.dataTyped(MeIdDocument, {});
    const demote = await owner.graphqlTyped(ChangeMemberRoleDocument, { role: 'viewer', id: me.id });
    expect(demote.body.errors[0]).toMatchObject({ message: 'An organization must keep at least one owner', extensions: { code: 'LAST_OWNER' } });
    expect(codeOf(await owner.graphqlTyped(RemoveMemberDocument, { id: me.id }))).toBe('LAST_OWNER');

    const { me: dev } = await developer.dataTyped(MeIdDocument, {});
    await owner.dataTyped(ChangeMemberRoleDocument, { role: 'owner', id: dev.id });
    expect((await owner.dataTyped(ChangeMemberRoleDocument, { role: 'viewer', id: me.id })).changeMemberRole.role).toBe('viewer');
    // Now the former developer is the only owner, and removes the former owner, whose session ends.
    await developer.dataTyped(RemoveMemberDocument, { id: me.id });
    expect((await owner.graphqlTyped(ME_EMAIL, {})).status).toBe(401);
    expect((await new DashboardBrowser(gateway).signIn(owner.email)).status).toBe(401);
    expect((await developer.dataTyped(MemberEmailsDocument, {})).members).toEqual([{ email: developer.email }]);
  });
});

describe('live updates of a member', () => {
  it('end when the member is removed (its stream was authorised when opened)', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const viewer = await signedIn(gateway, organization.id, 'viewer');
    const stream = await subscribe(gateway.url, 'subscription { transactionStatusChanged { orderId status } }', {}, undefined, {
      cookie: `gateway_session=${viewer.cookie}`,
      'x-csrf-token': viewer.csrfToken,
    });
    try {
      expect(stream.contentType).toMatch(/^text\/event-stream/);
      expect(await stream.quiet(200)).toEqual([]);
      expect(stream.ended).toBe(false);
      const { me } = await viewer.dataTyped(MeIdDocument, {});
      await owner.dataTyped(RemoveMemberDocument, { id: me.id });
      await expect.poll(() => stream.ended, { timeout: 3_000 }).toBe(true);
    } finally {
      stream.close();
    }
  });
});

describe('a team that requires two-factor sign-in', () => {
  it('lets a member without it only enrol, then signs it in on a new cookie', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    expect((await owner.dataTyped(SetTeamTwoFactorRequiredDocument, { required: true })).setTeamTwoFactorRequired.requireTwoFactor).toBe(true);
    const { email } = await member(gateway, organization.id, 'viewer');

    const browser = new DashboardBrowser(gateway);
    expect((await browser.signIn(email, PASSWORD)).body.next).toBe('enrol_two_factor');
    expect((await browser.session()).body).toMatchObject({ user: { email }, mustEnrolTwoFactor: true, twoFactorEnabled: false });
    const blocked = await browser.graphqlTyped(MemberTransactionsProbeDocument, {});
    expect(blocked.body.errors[0]).toMatchObject({
      message: 'Your organization requires two-factor sign-in: set it up to continue',
      extensions: { code: 'TWO_FACTOR_ENROLMENT_REQUIRED' },
    });
    expect((await browser.dataTyped(ME_EMAIL, {})).me.email).toBe(email);

    const enrolling = browser.cookie;
    const csrf = browser.csrfToken;
    const { startTwoFactorEnrolment } = await browser.dataTyped(StartTwoFactorEnrolmentDocument, {});
    expect(startTwoFactorEnrolment.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    const { confirmTwoFactorEnrolment } = await browser.dataTyped(ConfirmTwoFactorEnrolmentDocument, {
      code: totpCodeAt(startTwoFactorEnrolment.secret, new Date()),
    });
    expect(confirmTwoFactorEnrolment).toHaveLength(10);
    expect(browser.cookie).not.toBe(enrolling);
    expect(browser.csrfToken).toBe(csrf);
    expect((await browser.graphqlTyped(MemberTransactionsProbeDocument, {})).body.errors).toBeUndefined();
    expect((await browser.session()).body).toMatchObject({ mustEnrolTwoFactor: false, twoFactorEnabled: true });
    // While required, it cannot be turned off.
    expect(codeOf(await browser.graphqlTyped(DisableTwoFactorDocument, { code: confirmTwoFactorEnrolment[0]! }))).toBe('TWO_FACTOR_REQUIRED_BY_TEAM');
  });
});
