/** Invitation links: single use, 72 hours, a password of 12 to 128 characters; the CLI's `gateway user invite`. */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { runCli } from '../../support/cli.js';
import { DashboardBrowser, PASSWORD, invite, newEmail } from '../../support/dashboard.js';
import { InviteMemberDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
const INVALID = { error: 'This invitation link is invalid, has expired or was already used' };

describe('accepting an invitation', () => {
  it('works once: the same link again is refused, and nobody else can take it', async () => {
    const organization = await gateway.createOrganization({});
    const { token } = await invite(gateway, organization.id, newEmail());
    const browser = new DashboardBrowser(gateway);
    expect((await browser.post('accept-invitation', { token, password: PASSWORD })).status).toBe(200);
    const again = await browser.post('accept-invitation', { token, password: 'another long password' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(INVALID);
  });

  it('is refused once expired, and for a token that was never issued', async () => {
    const organization = await gateway.createOrganization({});
    const { token } = await invite(gateway, organization.id, newEmail());
    await gateway.ctx.db.merchantInvitation.update({ where: { tokenDigest: sha256Hex(token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await new DashboardBrowser(gateway).post('accept-invitation', { token, password: PASSWORD });
    expect([expired.status, expired.body]).toEqual([400, INVALID]);
    const unknown = await new DashboardBrowser(gateway).post('accept-invitation', { token: 'A'.repeat(43), password: PASSWORD });
    expect([unknown.status, unknown.body]).toEqual([400, INVALID]);
    expect(await gateway.ctx.db.merchantUser.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('wants a password of 12 to 128 characters, and leaves the link usable after a refusal', async () => {
    const organization = await gateway.createOrganization({});
    const { token } = await invite(gateway, organization.id, newEmail());
    for (const password of ['short', 'x'.repeat(129), 42]) {
      const refused = await new DashboardBrowser(gateway).post('accept-invitation', { token, password });
      expect([refused.status, refused.body]).toEqual([400, { error: 'Password must be 12 to 128 characters' }]);
    }
    expect((await new DashboardBrowser(gateway).post('accept-invitation', { token, password: 'x'.repeat(128) })).status).toBe(200);
  });

  it('refuses inviting an email that already belongs to a user, in any case', async () => {
    const organization = await gateway.createOrganization({});
    const email = newEmail();
    const { token } = await invite(gateway, organization.id, email);
    await new DashboardBrowser(gateway).post('accept-invitation', { token, password: PASSWORD });
    const answer = await graphqlTyped(gateway, InviteMemberDocument, { organizationId: organization.id, email: email.toUpperCase() }, gateway.adminToken);
    expect(answer.body.errors[0].extensions.code).toBe('MEMBER_EXISTS');
  });
});

describe('gateway user invite', () => {
  it('prints the email, the role and a one-time link: the first user is the owner, the next a viewer unless told', async () => {
    const organization = await gateway.createOrganization({});
    const first = await runCli(gateway, ['user', 'invite', '--org', organization.id, '--email', 'Fatou@Shop.example.sn', '--role', 'viewer']);
    expect(first.code).toBe(0);
    expect(first.json).toEqual({ email: 'fatou@shop.example.sn', role: 'owner', link: expect.stringMatching(/\/dashboard\/invitation#[A-Za-z0-9_-]{43}$/) });
    expect((await new DashboardBrowser(gateway).post('accept-invitation', { token: first.json.link.split('#')[1], password: PASSWORD })).status).toBe(200);
    const second = await runCli(gateway, ['user', 'invite', '--org', organization.id, '--email', newEmail()]);
    expect(second.json.role).toBe('viewer');
    const third = await runCli(gateway, ['user', 'invite', '--org', organization.id, '--email', newEmail(), '--role', 'operations']);
    expect(third.json.role).toBe('operations');
    const bad = await runCli(gateway, ['user', 'invite', '--org', organization.id, '--email', newEmail(), '--role', 'king']);
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatch(/--role/);
  });
});
