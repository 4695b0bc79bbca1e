/** The newcomer's GraphiQL: served without a token, fully offline, and usable with a key. */
import { describe, expect, it } from 'vitest';
import { recordOutsideRequests, useGatewayWithBrowser } from '../support/browser.js';
import { transactionBody } from '../support/gateway.js';

const session = useGatewayWithBrowser();

describe('GraphiQL in a browser', () => {
  it('loads without a token or any outside asset, and runs a query with the key typed into Headers', async () => {
    const { key } = await session.gateway.merchant();
    const created = await session.gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });

    const page = await session.browser.newPage();
    const outsideRequests = recordOutsideRequests(page, session.gateway.url);
    await page.goto(`${session.gateway.url}/graphql`);
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
