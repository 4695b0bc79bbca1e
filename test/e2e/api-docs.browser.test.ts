/** GET /docs renders the REST v2 contract offline and can call the API ("Try it out"). */
import { describe, expect, it } from 'vitest';
import { recordOutsideRequests, useGatewayWithBrowser } from '../support/browser.js';

const session = useGatewayWithBrowser();

describe('API docs', () => {
  it('lists every v2 operation from openapi/v2.yaml, with nothing loaded from elsewhere', async () => {
    const page = await session.browser.newPage();
    const outside = recordOutsideRequests(page, session.gateway.url);
    await page.goto(`${session.gateway.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const operations = (await page.locator('.opblock-summary-path').allInnerTexts()).map((text) => text.replace(/\u200b/g, '').trim());
    expect(operations).toEqual(
      expect.arrayContaining(['/transactions', '/transactions/{order_id}', '/refund/{order_id}', '/payouts', '/payouts/{order_id}', '/accounts', '/accounts/stats', '/accounts/{id}']),
    );
    expect(outside).toEqual([]);
  });
});
