/** GET /docs renders the REST v2 contract offline and can call the API ("Try it out"). */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

let gateway: TestGateway;
let browser: Browser;
beforeAll(async () => {
  [gateway, browser] = await Promise.all([startGateway(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe('API docs', () => {
  it('lists every v2 operation from openapi/v2.yaml, with nothing loaded from elsewhere', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(gateway.url) && !/^(data|blob):/.test(request.url())) outside.push(request.url());
    });
    await page.goto(`${gateway.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const operations = (await page.locator('.opblock-summary-path').allInnerTexts()).map((text) => text.replace(/\u200b/g, '').trim());
    expect(operations).toEqual(
      expect.arrayContaining(['/transactions', '/transactions/{order_id}', '/refund/{order_id}', '/payouts', '/payouts/{order_id}', '/accounts', '/accounts/stats', '/accounts/{id}']),
    );
    expect(outside).toEqual([]);
  });
});
