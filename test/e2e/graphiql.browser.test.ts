/** The newcomer's GraphiQL: served without a token, fully offline, and usable with a key. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { startGateway, transactionBody, type TestGateway } from '../support/gateway.js';

let gateway: TestGateway;
let browser: Browser;
beforeAll(async () => {
  [gateway, browser] = await Promise.all([startGateway(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe('GraphiQL in a browser', () => {
  it('loads without a token or any outside asset, and runs a query with the key typed into Headers', async () => {
    const { key } = await gateway.merchant();
    const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });

    const page = await browser.newPage();
    // Blob URLs are GraphiQL's own web workers; anything else must come from the gateway.
    const outsideRequests: string[] = [];
    page.on('request', (request) => {
      if (!/^(data:|blob:)/.test(request.url()) && !request.url().startsWith(gateway.url)) outsideRequests.push(request.url());
    });
    await page.goto(`${gateway.url}/graphql`);
    await page.locator('.graphiql-execute-button').waitFor();

    // The headers editor opens with the Authorization line to fill in.
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor').last();
    await expect.poll(() => headersEditor.innerText()).toContain('Authorization');
    await headersEditor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${key}` }));
    await page.locator('.graphiql-execute-button').click();

    await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 10_000 }).toContain(created.body.order_id);
    // The response pane indents with non-breaking spaces.
    const response = JSON.parse((await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' '));
    expect(response.data.transactions).toEqual({
      transactions: [{ orderId: created.body.order_id, amount: 3000, status: 'pending' }],
      pagination: { totalCount: 1 },
    });
    expect(outsideRequests).toEqual([]);
  });
});
