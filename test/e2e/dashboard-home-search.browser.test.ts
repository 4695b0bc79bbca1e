/**
 * Issue 30 in a real browser (headless Chromium), at 360 and 1280 px, in English and French: the
 * home page shows payments made through the sandbox (a refunded one not counted as paid volume),
 * what needs attention (payouts not enabled, a webhook receiver that is down) with links; the
 * search of every page finds a payment by the customer's phone written four ways; the list shows
 * the customer and the method; payouts not enabled are said before any form; deliveries to a
 * receiver that is down show "waiting" with the next attempt, and "Resend failed" retries them
 * (it answered "0 sent"); the two-step secret survives a reload; audit actions, actors and ledger
 * kinds are translated, French words stay whole at 360 px, `?lang=` switches the whole page;
 * scopes and roles are explained where chosen; the phone's navigation reaches every page; the
 * search finds a payment link and its payment by the customer's phone, the home page shows a
 * payment made through a link, and the audit log names the link's creation and deactivation.
 * Screenshots in test-artifacts/dashboard-home/ (git-ignored). The steps share one merchant.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payTransaction } from '../../src/domain/operations.js';
import { totpCodeAt } from '../../src/domain/users/secondFactor.js';
import { startWebhookDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.js';
import { newPhonePage, saveScreenshot, sharedBrowser } from '../support/browser.js';
import { DashboardBrowser, PASSWORD, member } from '../support/dashboard.js';
import { fillLink } from '../support/paymentLinks.js';
import { startGateway, transactionBody, type TestGateway } from '../support/gateway.js';

let gateway: TestGateway;
let browser: Browser;
let dispatcher: Dispatcher;
/** A receiver that is down: every request is answered 503 (as a crashed app behind a proxy). */
let downReceiver: Server;
let downUrl: string;

beforeAll(async () => {
  downReceiver = createServer((_request, response) => {
    response.statusCode = 503;
    response.end('down');
  });
  await new Promise<void>((resolve) => downReceiver.listen(0, '127.0.0.1', resolve));
  downUrl = `http://127.0.0.1:${(downReceiver.address() as AddressInfo).port}/hooks`;
  // Retries far apart: a failed delivery waits (pending) for its next attempt during the test.
  [gateway, browser] = await Promise.all([
    startGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 600_000, maxRetries: 3, timeoutMs: 2_000 } }),
    sharedBrowser(),
  ]);
  dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20 });
});
afterAll(async () => {
  await state.phone?.context.close();
  await dispatcher?.stop();
  await gateway?.close();
  await new Promise((resolve) => downReceiver?.close(resolve));
});

const CUSTOMER_PHONE = '+221771234567';
const state = {} as {
  organizationId: string;
  email: string;
  key: string;
  paidOrderIds: string[];
  refundedOrderId: string;
  otherOrderId: string;
  waiting: number;
  phone: { context: BrowserContext; page: Page };
};

const url = (path: string) => `${gateway.url}/dashboard${path}`;
const shot = (page: Page, name: string) => saveScreenshot(page, 'dashboard-home', name);

async function heading(page: Page, text: string | RegExp): Promise<void> {
  await page.locator('main h1', { hasText: text }).waitFor();
}

/** A screenshot at 360 px (nothing wider than the screen) and at 1280 px. */
async function bothWidths(page: Page, name: string): Promise<void> {
  await shot(page, `${name}-360`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} fits 360 px`).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shot(page, `${name}-1280`);
  await page.setViewportSize({ width: 360, height: 740 });
}

/** A paid sandbox payment (the checkout's own path: payTransaction with the sandbox wallet). */
async function paidPayment(amount: number, customer: Record<string, string>): Promise<string> {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key: state.key,
    body: transactionBody({ products: [{ name: 'Thiakry', price: amount, quantity: 1 }], customer }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const paid = await payTransaction(gateway.ctx, { kind: 'customer' }, created.body.order_id, { method: 'wave', phone: customer.phone ?? '+221700000009' });
  expect(paid.outcome).toBe('paid');
  return created.body.order_id;
}

/** Every word of the page's stacked table cells sits on one line (none split a letter or two per line). */
async function splitWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const split: string[] = [];
    const walker = document.createTreeWalker(document.querySelector('main table')!, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/[\p{L}’']{2,24}/gu)) {
        const range = document.createRange();
        range.setStart(node, match.index!);
        range.setEnd(node, match.index! + match[0].length);
        const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        if (lines.size > 1) split.push(match[0]);
      }
    }
    return split;
  });
}

describe('the dashboard’s home, search and the walk’s findings (issue 30)', () => {
  it('sets up a merchant with sandbox payments (one refunded) and a webhook whose receiver is down', async () => {
    const organization = await gateway.createOrganization({ name: 'Boutique Ziguinchor', verified: true });
    state.organizationId = organization.id;
    state.key = await gateway.createKey(organization.id, 'checkout');
    state.email = (await member(gateway, organization.id, 'owner')).email;
    const api = new DashboardBrowser(gateway);
    expect((await api.signIn(state.email)).body).toMatchObject({ next: 'done' });
    await api.data('mutation($url: String!) { createWebhook(url: $url) { webhook { id } } }', { url: downUrl });

    state.paidOrderIds = [
      await paidPayment(12_500, { first_name: 'Awa', last_name: 'Diop', phone: CUSTOMER_PHONE }),
      await paidPayment(7_000, { first_name: 'Moussa', last_name: 'Sarr', phone: '+221781112233' }),
    ];
    state.otherOrderId = state.paidOrderIds[1]!;
    state.refundedOrderId = await paidPayment(40_000, { first_name: 'Fatou', last_name: 'Ndiaye', phone: '+221761234567' });
    const refunded = await gateway.rest('GET', `/api/v2/refund/${state.refundedOrderId}`, { key: state.key });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);

    // Each payment's delivery: its first attempt fails (503) and it waits 10 minutes for the next.
    const mine = { webhook: { organizationId: organization.id } };
    await expect
      .poll(() => gateway.ctx.db.webhookDelivery.count({ where: { ...mine, status: 'pending', attempts: { some: {} } } }), { timeout: 15_000 })
      .toBe(3);
    state.waiting = 3;
  });

  it('home (English, phone): paid today without the refunded payment, what needs attention with links, recent activity, a readable chart', async () => {
    state.phone = await newPhonePage(browser, { locale: 'en-US' });
    const { page } = state.phone;
    await page.goto(url('/sign-in'));
    await page.getByLabel('Email').fill(state.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Home');
    const today = page.locator('[data-paid-volume="today"]');
    await expect.poll(() => today.innerText()).toContain('19,500 XOF');
    expect(await today.innerText()).toContain('2 payments');
    expect(await page.locator('[data-paid-volume="month"]').innerText()).toContain('19,500 XOF');

    const attention = page.locator('.attention');
    expect(await attention.locator('[data-attention="capability-payouts"]').innerText()).toContain(
      'Payouts: not enabled for your organisation. Ask the gateway’s operator',
    );
    const retrying = attention.locator('[data-attention="retrying-deliveries"] a');
    expect(await retrying.innerText()).toMatch(/^3 webhook deliveries are waiting to be retried/);
    expect(await retrying.getAttribute('href')).toBe('/dashboard/deliveries?status=pending');
    // Recent activity: each payment a link to its page, with its customer.
    const recent = page.locator(`[data-recent-transaction="${state.paidOrderIds[0]}"]`);
    expect(await recent.innerText()).toContain('Awa Diop · +221771234567');
    expect(await recent.locator('a').getAttribute('href')).toBe(`/dashboard/transactions/${state.paidOrderIds[0]}`);

    // The chart: two panels (volume, fees) on their own labelled XOF axes, the refund not counted.
    await page.locator('.chart [data-chart="volume"] svg').waitFor();
    expect(await page.locator('.chart').getAttribute('aria-label')).toMatch(/^19,500 XOF paid, [\d,]+ XOF in fees, over 30 days\.$/);
    expect(await page.locator('.chart [data-chart="volume"] .bar-volume').count()).toBe(30);
    expect(await page.locator('.chart [data-chart="fees"] .bar-fees').count()).toBe(30);
    expect(await page.locator('.chart [data-chart="volume"] .chart-title').innerText()).toBe('Paid volume (XOF)');
    expect(await page.locator('.chart [data-chart="fees"] .chart-title').innerText()).toBe('Fees (XOF)');
    const volumeTicks = await page.locator('.chart [data-chart="volume"] text.axis-label').allTextContents();
    expect(volumeTicks).toEqual(expect.arrayContaining(['0', '20K', '10K']));

    // Every page of the navigation is on the phone's screen, payment links among them.
    const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    expect(await links.count()).toBe(9);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payment links' }).count()).toBe(1);
    for (const box of await links.evaluateAll((anchors) => anchors.map((anchor) => anchor.getBoundingClientRect().toJSON())))
      expect(box.right, 'a navigation entry off screen').toBeLessThanOrEqual(360);
    await bothWidths(page, 'home-en');
  });

  it('home in French through ?lang=fr: the whole page switches', async () => {
    const { page } = state.phone;
    await page.goto(url('/?lang=fr'));
    await heading(page, 'Accueil');
    await expect.poll(() => page.locator('[data-paid-volume="today"]').innerText()).toMatch(/19\s500 XOF/);
    const text = await page.locator('body').innerText();
    for (const english of ['Home', 'Paid today', 'Needs attention', 'Recent payments', 'Search', 'Settings']) expect(text).not.toContain(english);
    expect(text).toContain('Virements : non activé pour votre organisation');
    expect(await page.locator('.chart [data-chart="volume"] .chart-title').innerText()).toBe('Volume encaissé (XOF)');
    await bothWidths(page, 'home-fr');
  });

  it('search from any page finds the payment by the customer’s phone written four ways; the list shows customer and method', async () => {
    const { page } = state.phone;
    await page.goto(url('/balances?lang=en'));
    await heading(page, 'Balances');
    for (const writing of ['+221 77 123 45 67', '221771234567', '771234567', '77 123 45 67']) {
      await page.getByLabel('Search payments, payouts and payment links').fill(writing);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await heading(page, `Results for “${writing}”`);
      const found = page.locator('[data-found="transactions"] tr[data-order-id]');
      await expect
        .poll(() => found.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-order-id'))), { message: writing })
        .toEqual([state.paidOrderIds[0]]);
    }
    expect(await page.locator('[data-found="transactions"] tbody').innerText()).toContain('Awa Diop · +221771234567');
    await bothWidths(page, 'search-phone');
    // By order id, and nothing for a stranger's number.
    await page.getByLabel('Search payments, payouts and payment links').fill(state.otherOrderId);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('[data-found="transactions"] tr[data-order-id]').getAttribute('data-order-id')).toBe(state.otherOrderId);
    await page.getByLabel('Search payments, payouts and payment links').fill('+221 70 000 00 00');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('[data-no-results]').waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Transactions', exact: true }).click();
    await heading(page, 'Transactions');
    const row = page.locator(`tr[data-order-id="${state.paidOrderIds[0]}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('Awa Diop · +221771234567');
    expect(await row.innerText()).toContain('Wave');
    await bothWidths(page, 'transactions-customer');
  });

  it('payouts not enabled: said before any form, with what to do', async () => {
    const { page } = state.phone;
    await page.goto(url('/payouts'));
    await heading(page, 'Payouts');
    await page.locator('[data-capability-off="payouts"]').waitFor();
    expect(await page.getByRole('link', { name: 'New payout' }).count()).toBe(0);
    await page.goto(url('/payouts/new'));
    await heading(page, 'New payout');
    expect(await page.locator('[data-capability-off="payouts"]').innerText()).toBe(
      'Payouts: not enabled for your organisation. Ask the gateway’s operator to enable it.',
    );
    expect(await page.getByLabel('Amount').count(), 'no form to fill').toBe(0);
    await bothWidths(page, 'payout-not-enabled');
  });

  it('deliveries to a receiver that is down: waiting with the next attempt; Resend failed retries them now and the list refreshes', async () => {
    const { page } = state.phone;
    await page.goto(url('/deliveries'));
    await heading(page, 'Delivery log');
    const waiting = page.locator('li.delivery [data-delivery-state="waiting"]');
    await expect.poll(() => waiting.count()).toBe(state.waiting);
    expect(await waiting.first().innerText()).toBe('Waiting to retry');
    const next = page.locator('li.delivery [data-next-attempt]').first();
    const nextAt = Date.parse((await next.getAttribute('data-next-attempt'))!);
    expect(nextAt).toBeGreaterThan(Date.now() + 60_000);
    expect((await next.innerText()).trim()).toMatch(/^Next attempt: /);
    await bothWidths(page, 'deliveries-waiting');

    await page.getByRole('button', { name: 'Resend failed' }).click();
    await expect.poll(() => page.locator('.notice[role="status"]').innerText()).toBe(`${state.waiting} deliveries sent again.`);
    // Retried at once (the receiver is still down: a second failed attempt each), and the list
    // the page reloaded after the resend shows them.
    await expect
      .poll(() => gateway.ctx.db.webhookAttempt.count({ where: { number: 2, delivery: { webhook: { organizationId: state.organizationId } } } }), {
        timeout: 15_000,
      })
      .toBe(state.waiting);
    await page.reload();
    await expect.poll(() => page.locator('li.delivery tr[data-attempt="2"]').count(), { timeout: 10_000 }).toBe(state.waiting);
    await bothWidths(page, 'deliveries-retried');
  });

  it('two-step set-up: the secret survives a reload and a code from the first one is accepted; a renewal is said', async () => {
    const { page } = state.phone;
    await page.goto(url('/two-factor'));
    await heading(page, 'Set up two-step verification');
    const secret = page.locator('[data-totp-secret]');
    const first = await secret.innerText();
    expect(await page.locator('[data-secret-kept]').innerText()).toContain('stays the same');
    await page.reload();
    await heading(page, 'Set up two-step verification');
    expect(await secret.innerText()).toBe(first);
    await bothWidths(page, 'two-factor-kept');
    // Asked for: a new secret, and the page says the old one is gone.
    await page.getByRole('button', { name: 'Make a new secret' }).click();
    await expect.poll(() => secret.innerText()).not.toBe(first);
    const renewed = await secret.innerText();
    expect(await page.locator('.notice[role="status"]').innerText()).toBe(
      'A new secret was made: scan this QR code again. Codes from the previous one no longer work.',
    );
    await bothWidths(page, 'two-factor-renewed');
    await page.reload();
    await heading(page, 'Set up two-step verification');
    expect(await secret.innerText()).toBe(renewed);
    await page.getByLabel('Code').fill(totpCodeAt(first, new Date()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.locator('main [role="alert"]').waitFor();
    await page.getByLabel('Code').fill(totpCodeAt(renewed, new Date()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await heading(page, 'Your recovery codes');

    // Another member, through the API the page uses: the first secret's code accepted after "reloads".
    const other = await member(gateway, state.organizationId, 'viewer');
    const api = new DashboardBrowser(gateway);
    await api.signIn(other.email);
    const start = 'mutation($renew: Boolean) { startTwoFactorEnrolment(renew: $renew) { secret renewed } }';
    const a = (await api.data(start)).startTwoFactorEnrolment;
    expect(a.renewed).toBe(false);
    expect((await api.data(start)).startTwoFactorEnrolment).toEqual({ secret: a.secret, renewed: false });
    expect((await api.data(start)).startTwoFactorEnrolment).toEqual({ secret: a.secret, renewed: false });
    const confirmed = await api.data('mutation($code: String!) { confirmTwoFactorEnrolment(code: $code) }', { code: totpCodeAt(a.secret, new Date()) });
    expect(confirmed.confirmTwoFactorEnrolment).toHaveLength(10);
  });

  it('French audit log at 360 px: actions, actors and details translated, every word whole', async () => {
    const { page } = state.phone;
    await page.goto(url('/audit?lang=fr'));
    await heading(page, 'Journal d’audit');
    await page.locator('tr[data-action]').first().waitFor();
    const text = await page.locator('main').innerText();
    expect(text).toContain('Connexion');
    expect(text).toContain('Membre invité');
    expect(text).toContain('opérateur de la passerelle (administrateur)');
    for (const code of ['user.signed_in', 'member.invited', 'operator (admin)', 'webhook.created']) expect(text).not.toContain(code);
    // Coded detail values too: the second factor used, a role, a resend's webhook and time.
    expect(text).toContain('Second facteur\naucun');
    expect(text).toContain('Rôle\nLecture seule');
    expect(text).toContain('Webhook\ntous les webhooks');
    expect(text).not.toMatch(/\bnone\b|\bnull\b|\bretried\b/);
    expect(await splitWords(page)).toEqual([]);
    await bothWidths(page, 'audit-fr');

    await page.goto(url('/balances?lang=fr'));
    await page.locator('[data-account-entries="main"] tbody tr').first().waitFor();
    // The kind column (the description is the stored memo: the provider's reference, as recorded).
    const kinds = await page.locator('[data-account-entries="main"] tbody tr td:nth-child(2)').allInnerTexts();
    expect(new Set(kinds)).toEqual(new Set(['Paiement', 'Remboursement']));
    await bothWidths(page, 'balances-fr');
  });

  it('every scope and role is explained where it is chosen', async () => {
    const { page } = state.phone;
    await page.goto(url('/integration?lang=en'));
    await heading(page, 'Integration');
    expect(await page.locator('[data-scope-help="checkout"]').innerText()).toContain('Creates, reads, lists and cancels payments');
    await page.getByLabel('Scope').selectOption('payout');
    expect(await page.locator('[data-scope-help="payout"]').innerText()).toContain('Sends money to wallets');
    await page.getByText('What each scope allows').click();
    await bothWidths(page, 'scopes-en');
    await page.goto(url('/team?lang=fr'));
    await heading(page, 'Équipe');
    expect(await page.locator('[data-role-help="viewer"]').innerText()).toBe('Consultation seule : aucun secret, aucun mouvement d’argent.');
    await page.getByText('Ce que chaque rôle permet').click();
    await bothWidths(page, 'roles-fr');
  });

  it('payment links: the search finds a link and its payment by the customer’s phone (French, 360 px; English, 1280 px); the home shows the payment through its link; the audit log names it', async () => {
    // A seller of the team (the owner turned two-step verification on above).
    const seller = await member(gateway, state.organizationId, 'operations');
    const api = new DashboardBrowser(gateway);
    await api.signIn(seller.email);
    const made = (await api.data('mutation { createPaymentLink(input: { name: "Boubou brodé", amount: 15000 }) { id url } }')).createPaymentLink;
    const filled = await fillLink(made.url, { first_name: 'Coumba', last_name: 'Faye', phone: '+221765554433' });
    const orderId = filled.location!.split('/').pop()!;
    const paid = await payTransaction(gateway.ctx, { kind: 'customer' }, orderId, { method: 'wave', phone: '+221765554433' });
    expect(paid.outcome).toBe('paid');
    const other = (await api.data('mutation { createPaymentLink(input: { name: "Acompte mariage", amount: 50000 }) { id } }')).createPaymentLink;
    await api.data('mutation($id: ID!) { deactivatePaymentLink(id: $id) { status } }', { id: other.id });

    const { page } = state.phone;
    await page.goto(url('/links?lang=fr'));
    await heading(page, 'Liens de paiement');
    // French, 360 px: the customer's number written as a person says it.
    await page.getByLabel('Rechercher paiements, virements et liens de paiement').fill('76 555 44 33');
    await page.getByRole('button', { name: 'Rechercher', exact: true }).click();
    await heading(page, 'Résultats pour « 76 555 44 33 »');
    const foundLinks = page.locator('[data-found="links"] tr[data-link-id]');
    await expect.poll(() => foundLinks.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-link-id')))).toEqual([made.id]);
    expect(await page.locator('[data-found="links"] h2').innerText()).toBe('Liens de paiement (1)');
    expect(await foundLinks.innerText()).toContain('Boubou brodé');
    expect(await foundLinks.innerText()).toContain('Actif');
    expect(await page.locator('[data-found="transactions"] tr[data-order-id]').getAttribute('data-order-id')).toBe(orderId);
    expect(await foundLinks.locator('a').getAttribute('href')).toBe(`/dashboard/links/${made.id}`);
    await shot(page, 'search-link-phone-fr-360');
    expect(await page.evaluate(() => document.documentElement.scrollWidth), 'fits 360 px').toBeLessThanOrEqual(360);

    // English, 1280 px: by the link's name, and by its payment's order id.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(url('/?lang=en'));
    await heading(page, 'Home');
    // The home's recent payments: the link's payment says it came through the link, and leads to it.
    const through = page.locator(`[data-recent-transaction="${orderId}"] [data-through-link]`);
    await through.waitFor();
    expect(await through.innerText()).toBe('through a payment link');
    expect(await through.getAttribute('href')).toBe(`/dashboard/links/${made.id}`);
    await shot(page, 'home-link-payment-en-1280');
    for (const [text, expected] of [
      ['boubou', [made.id]],
      [orderId, [made.id]],
      ['+221 76 555 44 33', [made.id]],
      ['mariage', [other.id]],
    ] as const) {
      await page.getByLabel('Search payments, payouts and payment links').fill(text);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await heading(page, `Results for “${text}”`);
      await expect.poll(() => foundLinks.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-link-id'))), { message: text }).toEqual(expected);
    }
    expect(await foundLinks.innerText()).toContain('Deactivated');
    await page.getByLabel('Search payments, payouts and payment links').fill('+221 76 555 44 33');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('[data-found="links"] h2').innerText()).toBe('Payment links (1)');
    await shot(page, 'search-link-phone-en-1280');

    // The audit log, in both languages: the link's creation and its deactivation by the owner.
    await page.goto(url('/audit?lang=en'));
    await heading(page, 'Audit log');
    await page.locator('tr[data-action]').first().waitFor();
    const english = await page.locator('main').innerText();
    expect(english).toContain('Payment link created');
    expect(english).toContain('Payment link deactivated');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(url('/audit?lang=fr'));
    await heading(page, 'Journal d’audit');
    await page.locator('tr[data-action]').first().waitFor();
    const french = await page.locator('main').innerText();
    expect(french).toContain('Lien de paiement créé');
    expect(french).toContain('Lien de paiement désactivé');
    expect(french).not.toContain('payment_link.');
    expect(french).toContain('Un seul paiement\nnon');
    expect(french).not.toContain('singleUse');
    expect(await splitWords(page)).toEqual([]);
    await shot(page, 'audit-links-fr-360');
  });
});
