/**
 * The dashboard's first page in a real browser (headless Chromium), before anyone signs in: the
 * sign-in form on a 360 px phone and a 1280 px desktop, in French and English, with nothing
 * refused by the Content-Security-Policy, no request elsewhere, labelled fields, a visible focus,
 * and nothing fetched but its shell, bundle, stylesheet and session check (how fast it shows from
 * an empty cache is measured by the bench). Screenshots in test-artifacts/dashboard/
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newPhonePage, recordOutsideRequests, saveScreenshot, useGatewayWithBrowser } from '../support/browser.js';

const session = useGatewayWithBrowser();
const shot = (page: Page, name: string) => saveScreenshot(page, 'dashboard', name);

async function newDesktopPage(browser: Browser, locale = 'en-GB') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  return { context, page: await context.newPage() };
}

/**
 * What went wrong on the page: script errors, anything the policy refused (Chromium says so in the
 * console), and failed requests but the session check's 401 (nobody is signed in yet).
 */
function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    const expected = response.status() === 401 && response.url().endsWith('/dashboard/auth/session');
    if (response.status() >= 400 && !expected) problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

describe('the sign-in page', () => {
  it('renders in French on a 360 px phone, fits the screen, and breaks no rule of the policy', async () => {
    const { context, page } = await newPhonePage(session.browser, { locale: 'fr-SN' });
    try {
      const problems = recordProblems(page);
      const outside = recordOutsideRequests(page, session.gateway.url);
      await page.goto(`${session.gateway.url}/dashboard`);
      await page.locator('main h1').waitFor();
      expect(await page.locator('h1').innerText()).toBe('Connexion');
      expect(page.url()).toBe(`${session.gateway.url}/dashboard/sign-in`);
      expect(await page.locator('html').getAttribute('lang')).toBe('fr');
      expect(await page.title()).toBe('Connexion · Tableau de bord');
      // Every field has a label that names it.
      await expect.poll(() => page.getByLabel('E-mail').getAttribute('type')).toBe('email');
      expect(await page.getByLabel('Mot de passe').getAttribute('type')).toBe('password');
      expect(await page.getByLabel('Mot de passe').getAttribute('autocomplete')).toBe('current-password');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(page, 'sign-in-360-fr');
      expect(problems).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the first page from an empty cache asking for nothing but its shell, bundle, stylesheet and session check', async () => {
    // How fast it shows (under a second) is the bench's to measure, against the same bytes from a
    // bare server in the same run (bench/dashboardFirstPageScenario.ts): this file shares the
    // machine with the rest of the suite. What the page asks for is what could make it slower.
    const { context, page } = await newPhonePage(session.browser, { locale: 'fr-SN' });
    try {
      const asked: string[] = [];
      page.on('request', (request) => asked.push(new URL(request.url()).pathname.replace(/-[A-Z0-9]+\.(js|css)$/, '-HASH.$1')));
      await page.goto(`${session.gateway.url}/dashboard`);
      await page.locator('main h1').waitFor();
      expect(asked.sort()).toEqual(['/dashboard', '/dashboard/assets/main-HASH.css', '/dashboard/assets/main-HASH.js', '/dashboard/auth/session'].sort());
    } finally {
      await context.close();
    }
  });

  it('renders in English on a 1280 px desktop; the switch changes the language and is remembered', async () => {
    const { context, page } = await newDesktopPage(session.browser, 'en-GB');
    try {
      const problems = recordProblems(page);
      await page.goto(`${session.gateway.url}/dashboard/transactions`);
      await page.locator('h1', { hasText: 'Sign in' }).waitFor();
      expect(page.url()).toBe(`${session.gateway.url}/dashboard/sign-in`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      await shot(page, 'sign-in-1280-en');
      await page.getByRole('button', { name: 'Lire en français' }).click();
      await page.locator('h1', { hasText: 'Connexion' }).waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe('fr');
      await page.reload();
      await page.locator('h1', { hasText: 'Connexion' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('is usable from the keyboard alone, with a visible focus ring', async () => {
    const { context, page } = await newDesktopPage(session.browser);
    try {
      await page.goto(`${session.gateway.url}/dashboard/sign-in`);
      await page.locator('h1', { hasText: 'Sign in' }).waitFor();
      // Tab from the top: the skip link, the language switch, then the fields and the button.
      const focused: string[] = [];
      for (let index = 0; index < 5; index++) {
        await page.keyboard.press('Tab');
        focused.push(await page.evaluate(() => (document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent ?? '').trim()));
      }
      expect(focused).toEqual(['Skip to content', 'Français', 'email', 'password', 'Sign in']);
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      expect(outline).toBe('solid');
      await page.keyboard.press('Shift+Tab');
      await shot(page, 'sign-in-focus-1280-en');
    } finally {
      await context.close();
    }
  });

  it('says that an invitation link without its token is incomplete', async () => {
    const { context, page } = await newPhonePage(session.browser, { locale: 'en-US' });
    try {
      await page.goto(`${session.gateway.url}/dashboard/invitation`);
      await expect.poll(() => page.getByRole('alert').innerText()).toContain('This link is incomplete');
      await shot(page, 'invitation-missing-360-en');
    } finally {
      await context.close();
    }
  });
});
