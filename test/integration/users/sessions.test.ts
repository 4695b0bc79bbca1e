/**
 * Session transport: no fixation (every step of signing in issues a new cookie; a cookie planted
 * before is never honoured), CSRF (a cookie without the session's X-CSRF-Token reads and does
 * nothing), Origin (another site's page cannot post), sign-out ends the session.
 */
import { describe, expect, it } from 'vitest';
import { DashboardBrowser, enrol, member, nextStepTotp, signedIn } from '../../support/dashboard.js';
import { useGateway } from '../../support/gateway.js';
import { MeEmailDocument as ME_EMAIL, StartTwoFactorEnrolmentDocument } from '../../support/graphql/generated.js';

const gateway = useGateway();

describe('session fixation', () => {
  it('issues a new cookie at sign-in and again after the second factor; a planted cookie is never honoured', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const { secret } = await enrol(owner);

    // An attacker plants a cookie value in the victim's browser before sign-in.
    const planted = 'PLANTEDplantedPLANTEDplantedPLANTEDplanted1';
    const browser = new DashboardBrowser(gateway);
    browser.cookie = planted;
    const passwordStep = await browser.signIn(owner.email);
    expect(passwordStep.body.next).toBe('two_factor');
    const afterPassword = browser.cookie;
    expect(afterPassword).toBeDefined();
    expect(afterPassword).not.toBe(planted);
    const done = await browser.secondFactor(nextStepTotp(secret));
    expect(done.body.next).toBe('done');
    expect(browser.cookie).not.toBe(afterPassword);
    expect((await browser.dataTyped(ME_EMAIL, {})).me.email).toBe(owner.email);

    // Neither the planted value nor the password step's cookie opens anything, with any CSRF token.
    for (const stale of [planted, afterPassword]) {
      const attacker = new DashboardBrowser(gateway);
      attacker.cookie = stale;
      attacker.csrfToken = done.body.csrfToken;
      expect((await attacker.session()).status).toBe(401);
      expect((await attacker.graphqlTyped(ME_EMAIL, {})).status).toBe(401);
    }
  });

  it('ends the session at sign-out: the old cookie is refused from then on', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const { cookie, csrfToken } = owner;
    expect((await owner.signOut()).status).toBe(204);
    const replay = new DashboardBrowser(gateway);
    replay.cookie = cookie;
    replay.csrfToken = csrfToken;
    expect((await replay.graphqlTyped(ME_EMAIL, {})).status).toBe(401);
  });
});

describe('cross-site requests', () => {
  it('refuses GraphQL with the cookie but without, or with a wrong, X-CSRF-Token (queries too), with 403', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    for (const csrf of [null, 'wrong-token', `${owner.csrfToken}x`]) {
      const answer = await owner.graphqlTyped(ME_EMAIL, {}, { csrf });
      expect(answer.status).toBe(403);
      expect(answer.body.errors[0]).toMatchObject({ message: 'Missing or invalid X-CSRF-Token', extensions: { code: 'CSRF_REFUSED' } });
      const mutation = await owner.graphqlTyped(StartTwoFactorEnrolmentDocument, {}, { csrf });
      expect(mutation.status).toBe(403);
    }
    expect((await owner.dataTyped(ME_EMAIL, {})).me.email).toBe(owner.email);
  });

  it('refuses a POST from another Origin (sign-in, GraphQL), and a sign-out without the CSRF token', async () => {
    const organization = await gateway.createOrganization({});
    const { email } = await member(gateway, organization.id, 'owner');
    const browser = new DashboardBrowser(gateway);
    const foreign = await browser.post('sign-in', { email, password: 'correct horse battery staple' }, { headers: { origin: 'https://evil.example' } });
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'Cross-origin request refused' }]);
    expect(foreign.headers.get('set-cookie')).toBeNull();
    // Same origin (as a browser sends it) is fine.
    expect((await browser.post('sign-in', { email, password: 'correct horse battery staple' }, { headers: { origin: gateway.url } })).body.next).toBe('done');
    expect((await browser.graphqlTyped(ME_EMAIL, {}, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    // A form post (not JSON) cannot sign in either.
    const form = await browser.request('POST', '/dashboard/auth/sign-in', { body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(form.status).toBe(415);
    expect((await browser.post('sign-out', {}, { csrf: null })).status).toBe(403);
    expect((await browser.dataTyped(ME_EMAIL, {})).me.email).toBe(email);
  });

  it('lets a bearer token decide when one is sent with a cookie', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const answer = await owner.graphqlTyped(ME_EMAIL, {}, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    // The operator token is used: an operator has no `me`.
    expect(answer.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
