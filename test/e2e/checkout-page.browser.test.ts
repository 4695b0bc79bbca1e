/** The page checkout_url sends a customer to, in a real browser. */
import { describe, expect, it } from 'vitest';
import { useGatewayWithBrowser } from '../support/browser.js';
import { startGateway, transactionBody } from '../support/gateway.js';

const session = useGatewayWithBrowser();

describe('the checkout page', () => {
  it('shows the merchant, each product and the total of a pending transaction', async () => {
    const { key } = await session.gateway.merchant({ name: 'Boutique Dakar' });
    const body = transactionBody({ products: [{ name: 'Bissap <juice>', price: 1500, quantity: 2 }, { name: 'Thiakry', price: 1250, quantity: 1 }] });
    const created = await session.gateway.rest('POST', '/api/v2/transactions', { key, body });
    const page = await session.browser.newPage();
    const response = await page.goto(created.body.checkout_url);
    expect(response?.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toBe('Boutique Dakar');
    expect(await page.locator('.status').getAttribute('data-status')).toBe('pending');
    const rows = await page.locator('tr').allInnerTexts();
    expect(rows.map((row) => row.replace(/\s+/g, ' ').trim())).toEqual(['Bissap <juice> × 2 3 000 XOF', 'Thiakry × 1 1 250 XOF']);
    expect(await page.locator('[data-amount]').getAttribute('data-amount')).toBe('4250');
  });

  it('shows the state, not a form, of a cancelled transaction', async () => {
    const { key } = await session.gateway.merchant();
    const created = await session.gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect((await session.gateway.rest('DELETE', `/api/v2/transactions/${created.body.order_id}`, { key })).status).toBe(200);
    const page = await session.browser.newPage();
    await page.goto(created.body.checkout_url);
    expect(await page.locator('.status').innerText()).toBe('Cancelled');
    expect(await page.locator('input[name="phone"]').count()).toBe(0);
  });

  it('answers 404 with a readable page for an unknown or malformed link', async () => {
    const page = await session.browser.newPage();
    for (const id of [crypto.randomUUID(), 'not-an-id']) {
      const response = await page.goto(`${session.gateway.checkoutUrl}/checkout/${id}`);
      expect(response?.status()).toBe(404);
      expect(await page.locator('h1').innerText()).toBe('This payment link is not valid.');
    }
  });

  it('cannot be framed by another site and loads nothing from elsewhere', async () => {
    const { key } = await session.gateway.merchant();
    const created = await session.gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    const response = await fetch(created.body.checkout_url);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the checkout origin when something breaks', () => {
  it('shows a plain error page, never the internal message, and logs it', async () => {
    const errors: unknown[] = [];
    const broken = await startGateway({ log: { info: () => undefined, warn: () => undefined, error: (entry) => errors.push(entry) } });
    try {
      const { key } = await broken.merchant();
      const created = await broken.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
      await broken.db.close(); // the database goes away under the page
      const response = await fetch(created.body.checkout_url);
      expect(response.status).toBe(500);
      const html = await response.text();
      expect(html).toContain('Something went wrong.');
      expect(html).not.toMatch(/prisma|pool|database|Error:/i);
      expect(errors).toHaveLength(1);
      expect((await fetch(`${broken.checkoutUrl}/nowhere`)).status).toBe(404);
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});
