/**
 * The newcomer's GraphiQL: served without a token, fully offline, opening on one example tab per
 * kind of caller with no error showing, and usable with a key.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { recordOutsideRequests, useGatewayWithBrowser } from '../support/browser.js';
import { transactionBody } from '../support/gateway.js';

const session = useGatewayWithBrowser();

describe('GraphiQL in a browser', () => {
  // The page inlines GraphiQL's whole bundle: on a loaded two-core machine (a full run beside the
  // fault suite) loading and parsing it alone has taken most of the default 30 s.
  it('loads without a token or any outside asset, and runs a query with the key typed into Headers', { timeout: 90_000 }, async () => {
    const { key } = await session.gateway.merchant();
    const created = await session.gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });

    const page = await session.browser.newPage();
    page.setDefaultTimeout(60_000);
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
    await replaceEditorText(page, headersEditor, JSON.stringify({ Authorization: `Bearer ${key}` }), key);
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

/**
 * Replaces an editor's text as a person would (click, select all, type) and waits until the editor
 * shows `mustShow` and no `<placeholder>`. While a placeholder is left, the page answers the
 * query itself and nothing reaches the server, so a keystroke lost to a busy page (the editor not
 * focused yet, GraphiQL setting its stored headers after the click) would otherwise turn into a
 * wait for a request that never leaves. Each try is bounded; three are enough on a loaded machine.
 */
async function replaceEditorText(page: Page, editor: Locator, text: string, mustShow: string): Promise<void> {
  let shown = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
    // The editor paints on the next frames: give it a few seconds before typing again.
    for (const deadline = Date.now() + 3_000; Date.now() < deadline; await page.waitForTimeout(100)) {
      shown = await editor.innerText();
      if (shown.includes(mustShow) && !shown.includes('<')) return;
    }
  }
  throw new Error(`the editor still shows ${JSON.stringify(shown)} after three tries to type into it`);
}
