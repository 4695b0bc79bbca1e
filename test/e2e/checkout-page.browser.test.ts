/**
 * The page checkout_url sends a customer to, in a real browser (headless Chromium) on a 360 px
 * phone screen: paying, being redirected, and every state the page can show. A screenshot of
 * each state is kept in test-artifacts/checkout/. The HTTP rules behind the form are proven
 * without a browser in checkout-form.test.ts; these tests prove a browser really gets them.
 */
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSwitch } from '../../src/domain/organizations/setSwitch.js';
import { newPhonePage, recordOutsideRequests, saveScreenshot, useGatewayWithBrowser } from '../support/browser.js';
import { transactionBody } from '../support/gateway.js';

const session = useGatewayWithBrowser();
const shot = (page: Page, name: string) => saveScreenshot(page, 'checkout', name);

/** A merchant's shop on another origin: answers every path with a page naming it. */
let shop: { server: Server; url: string };
beforeAll(async () => {
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><title>Shop</title><h1>Shop page ${request.url?.split('?')[0]}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  shop = { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
});
afterAll(() => new Promise<void>((resolve) => (shop?.server ? shop.server.close(() => resolve()) : resolve())));

async function newTransaction(body: Record<string, unknown> = {}, merchantName = 'Boutique Dakar') {
  const { key } = await session.gateway.merchant({ name: merchantName });
  const created = await session.gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({ success_url: undefined, error_url: undefined, ...body }),
  });
  expect(created.status).toBe(200);
  const orderId: string = created.body.order_id;
  return {
    key,
    orderId,
    url: created.body.checkout_url as string,
    read: async () => (await session.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body,
  };
}

const squash = (texts: string[]) => texts.map((value) => value.replace(/\s+/g, ' ').trim());
/** The page fits the screen: nothing wider than the 360 px viewport (no sideways scrolling). */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

async function submit(page: Page, method: string, phone: string): Promise<void> {
  await page.locator(`input[name="method"][value="${method}"]`).check();
  await page.locator('input[name="phone"]').fill(phone);
  await Promise.all([page.waitForNavigation(), page.locator('button[type="submit"]').click()]);
}

describe('paying on the checkout page', () => {
  it('pays with Wave, without JavaScript, on a 360 px screen, and lands on the default success page', async () => {
    const { orderId, url, read } = await newTransaction({
      fees_customer_side: true,
      products: [
        { name: 'Bissap', price: 1500, quantity: 2, description: 'Bouteille d’un litre' },
        { name: 'Thiakry', price: 1250, quantity: 1 },
      ],
    });
    const { context, page } = await newPhonePage(session.browser, { javaScriptEnabled: false });
    try {
      const outside = recordOutsideRequests(page, session.gateway.checkoutUrl);
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      expect(await page.locator('h1').innerText()).toBe('Boutique Dakar');
      expect(await page.locator('.status').getAttribute('data-status')).toBe('pending');
      expect(squash(await page.locator('tr').allInnerTexts())).toEqual([
        'Bissap 2 × 1 500 XOF Bouteille d’un litre 3 000 XOF',
        'Thiakry 1 × 1 250 XOF 1 250 XOF',
      ]);
      expect(await page.locator('[data-amount]').getAttribute('data-amount')).toBe('4250');
      // 1 % of 4 250 = 42.5 -> 43; 1.5 % = 63.75 -> 64 (round half up).
      expect(squash(await page.locator('label.offer').allInnerTexts())).toEqual([
        'Wave — 4 293 XOF (dont 43 XOF de frais)',
        'Orange Money — 4 314 XOF (dont 64 XOF de frais)',
      ]);
      expect(await page.locator('.ref code').innerText()).toBe(orderId);
      expect(await page.locator('input[name="phone"]').getAttribute('type')).toBe('tel');
      expect(await page.locator('script').count()).toBe(0);
      await shot(page, 'pending-fr');

      await submit(page, 'wave', '+221 77 123 45 67');
      expect(page.url()).toBe(`${session.gateway.checkoutUrl}/checkout/${orderId}/success`);
      expect(await page.locator('[data-outcome]').getAttribute('data-outcome')).toBe('paid');
      expect(await page.locator('h2').innerText()).toBe('Paiement reçu');
      await shot(page, 'success-default-page');
      expect(await read()).toMatchObject({ transaction_status: 'paid', selected_payment_method: 'wave', fees: 43, amount: 4250 });

      await page.goto(url);
      expect(await page.locator('.status').getAttribute('data-status')).toBe('paid');
      expect(await page.locator('input[name="phone"]').count()).toBe(0);
      expect(await page.locator('[data-amount]').getAttribute('data-amount')).toBe('4293');
      await shot(page, 'paid');
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('sends the customer to the merchant error_url, then to its success_url, on the merchant origin', async () => {
    const { url, read } = await newTransaction({ success_url: `${shop.url}/merci`, error_url: `${shop.url}/oups` });
    const { context, page } = await newPhonePage(session.browser);
    try {
      await page.goto(url);
      expect(await pageWidth(page)).toBeLessThanOrEqual(360);
      await submit(page, 'orange_money', '+221 77 000 00 00');
      expect(page.url()).toBe(`${shop.url}/oups`);
      expect(await page.locator('h1').innerText()).toBe('Shop page /oups');
      expect(await read()).toMatchObject({ transaction_status: 'pending', selected_payment_method: '' });

      await page.goto(url);
      await submit(page, 'orange_money', '+221771234567');
      expect(page.url()).toBe(`${shop.url}/merci`);
      expect(await read()).toMatchObject({ transaction_status: 'paid', selected_payment_method: 'orange_money', fees: 45 });
    } finally {
      await context.close();
    }
  });

  it('asks to confirm on the phone when the wallet does not answer, and shows the default error page of a declined payment', async () => {
    const { orderId, url, read } = await newTransaction();
    const { context, page } = await newPhonePage(session.browser);
    try {
      await page.goto(url);
      await submit(page, 'wave', '+221 77 000 11 11');
      expect(await page.locator('[data-outcome]').getAttribute('data-outcome')).toBe('awaiting_confirmation');
      expect(await page.locator('[data-outcome] h2').innerText()).toBe('Confirmez le paiement sur votre téléphone');
      await shot(page, 'awaiting-confirmation');
      await Promise.all([page.waitForNavigation(), page.locator('a.button').click()]);
      expect(page.url()).toBe(url);
      expect(await page.locator('input[name="phone"]').count()).toBe(1);

      await submit(page, 'wave', '+221770000000');
      expect(page.url()).toBe(`${session.gateway.checkoutUrl}/checkout/${orderId}/error`);
      expect(await page.locator('[data-outcome]').getAttribute('data-outcome')).toBe('failed');
      await shot(page, 'failed-default-page');
      expect((await read()).transaction_status).toBe('pending');
    } finally {
      await context.close();
    }
  });

  it('in English: re-shows the form with the reason for a bad phone, and refuses a form token of another transaction', async () => {
    const { url, read } = await newTransaction();
    const other = await newTransaction();
    const { context, page } = await newPhonePage(session.browser, { locale: 'en-GB' });
    try {
      await page.goto(url);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.locator('button[type="submit"]').innerText()).toBe('Pay');
      await page.locator('input[name="method"][value="wave"]').check();
      await page.locator('input[name="phone"]').fill('77 12');
      const [refused] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST'),
        page.locator('button[type="submit"]').click(),
      ]);
      expect(refused.status()).toBe(400);
      await page.waitForLoadState();
      expect(squash([await page.locator('.error').innerText()])).toEqual(['Invalid phone number. Use the international format, e.g. +221 77 123 45 67.']);
      expect(await page.locator('input[name="phone"]').inputValue()).toBe('77 12');
      expect(await pageWidth(page)).toBeLessThanOrEqual(360);
      await shot(page, 'invalid-phone-en');

      // The form of this order, carrying the token of another order's page.
      const otherPage = await context.newPage();
      await otherPage.goto(other.url);
      const otherToken = await otherPage.locator('input[name="csrf_token"]').inputValue();
      await page.locator('input[name="csrf_token"]').evaluate((input, value) => ((input as HTMLInputElement).value = value), otherToken);
      await page.locator('input[name="phone"]').fill('+221771234567');
      const [forged] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST'),
        page.locator('button[type="submit"]').click(),
      ]);
      expect(forged.status()).toBe(403);
      await page.waitForLoadState();
      expect(await page.locator('h1').innerText()).toBe('This payment form has expired or was altered');
      await shot(page, 'forged-token-en');
      expect((await read()).transaction_status).toBe('pending');
      expect((await other.read()).transaction_status).toBe('pending');
    } finally {
      await context.close();
    }
  });
});

describe('what the page shows instead of a form', () => {
  it('shows cancelled and refunded transactions with their state and no phone field', async () => {
    const cancelled = await newTransaction();
    expect((await session.gateway.rest('DELETE', `/api/v2/transactions/${cancelled.orderId}`, { key: cancelled.key })).status).toBe(200);
    const refunded = await newTransaction();
    await session.gateway.db.prisma.transaction.update({
      where: { id: refunded.orderId },
      data: { status: 'refunded', paidAt: new Date(), refundedAt: new Date(), selectedPaymentMethod: 'wave' },
    });
    const { context, page } = await newPhonePage(session.browser, { locale: 'en-US' });
    try {
      for (const [transaction, status, label] of [
        [cancelled, 'cancelled', 'Cancelled'],
        [refunded, 'refunded', 'Refunded'],
      ] as const) {
        await page.goto(transaction.url);
        expect(await page.locator('.status').getAttribute('data-status')).toBe(status);
        expect(await page.locator('.status').innerText()).toBe(label);
        expect(await page.locator('input[name="phone"]').count()).toBe(0);
        expect(await page.locator('form').count()).toBe(0);
        await shot(page, status);
      }
    } finally {
      await context.close();
    }
  });

  it('does not offer a method switched off by the operator, and says so when none is left', async () => {
    const { url } = await newTransaction();
    const { context, page } = await newPhonePage(session.browser);
    try {
      await setSwitch(session.gateway.ctx, session.gateway.operator, 'wave', false);
      await page.goto(url);
      expect(await page.locator('input[name="method"]').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))).toEqual([
        'orange_money',
      ]);
      await setSwitch(session.gateway.ctx, session.gateway.operator, 'orange_money', false);
      const response = await page.goto(url);
      expect(response?.status()).toBe(503);
      expect(await page.locator('.unavailable h2').innerText()).toBe('Paiement temporairement indisponible');
      expect(await page.locator('input[name="phone"]').count()).toBe(0);
      await shot(page, 'unavailable');
    } finally {
      await setSwitch(session.gateway.ctx, session.gateway.operator, 'wave', true);
      await setSwitch(session.gateway.ctx, session.gateway.operator, 'orange_money', true);
      await context.close();
    }
  });

  it('shows what merchants wrote as text, never as markup, and long words still fit the screen', async () => {
    const name = '<script>alert("merchant")</script>';
    const { url } = await newTransaction(
      {
        products: [
          { name: '<img src=x onerror=alert(1)>', price: 1500, quantity: 1, description: '<b>gras</b>' },
          { name: 'Sac'.repeat(40), price: 12345, quantity: 3 },
        ],
      },
      name,
    );
    const { context, page } = await newPhonePage(session.browser);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      await page.goto(url);
      expect(await page.locator('h1').innerText()).toBe(name);
      expect(await page.locator('tr').first().innerText()).toContain('<img src=x onerror=alert(1)>');
      expect(await page.locator('tr').first().innerText()).toContain('<b>gras</b>');
      expect(await page.locator('img, b, script').count()).toBe(0);
      expect(await pageWidth(page)).toBeLessThanOrEqual(360);
      await shot(page, 'escaped-and-long');
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
