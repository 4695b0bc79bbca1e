/**
 * The webhook form when the gateway refuses a private or loopback address (it never sends into its
 * own network unless WEBHOOK_ALLOW_PRIVATE_URLS): the page says how to receive events on one's own
 * machine instead (`gateway listen ... --forward-to` the address typed, or a development gateway
 * that allows such addresses), in English and French, on a 360 px phone and at 1280 px, in a real
 * browser. Screenshots in test-artifacts/dashboard/ (git-ignored).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES, type Lang } from '../../src/dashboard/client/i18n.js';
import { newPhonePage, saveScreenshot, sharedBrowser } from '../support/browser.js';
import { signedIn } from '../support/dashboard.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

let gateway: TestGateway;
let browser: Browser;
let organizationId: string;
let cookie: string;
beforeAll(async () => {
  // The default rules: private addresses refused.
  [gateway, browser] = await Promise.all([startGateway(), sharedBrowser()]);
  organizationId = (await gateway.createOrganization({ name: 'Boutique en local' })).id;
  cookie = (await signedIn(gateway, organizationId, 'owner')).cookie!;
});
afterAll(async () => {
  await gateway?.close();
});

/** The integration page of the signed-in owner, on a phone in `lang`. */
async function integrationPage(lang: Lang): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context, page } = await newPhonePage(browser, { locale: lang === 'fr' ? 'fr-SN' : 'en-GB' });
  await context.addCookies([{ name: 'gateway_session', value: cookie, url: gateway.url, httpOnly: true, sameSite: 'Strict' }]);
  await page.goto(`${gateway.url}/dashboard/integration`);
  await page.locator('main h1', { hasText: MESSAGES[lang].integration }).waitFor();
  return { page, close: () => context.close() };
}

/** Whitespace as one space (the text wraps). */
const flat = (text: string) => text.replace(/\s+/g, ' ');

/** Nothing wider than the phone's screen, then the same page at 1280 px. */
async function shootBoth(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, 'dashboard', `${name}-360`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} fits 360 px`).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 800 });
  await saveScreenshot(page, 'dashboard', `${name}-1280`);
  await page.setViewportSize({ width: 360, height: 740 });
}

describe('registering a local address as a webhook', () => {
  it.each(['en', 'fr'] as const)('explains how to test on one’s machine (%s), naming the organisation and the address typed', async (lang) => {
    const t = MESSAGES[lang];
    const { page, close } = await integrationPage(lang);
    try {
      await page.getByLabel(t.url).fill('http://127.0.0.1:4242/webhooks');
      await page.getByRole('button', { name: t.addWebhook }).click();
      const hint = page.locator('[data-hint="local-webhooks"]');
      await hint.waitFor();
      expect(await page.getByRole('alert').innerText()).toMatch(/loopback, private or link-local/);
      expect(await hint.locator('[data-command]').innerText()).toBe(`gateway listen --org ${organizationId} --forward-to http://127.0.0.1:4242/webhooks`);
      const text = await hint.innerText();
      expect(flat(text)).toContain(`${t.localWebhooksTitle} ${t.localWebhooksListen}`);
      expect(flat(text)).toContain(`${t.localWebhooksAllow[0]} WEBHOOK_ALLOW_PRIVATE_URLS=true ${t.localWebhooksAllow[1]}`);
      await shootBoth(page, `integration-local-webhooks-${lang}`);

      // Another refusal is not this one: no hint.
      await page.getByLabel(t.url).fill('ftp://files.example.sn/hooks');
      await page.getByRole('button', { name: t.addWebhook }).click();
      await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/Invalid webhook URL/);
      expect(await hint.count()).toBe(0);
    } finally {
      await close();
    }
    expect(await gateway.ctx.db.webhook.count({ where: { organizationId } })).toBe(0);
  });
});
