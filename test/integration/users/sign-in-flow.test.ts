/**
 * The whole way in, over HTTP as the dashboard does it: invited, password set, signed in, two-factor
 * sign-in set up, signed out, signed in again with a TOTP code, then with a recovery code (each
 * recovery code once, each TOTP step once).
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { MeEmailDocument as ME_EMAIL, MeProfileDocument, MeTwoFactorEnabledDocument } from '../../support/graphql/generated.js';
import { DashboardBrowser, PASSWORD, enrol, invite, newEmail, nextStepTotp } from '../../support/dashboard.js';

const gateway = useGateway();

describe('signing in to the dashboard', () => {
  it('invite -> accept -> sign in -> enrol 2FA -> sign out -> sign in with TOTP -> with a recovery code, once only', async () => {
    const organization = await gateway.createOrganization({ name: 'Boutique Ndiaye' });
    const email = newEmail('awa');
    const invitation = await invite(gateway, organization.id, email.toUpperCase(), 'viewer');
    // The first user of an organisation is its owner, whatever was asked; the link carries the token in its fragment.
    expect(invitation.role).toBe('owner');
    expect(invitation.link).toMatch(new RegExp(`^${gateway.url}/dashboard/invitation#[A-Za-z0-9_-]{43}$`));

    const browser = new DashboardBrowser(gateway);
    expect((await browser.post('accept-invitation', { token: invitation.token, password: PASSWORD })).body).toEqual({ next: 'sign_in' });

    // Email case does not matter; the session cookie is HttpOnly, SameSite=Strict, Path=/.
    const signedIn = await browser.signIn(email.toUpperCase());
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toEqual({ next: 'done', csrfToken: expect.any(String) });
    expect(signedIn.headers.get('set-cookie')).toMatch(/^gateway_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const session = await browser.session();
    expect(session.body).toEqual({
      user: { email, role: 'owner', organizationId: organization.id, organizationName: 'Boutique Ndiaye' },
      csrfToken: signedIn.body.csrfToken,
      twoFactorEnabled: false,
      mustEnrolTwoFactor: false,
    });
    expect((await browser.dataTyped(MeProfileDocument, {})).me).toEqual({
      email,
      role: 'owner',
      twoFactorEnabled: false,
      organization: { id: organization.id, name: 'Boutique Ndiaye' },
    });

    const { secret, recoveryCodes } = await enrol(browser);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect((await browser.dataTyped(MeTwoFactorEnabledDocument, {})).me.twoFactorEnabled).toBe(true);

    expect((await browser.signOut()).status).toBe(204);
    expect(browser.cookie).toBeUndefined();

    // The password alone no longer signs in: the session it opens only takes a code.
    const passwordStep = await browser.signIn(email);
    expect(passwordStep.body.next).toBe('two_factor');
    expect((await browser.session()).status).toBe(401);
    expect((await browser.graphqlTyped(ME_EMAIL, {})).status).toBe(401);
    expect((await browser.secondFactor('000000')).status).toBe(401);
    const code = nextStepTotp(secret);
    const done = await browser.secondFactor(code);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ next: 'done', csrfToken: expect.any(String) });
    expect((await browser.dataTyped(ME_EMAIL, {})).me.email).toBe(email);
    await browser.signOut();

    // A TOTP code is accepted once per step: the same code again is refused.
    await browser.signIn(email);
    const replayed = await browser.secondFactor(code);
    expect(replayed.status).toBe(401);
    expect(replayed.body).toEqual({ error: 'Invalid or already used two-factor code' });

    // A recovery code signs in (typed in capitals, without its dash), once.
    const recovery = recoveryCodes[3]!;
    expect((await browser.secondFactor(recovery.toUpperCase().replace('-', ''))).body.next).toBe('done');
    await browser.signOut();
    await browser.signIn(email);
    expect((await browser.secondFactor(recovery)).status).toBe(401);
    expect((await browser.secondFactor(recoveryCodes[4]!)).body.next).toBe('done');
  });

  it('refuses a wrong password and an unknown email with the same answer', async () => {
    const organization = await gateway.createOrganization({});
    const email = newEmail();
    const { token } = await invite(gateway, organization.id, email);
    await new DashboardBrowser(gateway).post('accept-invitation', { token, password: PASSWORD });
    const wrong = await new DashboardBrowser(gateway).signIn(email, 'not the password at all');
    const unknown = await new DashboardBrowser(gateway).signIn(newEmail('nobody'), PASSWORD);
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.body).toEqual({ error: 'Invalid email or password' });
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });
});

describe('a session endpoint’s body', () => {
  it('meets the text rule every API body meets: a NUL or a lone surrogate in any field is 400, never a 500 from PostgreSQL', async () => {
    const email = newEmail();
    for (const body of [
      { email: `${email}\u0000x`, password: PASSWORD },
      { email: `\ud800${email}`, password: PASSWORD },
      { email, password: `${PASSWORD}\u0000` },
    ]) {
      const answer = await new DashboardBrowser(gateway).post('sign-in', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toMatch(/^Invalid request body: (email|password) (contains a NUL character|is not well-formed Unicode)/);
    }
    const invitation = await new DashboardBrowser(gateway).post('accept-invitation', { token: 'x\u0000', password: PASSWORD });
    expect(invitation.status).toBe(400);
  });
});
