/**
 * The newcomer's GraphiQL: served without a token, fully offline, opening on one example tab per
 * kind of caller with no error showing, and usable with a key.
 */
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
    const tokenlessCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/graphql') && request.method() === 'POST') tokenlessCalls.push(request.headers().authorization ?? '(none)');
    });
    await page.goto(`${session.gateway.url}/graphql`);
    await page.locator('.graphiql-execute-button').waitFor();

    // One tab per kind of caller, and no 401 in the result pane: the page answered GraphiQL's
    // schema question itself (the docs are there), and sent nothing to the server without a token.
    await expect
      .poll(() => page.locator('.graphiql-tab').allInnerTexts())
      .toEqual(['MerchantRecentTransactions', 'AnalystVolumeByDayAndMethod', 'SupportPayoutsAwaitingReview', 'AdminOrganizations']);
    await page.locator('[aria-label="Show Documentation Explorer"]').click();
    await expect.poll(() => page.locator('.graphiql-doc-explorer').innerText()).toContain('Query');
    expect(await page.locator('.graphiql-response').innerText()).not.toMatch(/Invalid API key|UNAUTHENTICATED/);
    expect(tokenlessCalls).toEqual([]);

    // The headers editor opens with the Authorization line to fill in.
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor').last();
    await expect.poll(() => headersEditor.innerText()).toContain('Authorization');
    await headersEditor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${key}` }));
    const answered = page.waitForResponse((response) => response.url().endsWith('/graphql') && response.request().method() === 'POST');
    await page.locator('.graphiql-execute-button').click();
    const response = await (await answered).json();
    expect(response.data.transactions).toEqual({
      transactions: [
        { orderId: created.body.order_id, amount: 3000, fees: 0, status: 'pending', selectedPaymentMethod: null, createdAt: created.body.created_at },
      ],
      pagination: { totalCount: 1 },
    });
    // The pane shows it (it wraps long lines and indents with non-breaking spaces: a field name is compared).
    await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 10_000 }).toContain('totalCount');
    // That request, and only it, left the page: with the key.
    expect(tokenlessCalls).toEqual([`Bearer ${key}`]);
    expect(outsideRequests).toEqual([]);
  });
});
