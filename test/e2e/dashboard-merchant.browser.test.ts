/**
 * Issue 20's "done when", in a real browser (headless Chromium) on a 360 px phone: a merchant
 * invited by the operator sets a password, signs in, turns two-step verification on and signs in
 * again with it, creates an API key and uses it from outside the browser, registers a webhook on a
 * real receiver, watches a payment arrive with its delivery and resends it, exports the month as
 * CSV, refunds a payment, sends a payout, and invites a teammate with a narrower role, who sees no
 * secret and no money button. Each page is also shot at 1280 px. The steps share one merchant and
 * run in order. Screenshots in test-artifacts/dashboard/ (git-ignored).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payTransaction } from '../../src/domain/operations.js';
import { totpCodeAt } from '../../src/domain/users/secondFactor.js';
import { startWebhookDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.js';
import { newPhonePage, sharedBrowser, recordOutsideRequests, saveScreenshot } from '../support/browser.js';
import { startGateway, transactionBody, type TestGateway } from '../support/gateway.js';
import { InviteMemberDocument } from '../support/graphql/generated.js';
import { graphqlTyped } from '../support/graphql/typed.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';

let gateway: TestGateway;
let browser: Browser;
let receiver: WebhookReceiver;
let dispatcher: Dispatcher;
beforeAll(async () => {
  [gateway, browser, receiver] = await Promise.all([
    startGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 30, maxRetries: 1, timeoutMs: 2_000 } }),
    sharedBrowser(),
    startWebhookReceiver(),
  ]);
  dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20 });
});
afterAll(async () => {
  await state.owner?.context.close();
  await receiver?.close();
  await dispatcher?.stop();
  await gateway?.close();
});

const OWNER = { email: 'awa@boutique-dakar.sn', password: 'correct horse battery staple' };
const VIEWER = { email: 'moussa@boutique-dakar.sn', password: 'another long passphrase' };

/** What the steps share: the merchant, the owner's phone, what was created along the way. */
const state = {} as {
  organizationId: string;
  owner: { context: BrowserContext; page: Page };
  totpSecret: string;
  apiKey: string;
  orderIds: string[];
  viewerLink: string;
};

const shot = (page: Page, name: string) => saveScreenshot(page, 'dashboard', name);
const url = (path: string) => `${gateway.url}/dashboard${path}`;

/** Script errors and policy refusals the page reported (Chromium logs CSP refusals as errors). */
function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

async function heading(page: Page, text: string): Promise<void> {
  await page.locator('main h1', { hasText: text }).waitFor();
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(url('/sign-in'));
  await heading(page, 'Sign in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function acceptInvitation(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await heading(page, 'Choose your password');
  // The token left the address bar (and the history) once read.
  expect(page.url()).toBe(url('/invitation'));
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Repeat the password').fill(password);
  await page.getByRole('button', { name: 'Set my password' }).click();
  await heading(page, 'Sign in');
  await expect.poll(() => page.getByRole('status').innerText()).toContain('Your password is set');
}

/** The session cookie's value as the browser holds it (HttpOnly: not readable by the page). */
async function sessionCookie(context: BrowserContext): Promise<string | undefined> {
  return (await context.cookies(gateway.url)).find((cookie) => cookie.name === 'gateway_session')?.value;
}

/** A shot of the page as it is, at 360 px, then at 1280 px (the same page, resized), back to 360. */
async function shootBoth(page: Page, name: string): Promise<void> {
  await shot(page, `${name}-360`);
  // Nothing wider than the screen (tables scroll inside their own box): named when it fails.
  const tooWide = await page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > 361 && !element.parentElement?.closest('.table-wrap, nav'))
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
  );
  expect(tooWide, `${name} fits 360 px`).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} fits 360 px`).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, `${name}-1280`);
  await page.setViewportSize({ width: 360, height: 740 });
}

async function go(page: Page, navLabel: string, title = navLabel): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: navLabel, exact: true }).click();
  await heading(page, title);
}

describe('a merchant on its phone, from the operator’s invitation to a teammate', () => {
  it('the operator invites the owner; the owner sets a password and signs in (a new session id at sign-in)', async () => {
    const organization = await gateway.createOrganization({ name: 'Boutique Dakar', verified: true, payoutEnabled: true });
    state.organizationId = organization.id;
    const invited = await graphqlTyped(gateway, InviteMemberDocument, { organizationId: organization.id, email: OWNER.email }, gateway.adminToken);
    expect(invited.body.errors).toBeUndefined();
    const { link, role } = invited.body.data!.inviteMember;
    expect(role).toBe('owner');
    expect(link).toMatch(new RegExp(`^${gateway.url}/dashboard/invitation#[A-Za-z0-9_-]+$`));

    state.owner = await newPhonePage(browser, { locale: 'en-US' });
    const { page, context } = state.owner;
    const problems = recordProblems(page);
    const outside = recordOutsideRequests(page, gateway.url);
    await acceptInvitation(page, link, OWNER.password);
    // The link works once.
    const again = await gateway.rest('POST', '/dashboard/auth/accept-invitation', { body: { token: link.split('#')[1], password: OWNER.password } });
    expect(again.status).toBeGreaterThanOrEqual(400);

    // A cookie planted before sign-in (fixation) is not the one the session gets.
    await context.addCookies([{ name: 'gateway_session', value: 'planted-by-an-attacker', url: gateway.url }]);
    await signIn(page, OWNER.email, OWNER.password);
    await heading(page, 'Home');
    const signedIn = await sessionCookie(context);
    expect(signedIn).toBeDefined();
    expect(signedIn).not.toBe('planted-by-an-attacker');
    expect(await page.locator('.top .brand').innerText()).toBe('Boutique Dakar');
    await shootBoth(page, 'overview-empty');
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('turns two-step verification on (QR code, secret, recovery codes), then signs in with a TOTP code', async () => {
    const { page, context } = state.owner;
    await go(page, 'Settings');
    await page.getByRole('link', { name: 'Set up two-step verification' }).click();
    await heading(page, 'Set up two-step verification');
    const secret = await page.locator('[data-totp-secret]').innerText();
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(await page.getByRole('img', { name: 'Setup link' }).count()).toBe(1);
    await shootBoth(page, 'two-factor-enrol');
    await page.getByLabel('Code').fill(totpCodeAt(secret, new Date()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await heading(page, 'Your recovery codes');
    expect(await page.locator('[data-recovery-codes] li').count()).toBe(10);
    await shootBoth(page, 'two-factor-recovery-codes');
    await page.getByRole('button', { name: 'Continue' }).click();
    await heading(page, 'Home');
    state.totpSecret = secret;

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in');
    const beforeSignIn = await sessionCookie(context);
    await signIn(page, OWNER.email, OWNER.password);
    await heading(page, 'Two-step verification');
    const afterPassword = await sessionCookie(context);
    // A wrong code is refused, and says so.
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    await shootBoth(page, 'second-factor');
    // The next period's code: the enrolment's was used already (no replay).
    await page.getByLabel('Code').fill(totpCodeAt(secret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading(page, 'Home');
    // A new session id at each step: no fixation.
    const afterSecondFactor = await sessionCookie(context);
    expect(new Set([beforeSignIn, afterPassword, afterSecondFactor]).size).toBe(3);
  });

  it('refuses a GraphQL request of the session without its CSRF token, and one from another site', async () => {
    const { page } = state.owner;
    const withoutToken = await page.evaluate(async () => {
      const response = await fetch('/graphql', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ me { email } }' }),
      });
      return { status: response.status, body: await response.text() };
    });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body).not.toContain('awa@');
    // A cross-site page cannot read the session (SameSite=Strict, no CORS), nor post as it.
    const crossSite = await gateway.rest('POST', '/graphql', {
      body: { query: '{ me { email } }' },
      headers: { origin: 'https://evil.example', cookie: `gateway_session=${await sessionCookie(state.owner.context)}` },
    });
    expect(crossSite.status).toBeGreaterThanOrEqual(400);
  });

  it('creates an API key (shown once, with a copy button) and uses it from outside the browser', async () => {
    const { page } = state.owner;
    await go(page, 'Integration');
    await page.getByLabel('Scope').selectOption('readAndWrite');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const secret = page.locator('.secret [data-secret]');
    await secret.waitFor();
    state.apiKey = await secret.innerText();
    expect(state.apiKey).toMatch(/^gw_sk_/);
    expect(await page.locator('.secret').getByRole('button', { name: 'Copy' }).count()).toBe(1);
    await expect.poll(() => page.locator('[data-key-prefix]').count()).toBe(1);
    expect(await page.locator('[data-key-prefix] td').nth(3).innerText()).toBe('never');
    await shootBoth(page, 'integration-key-created');

    // curl, as the merchant's server would.
    const created = await fetch(`${gateway.url}/api/v2/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${state.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(transactionBody()),
    });
    expect(created.status).toBe(200);
    // Shown once: the list shows its prefix only, and now when it was last used.
    await page.reload();
    await heading(page, 'Integration');
    await expect.poll(() => page.locator('[data-key-prefix] td').nth(3).innerText()).not.toBe('never');
    expect(await page.locator('main').innerText()).not.toContain(state.apiKey);
    expect(state.apiKey.startsWith((await page.locator('[data-key-prefix]').getAttribute('data-key-prefix'))!)).toBe(true);
  });

  it('registers a webhook on a real receiver, receives a payment with its delivery, and resends it', async () => {
    const { page } = state.owner;
    await page.getByLabel('URL').fill(`${receiver.url}/hooks/dakar`);
    await page.getByRole('button', { name: 'Add a webhook' }).click();
    const secret = page.locator('.secret [data-secret]');
    await secret.waitFor();
    receiver.configure('/hooks/dakar', { secret: await secret.innerText() });
    await page.locator('[data-webhook-id]').waitFor();
    await shootBoth(page, 'integration-webhook-created');

    // Two payments arrive (one will be refunded, the other pays the payout).
    state.orderIds = [];
    for (const amount of [10_000, 20_000]) {
      const created = await gateway.rest('POST', '/api/v2/transactions', {
        key: state.apiKey,
        body: transactionBody({ products: [{ name: 'Thiéboudienne', price: amount, quantity: 1 }] }),
      });
      expect(created.status).toBe(200);
      const paid = await payTransaction(gateway.ctx, { kind: 'customer' }, created.body.order_id, { method: 'wave', phone: '+221770000001' });
      expect(paid.outcome).toBe('paid');
      state.orderIds.push(created.body.order_id);
    }
    const received = await eventually(() => receiver.on('/hooks/dakar').length >= 2 && receiver.on('/hooks/dakar'), 15_000, 'two deliveries');
    expect(received.every((delivery) => delivery.signatureValid)).toBe(true);

    await page.getByRole('link', { name: 'Delivery log →' }).click();
    await heading(page, 'Delivery log');
    await expect.poll(() => page.locator('li.delivery[data-status="delivered"]').count(), { timeout: 10_000 }).toBe(2);
    const first = page.locator('li.delivery').first();
    expect(await first.locator('[data-status-code]').first().innerText()).toBe('200');
    await first.getByText('Signed body sent').click();
    const body = await first.locator('pre.body').innerText();
    expect(received.map((delivery) => delivery.raw.toString('utf8'))).toContain(body);
    await shootBoth(page, 'deliveries');

    await first.getByRole('button', { name: 'Resend' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Sent again');
    await eventually(() => receiver.on('/hooks/dakar').length === 3, 15_000, 'the resent delivery');
    await page.getByLabel('Status').selectOption('dropped');
    await expect.poll(() => page.locator('li.delivery').count()).toBe(0);
    await page.getByLabel('Status').selectOption('');
    await expect.poll(() => page.locator('li.delivery').count()).toBe(3);
  });

  it('lists the transactions with the API’s filters, exports them as CSV, and shows one with its timeline', async () => {
    const { page } = state.owner;
    await go(page, 'Transactions');
    await expect.poll(() => page.locator('tr[data-order-id]').count()).toBe(3);
    await page.getByText('Filters').click();
    await page.getByLabel('Status').selectOption('paid');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('tr[data-order-id]').count()).toBe(2);
    expect(page.url()).toContain('status=paid');
    await shootBoth(page, 'transactions');

    // The export of what the list shows, downloaded with the session.
    const href = await page.locator('[data-export]').getAttribute('href');
    expect(href).toBe('/exports/transactions.csv?status=paid');
    const csv = await page.request.get(`${gateway.url}${href}`);
    expect(csv.status()).toBe(200);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines).toHaveLength(3);
    for (const orderId of state.orderIds) expect(lines.some((line) => line.startsWith(orderId))).toBe(true);

    await page.locator(`tr[data-order-id="${state.orderIds[0]}"] a`).click();
    await heading(page, 'Order');
    await page.locator('.timeline').waitFor();
    expect(await page.locator('main').innerText()).toContain('Thiéboudienne');
    expect(await page.locator('.timeline li').count()).toBeGreaterThanOrEqual(3);
    await shootBoth(page, 'transaction-detail');
  });

  it('refunds a payment from its page, after a confirmation', async () => {
    const { page } = state.owner;
    await page.getByRole('button', { name: 'Refund this payment' }).click();
    await expect.poll(() => page.locator('.confirm').innerText()).toContain('Refund 10,000 XOF to the customer?');
    await shootBoth(page, 'refund-confirm');
    await page.locator('.confirm').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Refund sent');
    await expect.poll(() => page.locator('main .card .badge').first().getAttribute('data-status')).toBe('refunded');
    expect(await page.getByRole('button', { name: 'Refund this payment' }).count()).toBe(0);
    const read = await gateway.rest('GET', `/api/v2/transactions/${state.orderIds[0]}`, { key: state.apiKey });
    expect(read.body.transaction_status).toBe('refunded');
  });

  it('sends a payout after a review step, and shows it in the list and on its page', async () => {
    const { page } = state.owner;
    await go(page, 'Payouts');
    await page.getByRole('link', { name: 'New payout' }).click();
    await heading(page, 'New payout');
    await page.getByLabel('Amount').fill('5000');
    await page.getByLabel('Recipient phone').fill('+221770000002');
    await page.getByLabel('Reason').fill('Fournisseur');
    await page.getByRole('button', { name: 'Review' }).click();
    expect(await page.locator('[data-payout-review]').innerText()).toBe(
      'Send 5,000 XOF to +221770000002 with Wave? Your main account is debited by the amount and the fees.',
    );
    await shootBoth(page, 'payout-review');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await heading(page, 'Payouts');
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Payout created');
    expect(await page.locator('main .badge').first().getAttribute('data-status')).toBe('completed');
    await shootBoth(page, 'payout-detail');
    await go(page, 'Payouts');
    await expect.poll(() => page.locator('tr[data-order-id]').count()).toBe(1);
    await shootBoth(page, 'payouts');
  });

  it('shows the balances with their entries, and the chart of the day’s volume', async () => {
    const { page } = state.owner;
    await go(page, 'Balances');
    await expect.poll(() => page.locator('[data-account-entries="main"] tbody tr').count()).toBeGreaterThanOrEqual(4);
    await shootBoth(page, 'balances');
    await go(page, 'Home');
    await page.locator('.chart svg').first().waitFor();
    expect(await page.locator('.chart .bar-volume').count()).toBe(30);
    // The refunded payment is not paid volume (issue 30): the 20,000 XOF one remains.
    expect(await page.locator('.chart').getAttribute('aria-label')).toMatch(/^20,000 XOF paid, [\d,]+ XOF in fees, over 30 days\.$/);
    await shootBoth(page, 'overview');
  });

  it('invites a teammate as a viewer; the owner sees the team and the audit log', async () => {
    const { page } = state.owner;
    await go(page, 'Team');
    await page.getByLabel('Email').fill(VIEWER.email);
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = page.locator('.secret [data-secret]');
    await link.waitFor();
    state.viewerLink = await link.innerText();
    expect(state.viewerLink).toMatch(/\/dashboard\/invitation#/);
    await shootBoth(page, 'team');
    await go(page, 'Audit log');
    await expect.poll(() => page.locator('tr[data-action]').count()).toBeGreaterThanOrEqual(6);
    const actions = await page.locator('tr[data-action]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-action')));
    for (const action of [
      'user.signed_in',
      'user.two_factor_enabled',
      'api_key.created',
      'webhook.created',
      'webhook.redelivered',
      'transaction.refunded',
      'payout.created',
      'member.invited',
    ])
      expect(actions).toContain(action);
    await shootBoth(page, 'audit');
    await go(page, 'Settings');
    await shootBoth(page, 'settings');
  });

  it('the viewer sees no secret and no money button, and the server refuses what the page hides', async () => {
    const { context, page } = await newPhonePage(browser, { locale: 'fr-SN' });
    try {
      const problems = recordProblems(page);
      await acceptInvitationFr(page, state.viewerLink, VIEWER.password);
      await page.goto(url('/sign-in'));
      await page.getByLabel('E-mail').fill(VIEWER.email);
      await page.getByLabel('Mot de passe').fill(VIEWER.password);
      await page.getByRole('button', { name: 'Se connecter' }).click();
      await heading(page, 'Accueil');
      const nav = await page.getByRole('navigation', { name: 'Principal' }).innerText();
      expect(nav).not.toContain('Équipe');
      expect(nav).not.toContain('Journal d’audit');

      await page.goto(url('/integration'));
      await heading(page, 'Intégration');
      await expect.poll(() => page.locator('[data-key-prefix]').count()).toBe(1);
      await page.locator('[data-webhook-id]').waitFor();
      expect(await page.getByRole('button', { name: 'Créer une clé' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Révoquer' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Ajouter un webhook' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Changer le secret' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Supprimer' }).count()).toBe(0);
      expect(await page.locator('main').innerText()).not.toContain(state.apiKey);
      await shot(page, 'viewer-integration-360-fr');

      await page.goto(url(`/transactions/${state.orderIds[1]}`));
      await page.locator('.card .badge').first().waitFor();
      expect(await page.getByRole('button', { name: 'Rembourser ce paiement' }).count()).toBe(0);
      await shot(page, 'viewer-transaction-360-fr');
      await page.goto(url('/payouts'));
      await page.locator('tr[data-order-id]').waitFor();
      expect(await page.getByRole('link', { name: 'Nouveau virement' }).count()).toBe(0);
      await page.goto(url('/team'));
      await heading(page, 'Cette page n’existe pas.');

      // What the page hides, the server refuses: the viewer's own session, with its CSRF token.
      const refusals = await page.evaluate(async (orderId) => {
        const session = await (await fetch('/dashboard/auth/session')).json();
        const run = async (query: string) => {
          const response = await fetch('/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
            body: JSON.stringify({ query }),
          });
          return (await response.json()).errors?.[0]?.extensions?.code ?? 'allowed';
        };
        return [
          await run('mutation { createApiKey(scope: checkout) { key } }'),
          await run(`mutation { refundTransaction(orderId: "${orderId}") { status } }`),
          await run('mutation { createPayout(input: { amount: 1000, selectedPaymentMethod: wave, recipient: { phone: "+221770000003" } }) { status } }'),
        ];
      }, state.orderIds[1]!);
      expect(refusals).toEqual(['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN']);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the owner makes the teammate a developer and requires two-step verification; the teammate must set it up, then may manage keys but not refund', async () => {
    const { page } = state.owner;
    await go(page, 'Team');
    const row = page.locator(`tr[data-member="${VIEWER.email}"]`);
    await row.getByLabel(`Change role: ${VIEWER.email}`).selectOption('developer');
    await expect.poll(() => row.getByLabel(`Change role: ${VIEWER.email}`).inputValue()).toBe('developer');
    await page.getByLabel('Require two-step verification for the whole team').check();
    await expect.poll(() => page.getByLabel('Require two-step verification for the whole team').isChecked()).toBe(true);

    const { context, page: teammate } = await newPhonePage(browser, { locale: 'en-US' });
    // A step that waits in vain says which one, before the test's own time runs out.
    teammate.setDefaultTimeout(8_000);
    page.setDefaultTimeout(8_000);
    try {
      await signIn(teammate, VIEWER.email, VIEWER.password);
      await heading(teammate, 'Set up two-step verification');
      expect(await teammate.getByRole('status').innerText()).toContain('Your team requires two-step verification');
      // Nothing else until it is done: no navigation, and the API refuses the rest.
      expect(await teammate.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
      // (Its secret shown first: each start makes a new one, and the last started is the one kept.)
      await teammate.locator('[data-totp-secret]').waitFor();
      await teammate.goto(url('/transactions'));
      await heading(teammate, 'Set up two-step verification');
      await shot(teammate, 'two-factor-required-360');
      const secret = await teammate.locator('[data-totp-secret]').innerText();
      await teammate.getByLabel('Code').fill(totpCodeAt(secret, new Date()));
      await teammate.getByRole('button', { name: 'Turn on' }).click();
      await heading(teammate, 'Your recovery codes');
      await teammate.getByRole('button', { name: 'Continue' }).click();
      await heading(teammate, 'Home');
      expect(await teammate.locator('.top .badge.role').innerText()).toBe('Developer');

      await go(teammate, 'Integration');
      expect(await teammate.getByRole('button', { name: 'Create a key' }).count()).toBe(1);
      expect(await teammate.getByRole('button', { name: 'Add a webhook' }).count()).toBe(1);
      await teammate.goto(url(`/transactions/${state.orderIds[1]}`));
      await teammate.locator('main .card .badge').first().waitFor();
      expect(await teammate.getByRole('button', { name: 'Refund this payment' }).count()).toBe(0);

      // Removed by the owner: the teammate's session ends at once.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Team', exact: true }).click();
      await row.getByRole('button', { name: 'Remove' }).click();
      await page.locator('.confirm').getByRole('button', { name: 'Confirm' }).click();
      await expect.poll(() => page.locator(`tr[data-member="${VIEWER.email}"]`).count()).toBe(0);
      await teammate.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts', exact: true }).click();
      await heading(teammate, 'Sign in');
      expect(await teammate.getByRole('status').innerText()).toContain('Your session ended');
    } finally {
      await context.close();
    }
  });

  it('the owner sends a test event, rotates the secret, deletes the webhook, revokes the key and completes the business profile', async () => {
    const { page } = state.owner;
    page.setDefaultTimeout(8_000);
    await go(page, 'Integration');
    const hook = page.locator('[data-webhook-id]');
    await hook.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Test event sent');
    const test = await eventually(() => receiver.on('/hooks/dakar').find((delivery) => delivery.headers['x-event-type'] === 'test'), 20_000, 'the test event');
    expect(test.signatureValid).toBe(true);

    await hook.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.locator('.confirm').getByRole('button', { name: 'Confirm' }).click();
    const rotated = await page.locator('.secret [data-secret]').innerText();
    expect(rotated).toMatch(/\S{16,}/);
    receiver.configure('/hooks/dakar', { secret: rotated });
    await hook.getByRole('button', { name: 'Send a test event' }).click();
    await eventually(
      () => receiver.on('/hooks/dakar').filter((delivery) => delivery.headers['x-event-type'] === 'test').length === 2,
      20_000,
      'a test event signed with the new secret',
    );
    expect(receiver.on('/hooks/dakar').at(-1)!.signatureValid).toBe(true);

    await hook.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.confirm').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.locator('[data-webhook-id]').count()).toBe(0);

    await page.locator('[data-key-prefix]').getByRole('button', { name: 'Revoke' }).click();
    await page.locator('.confirm').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.locator('[data-key-prefix] .badge').innerText()).toBe('Revoked');
    const refused = await fetch(`${gateway.url}/api/v2/transactions`, { headers: { authorization: `Bearer ${state.apiKey}` } });
    expect(refused.status).toBe(401);
    await shootBoth(page, 'integration-after-changes');

    await go(page, 'Settings');
    await page.getByLabel('Business sector').fill('Restauration');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toBe('Saved.');
    expect((await gateway.ctx.db.organization.findUniqueOrThrow({ where: { id: state.organizationId } })).businessSector).toBe('Restauration');
  });
});

async function acceptInvitationFr(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await heading(page, 'Choisissez votre mot de passe');
  await page.getByLabel('Nouveau mot de passe').fill(password);
  await page.getByLabel('Répétez le mot de passe').fill(password);
  await shot(page, 'invitation-360-fr');
  await page.getByRole('button', { name: 'Enregistrer mon mot de passe' }).click();
  await heading(page, 'Connexion');
}
