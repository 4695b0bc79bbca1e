/**
 * Issue 30's payment link, whole, in a real browser (headless Chromium), in French and in English:
 * the merchant makes a link in the dashboard (at 1280 px in French, at 360 px in English), a
 * customer on a 360 px phone opens it, gives a name and a number and pays it through the sandbox
 * checkout, the merchant sees the payment on the link's page (count and amount), refunds it from
 * there, and sees the link count it no more. Every page is shot at 360 and 1280 px into
 * test-artifacts/payment-links/ (git-ignored) for a person to look at.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPhonePage, recordOutsideRequests, saveScreenshot, sharedBrowser } from '../support/browser.js';
import { PASSWORD, member } from '../support/dashboard.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

let gateway: TestGateway;
let browser: Browser;
beforeAll(async () => {
  [gateway, browser] = await Promise.all([startGateway(), sharedBrowser()]);
});
afterAll(async () => {
  await gateway?.close();
});

const WORDS = {
  fr: {
    email: 'E-mail',
    password: 'Mot de passe',
    signIn: 'Se connecter',
    nav: 'Liens de paiement',
    newLink: 'Nouveau lien',
    name: 'Nom du lien',
    amount: 'Montant (XOF)',
    moreOptions: 'Plus d’options',
    fees: 'Les frais sont payés par le client',
    create: 'Créer le lien',
    submit: 'Continuer vers le paiement',
    pay: 'Payer',
    paid: 'Paiement reçu',
    refund: 'Rembourser ce paiement',
    confirm: 'Confirmer',
    refunded: 'Remboursé',
    message: 'Bonjour ! Voici le lien pour payer',
  },
  en: {
    email: 'Email',
    password: 'Password',
    signIn: 'Sign in',
    nav: 'Payment links',
    newLink: 'New link',
    name: 'Link name',
    amount: 'Amount (XOF)',
    moreOptions: 'More options',
    fees: 'The customer pays the fees',
    create: 'Create the link',
    submit: 'Continue to payment',
    pay: 'Pay',
    paid: 'Payment received',
    refund: 'Refund this payment',
    confirm: 'Confirm',
    refunded: 'Refunded',
    message: 'Hello! Here is the link to pay',
  },
} as const;
type Lang = keyof typeof WORDS;

/** Both widths of the same page, as a person would check it on a phone and a laptop. */
async function shootBothWidths(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 900 });
    await saveScreenshot(page, 'payment-links', `${name}-${width}`);
    // A page that fits its width: nothing wider than the screen on a phone.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
  }
  if (before) await page.setViewportSize(before);
}

/** Script errors and policy refusals the page reported. */
function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

async function merchantPage(lang: Lang, width: number): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport: { width, height: width === 360 ? 740 : 900 },
    locale: lang === 'fr' ? 'fr-SN' : 'en-GB',
    isMobile: width === 360,
  });
  const page = await context.newPage();
  return { context, page, problems: recordProblems(page) };
}

describe.each([
  ['fr', 1280],
  ['en', 360],
] as const)('a payment link in %s (merchant at %i px, customer on a 360 px phone)', (lang, width) => {
  const w = WORDS[lang];
  const shared = {} as {
    merchant: { context: BrowserContext; page: Page; problems: string[] };
    linkUrl: string;
    linkPath: string;
    orderId: string;
    organizationId: string;
  };

  afterAll(async () => {
    await shared.merchant?.context.close();
  });

  it('the merchant signs in and makes a link in the dashboard: its address, QR code and ready-to-send message', async () => {
    const organization = await gateway.createOrganization({ name: lang === 'fr' ? 'Boutique Awa' : 'Awa Fashion', verified: true });
    shared.organizationId = organization.id;
    const { email } = await member(gateway, organization.id, 'owner');
    shared.merchant = await merchantPage(lang, width);
    const { page } = shared.merchant;
    await page.goto(`${gateway.url}/dashboard/sign-in`);
    await page.getByLabel(w.email).fill(email);
    await page.getByLabel(w.password).fill(PASSWORD);
    await page.getByRole('button', { name: w.signIn }).click();
    await page.locator('nav').getByRole('link', { name: w.nav }).click();
    await page.locator('main h1', { hasText: w.nav }).waitFor();
    await page.getByRole('link', { name: w.newLink }).click();
    await page.getByLabel(w.name).fill(lang === 'fr' ? 'Boubou brodé' : 'Embroidered boubou');
    await page.getByLabel(w.amount).fill('15000');
    await shootBothWidths(page, `${lang}-1-new-link`);
    await page.getByText(w.moreOptions).click();
    // The customer pays the fees: the merchant's balance then holds the whole amount to refund.
    await page.getByLabel(w.fees).check();
    await page.getByRole('button', { name: w.create }).click();
    const url = page.locator('[data-link-url]');
    await url.waitFor();
    shared.linkUrl = (await url.textContent())!;
    shared.linkPath = new URL(page.url()).pathname;
    expect(shared.linkUrl).toMatch(new RegExp(`^${gateway.checkoutUrl}/pay/[0-9a-f-]{36}$`));
    await expect(page.locator('[data-link-message]').textContent()).resolves.toContain(w.message);
    await expect(page.locator('[data-link-message]').textContent()).resolves.toContain(shared.linkUrl);
    expect(await page.locator('svg.link-qr path').getAttribute('d')).toMatch(/^M\d+ \d+h\d+/);
    // The downloadable QR code is the gateway's own SVG of the same address.
    const qrHref = await page.locator('[data-qr-download]').getAttribute('href');
    const qr = await fetch(qrHref!);
    expect(qr.headers.get('content-type')).toContain('image/svg+xml');
    await shootBothWidths(page, `${lang}-2-link-created`);
    expect(shared.merchant.problems).toEqual([]);
  });

  it('a customer on a phone opens the link, gives a name and number, and pays it through the sandbox checkout', async () => {
    const { context, page } = await newPhonePage(browser, { locale: lang === 'fr' ? 'fr-SN' : 'en-GB', javaScriptEnabled: false });
    try {
      const outside = recordOutsideRequests(page, gateway.checkoutUrl);
      await page.goto(shared.linkUrl);
      await shootBothWidths(page, `${lang}-3-customer-link-page`);
      await page.locator('#first_name').fill('Fatou');
      await page.locator('#last_name').fill('Ndiaye');
      await page.locator('#phone').fill('+221 77 555 12 34');
      await page.getByRole('button', { name: w.submit }).click();
      await page.waitForURL(/\/checkout\/[0-9a-f-]{36}$/);
      shared.orderId = page.url().split('/').pop()!;
      await shootBothWidths(page, `${lang}-4-customer-checkout`);
      await page.locator('input[name=method][value=wave]').check();
      await page.locator('#phone').fill('+221 77 555 12 34');
      await page.getByRole('button', { name: w.pay, exact: true }).click();
      await page.locator('[data-outcome="paid"]').waitFor();
      await expect(page.locator('h2').first().textContent()).resolves.toBe(w.paid);
      await shootBothWidths(page, `${lang}-5-customer-paid`);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
    const transaction = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: shared.orderId } });
    expect(transaction).toMatchObject({ status: 'paid', customerFirstName: 'Fatou', paymentLinkId: shared.linkUrl.split('/').pop() });
  });

  it('the merchant sees the payment on the link’s page, refunds it, and the link counts it no more', async () => {
    const { page, problems } = shared.merchant;
    await page.goto(`${gateway.url}/dashboard${shared.linkPath.replace(/^\/dashboard/, '')}`);
    await page.locator('[data-paid-count]').waitFor();
    expect(await page.locator('[data-paid-count]').textContent()).toBe('1');
    expect(await page.locator('[data-paid-amount] [data-amount]').getAttribute('data-amount')).toBe('15000');
    await expect(page.locator('main table').textContent()).resolves.toContain('Fatou Ndiaye');
    await shootBothWidths(page, `${lang}-6-link-paid`);

    await page.locator('main table').getByRole('link', { name: 'Fatou Ndiaye' }).click();
    await page.getByRole('button', { name: w.refund }).click();
    await page.getByRole('button', { name: w.confirm }).click();
    await page.locator('.notice').waitFor();
    await shootBothWidths(page, `${lang}-7-refunded`);
    await page.goBack();
    await page.reload();
    await page.locator('[data-paid-count]').waitFor();
    expect(await page.locator('[data-paid-count]').textContent()).toBe('0');
    await expect(page.locator('main table').textContent()).resolves.toContain(w.refunded);
    await shootBothWidths(page, `${lang}-8-link-after-refund`);
    expect((await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: shared.orderId } })).status).toBe('refunded');
    expect(problems).toEqual([]);
  });
});
