/**
 * The API reference in a real browser: /docs renders REST v2 and /docs/v1 the deprecated REST v1,
 * each from its contract, with examples and how to obtain a key, offline (every request stays on
 * this origin) and under the pages' strict Content-Security-Policy. "Try it out" calls the API.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordOutsideRequests, useGatewayWithBrowser } from '../support/browser.js';

const session = useGatewayWithBrowser();

interface DocsVisit {
  page: Page;
  /** Every request the page made. */
  requests: string[];
  /** Requests to anywhere but the gateway's origin (data: and blob: stay in the page). */
  outside: string[];
  /** Console messages reporting a Content-Security-Policy violation. */
  cspViolations: string[];
}

/** Pages of one test, closed after it, and of the whole file (the shared visit below), closed after the file. */
const pages = { test: [] as Page[], file: [] as Page[] };
afterEach(async () => {
  await Promise.all(pages.test.splice(0).map((page) => page.close()));
});
afterAll(async () => {
  await Promise.all(pages.file.splice(0).map((page) => page.close()));
});

async function visitDocs(path: string, lifetime: keyof typeof pages = 'test'): Promise<DocsVisit> {
  const page = await session.browser.newPage();
  pages[lifetime].push(page);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  const outside = recordOutsideRequests(page, session.gateway.url);
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  const response = await page.goto(`${session.gateway.url}${path}`);
  expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
  await page.locator('.opblock').first().waitFor();
  return { page, requests, outside, cspViolations };
}

/** The operations' paths as Swagger UI lists them (it inserts zero-width spaces to wrap them; a deprecated one has its own class). */
async function listedPaths(page: Page): Promise<string[]> {
  const paths = await page.locator('.opblock-summary-path, .opblock-summary-path__deprecated').allInnerTexts();
  return paths.map((text) => text.replace(/\u200b/g, '').trim());
}

/** The names offered by an example selector of Swagger UI. */
async function exampleNames(select: ReturnType<Page['locator']>): Promise<string[]> {
  return select.locator('option').allInnerTexts();
}

/** Expands an operation (Swagger UI's id is operations-<tag>-<operationId>) and returns its block. */
async function expandOperation(page: Page, tag: string, operationId: string) {
  const block = page.locator(`#operations-${tag}-${operationId}`);
  await block.locator('.opblock-summary').first().click();
  await block.locator('.opblock-body').waitFor();
  return block;
}

/**
 * One visit of /docs for the tests that read it or expand an operation of their own: Swagger UI
 * costs Chromium about 2.5 s of CPU per page load on the 2-core machine (this file paid ~23 CPU-s
 * for eight loads, four now). Its requests, outside requests and CSP violations are everything the
 * page did since it loaded, so a test that checks them checks what the tests before it did too.
 * The test that follows its link to v1 goes last of them: it leaves the page on v1.
 */
let v2: DocsVisit;
beforeAll(async () => {
  v2 = await visitDocs('/docs', 'file');
});

describe('API docs', () => {
  it('render every REST v2 operation from openapi/v2.yaml, with nothing loaded from elsewhere', async () => {
    const { page, requests, outside, cspViolations } = v2;
    expect(await listedPaths(page)).toEqual(
      expect.arrayContaining([
        '/transactions',
        '/transactions/{order_id}',
        '/refund/{order_id}',
        '/payouts',
        '/payouts/{order_id}',
        '/accounts',
        '/accounts/stats',
        '/accounts/{id}',
      ]),
    );
    expect(await page.locator('.opblock-deprecated').count()).toBe(0);
    expect(requests).toContain(`${session.gateway.url}/api/v2/openapi.json`);
    expect(outside).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  it('show POST /transactions with its request and response examples', async () => {
    const { page, outside } = v2;
    const block = await expandOperation(page, 'Transactions', 'createTransaction');
    const request = block.locator('.opblock-section-request-body');
    await request.getByText('"Bissap 1 L"').first().waitFor();
    expect(await exampleNames(request.locator('.examples-select-element'))).toEqual([
      'Products, customer and redirect URLs',
      'The required fields only',
      expect.stringMatching(/^Escrow/),
    ]);

    const success = block.locator('tr.response[data-code="200"]');
    await success.getByText('"checkout_url"').first().waitFor();
    const invalid = block.locator('tr.response[data-code="400"]');
    await invalid.getByText('"Invalid request body"').first().waitFor();
    expect(await exampleNames(invalid.locator('.examples-select-element'))).toContain('method_of_payment missing or empty');
    // Choosing an example shows its body.
    await invalid.locator('.examples-select-element').selectOption({ label: 'method_of_payment missing or empty' });
    await invalid.getByText('"Add minimum one payment method"').first().waitFor();
    expect(outside).toEqual([]);
  });

  it('say how to obtain an API key: from the operator, with the operator CLI', async () => {
    const { page } = v2;
    const info = page.locator('.information-container');
    await info.getByRole('heading', { name: 'Getting an API key' }).waitFor();
    await info.getByText('npx gateway key create --org', { exact: false }).first().waitFor();
  });

  it('let "Try it out" call the API from the page', async () => {
    const { page } = v2;
    const block = await expandOperation(page, 'Accounts', 'getAccountStats');
    await block.getByRole('button', { name: 'Try it out' }).click();
    await block.getByRole('button', { name: 'Execute' }).click();
    // No key given: the gateway itself answers, 401 in the API's error shape.
    await block.locator('.live-responses-table').getByText('Invalid API key').first().waitFor();
  });
  it('link to the deprecated REST v1 reference, which renders every v1 operation marked deprecated', async () => {
    const { page, requests, outside, cspViolations } = v2;
    await page.getByRole('navigation', { name: 'API versions' }).getByRole('link', { name: 'REST v1 (deprecated)' }).click();
    await page.waitForURL(`${session.gateway.url}/docs/v1`);
    await page.locator('.opblock').first().waitFor();

    const paths = await listedPaths(page);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/transaction/create-transaction',
        '/transaction/delete-transaction',
        '/transaction/get-transactions',
        '/transaction/get-one-transaction',
        '/account',
        '/cashout/wave',
        '/cashout/orange-money',
      ]),
    );
    // Every v1 operation is shown deprecated (Swagger UI greys it out and strikes its path).
    expect(await page.locator('.opblock-deprecated').count()).toBe(await page.locator('.opblock').count());
    await page.getByRole('note').getByText('REST v1 is deprecated').waitFor();
    await page.locator('.information-container').getByText('gateway key create', { exact: false }).first().waitFor();

    expect(requests).toContain(`${session.gateway.url}/api/v1/openapi.json`);
    expect(outside).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  it('show the v1 examples, and link back to v2', async () => {
    const { page, outside } = await visitDocs('/docs/v1');
    const block = await expandOperation(page, 'Transactions', 'createTransaction');
    await block.locator('.opblock-section-request-body').getByText('"WAVE"').first().waitFor();
    await block.locator('.responses-wrapper').getByText('"checkout_url"').first().waitFor();
    await page.getByRole('navigation', { name: 'API versions' }).getByRole('link', { name: 'REST v2 (current)' }).click();
    await page.waitForURL(`${session.gateway.url}/docs`);
    await page.locator('#operations-Transactions-createTransaction').waitFor();
    expect(outside).toEqual([]);
  });
});
