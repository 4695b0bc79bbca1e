/**
 * A payout batch from the dashboard, in a real browser: the owner uploads a CSV of 200 payouts
 * with two invalid lines, sees those two named before anything is sent, sends the 198 valid ones,
 * watches the progress bar move while the runner sends them (the background job's own function,
 * run here), pushed by the payoutBatchProgress subscription (no reload, no re-read of the batch),
 * and downloads the results. When the live connection fails, the bar moves by reading the batch
 * every second. A 5,000-line file uploads; a file past the limits is refused, saying why.
 * Screenshots in test-artifacts/dashboard/.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/dashboard/client/i18n.js';
import { adjustAccount } from '../../src/domain/operations.js';
import { runPayoutBatches } from '../../src/domain/payoutBatches/runPayoutBatches.js';
import { newPhonePage, saveScreenshot, sharedBrowser } from '../support/browser.js';
import { signedIn } from '../support/dashboard.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

let gateway: TestGateway;
let browser: Browser;
let organizationId: string;
let cookie: string;
beforeAll(async () => {
  // 198 items take several seconds on this machine, long enough to see the bar move.
  [gateway, browser] = await Promise.all([startGateway(), sharedBrowser()]);
  organizationId = (await gateway.createOrganization({ name: 'Transports Ndiaye', verified: true, payoutEnabled: true })).id;
  await adjustAccount(gateway.ctx, gateway.operator, { organizationId, amount: 5_000_000, reason: 'float' });
  cookie = (await signedIn(gateway, organizationId, 'owner')).cookie!;
});
afterAll(async () => {
  await gateway?.close();
});

/** The GraphQL operations the page sent, by name, and whether each asked for an event stream. */
function graphqlRequests(page: Page): { name: string; stream: boolean }[] {
  const seen: { name: string; stream: boolean }[] = [];
  page.on('request', (request) => {
    if (!request.url().endsWith('/graphql') || request.method() !== 'POST') return;
    const name = /^\s*(?:query|mutation|subscription)\s+(\w+)/.exec(JSON.parse(request.postData() ?? '{}').query ?? '')?.[1] ?? '?';
    seen.push({ name, stream: (request.headers().accept ?? '').includes('text/event-stream') });
  });
  return seen;
}

/** The progress bar's `done` values as they change, until `total` (or the tries run out). */
async function watchProgress(page: Page, total: number, onThird?: () => Promise<unknown>): Promise<number[]> {
  const seen: number[] = [];
  for (let tries = 0; tries < 480; tries += 1) {
    const [done] = ((await page.locator('progress').getAttribute('data-progress')) ?? '0/0').split('/').map(Number);
    if (!seen.includes(done!)) seen.push(done!);
    if (seen.length === 3) await onThird?.();
    if (done === total) break;
    await sleep(100);
  }
  return seen;
}

/** The background job's function, run here until told to stop: `pause` between items paces it. */
function runRunner(pauseMs = 0) {
  let running = true;
  const done = (async () => {
    while (running) {
      const run = await runPayoutBatches(gateway.ctx, 'e0000000-0000-4000-8000-000000000001', { shouldStop: pauseMs ? onceEvery() : undefined });
      if (run.outcome === 'idle' || pauseMs) await sleep(pauseMs || 50);
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}
/** Stops a run after one item (so that the next run, a pause later, sends the next). */
const onceEvery = () => {
  let items = 0;
  return () => ++items > 1;
};

async function ownerPage() {
  const { context, page } = await newPhonePage(browser, { locale: 'en-GB' });
  await context.addCookies([{ name: 'gateway_session', value: cookie, url: gateway.url, httpOnly: true, sameSite: 'Strict' }]);
  await page.setViewportSize({ width: 1280, height: 900 });
  return { context, page };
}

/** Uploads `csv` from the New payout batch page; resolves once the draft page shows. */
async function uploadCsv(page: Page, csv: string, name: string): Promise<void> {
  await page.goto(`${gateway.url}/dashboard/payouts`);
  await page.getByRole('link', { name: MESSAGES.en.newPayoutBatch }).click();
  await page.locator('main h1', { hasText: MESSAGES.en.newPayoutBatch }).waitFor();
  await page.setInputFiles('input[type=file]', { name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: MESSAGES.en.checkFile }).click();
}

function csvOf200(): string {
  const lines = ['method,amount,phone,first_name,last_name,reason,reference'];
  for (let index = 1; index <= 200; index += 1) {
    if (index === 17) lines.push('wave,5,+221770000017,Awa,Diop,Semaine 47,REF-17');
    else if (index === 143) lines.push('orange_money,1500,+33612345678,Moussa,Sow,Semaine 47,REF-143');
    else lines.push(`${index % 2 ? 'wave' : 'orange_money'},${1_000 + index},+2217${10_000_002 + index * 10},Chauffeur,${index},Semaine 47,REF-${index}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('a payout batch in the dashboard', () => {
  it('uploads 200 lines, names the two invalid ones, sends the rest with a live progress bar, downloads the results', async () => {
    const t = MESSAGES.en;
    const { context, page } = await ownerPage();
    const requests = graphqlRequests(page);
    try {
      await page.goto(`${gateway.url}/dashboard/payouts`);
      await page.getByRole('link', { name: t.newPayoutBatch }).click();
      await page.locator('main h1', { hasText: t.newPayoutBatch }).waitFor();
      await page.setInputFiles('input[type=file]', { name: 'drivers-week-47.csv', mimeType: 'text/csv', buffer: Buffer.from(csvOf200()) });
      await saveScreenshot(page, 'dashboard', 'payout-batch-upload');
      await page.getByRole('button', { name: t.checkFile }).click();

      await page.locator('[data-refused-line]').first().waitFor();
      const refused = await page.locator('[data-refused-line]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.refusedLine));
      expect(refused).toEqual(['17', '143']);
      expect(await page.locator('[data-refused-line="17"]').innerText()).toMatch(/greater than 10 XOF/);
      expect(await page.locator('[data-refused-line="143"]').innerText()).toMatch(/\+221/);
      expect(await gateway.ctx.db.payout.count({ where: { organizationId } })).toBe(0);
      await saveScreenshot(page, 'dashboard', 'payout-batch-draft');
      // At a phone's width too: the refused lines and the buttons stay readable.
      await page.setViewportSize({ width: 360, height: 740 });
      await saveScreenshot(page, 'dashboard', 'payout-batch-draft-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      // A mark in this document: a reload would lose it.
      await page.evaluate(() => Object.assign(window, { sameDocument: true }));

      await page.getByRole('button', { name: t.startValidLines(198) }).click();
      await page.locator('progress').waitFor();
      const stopRunner = runRunner();
      const seen = await watchProgress(page, 198, () => saveScreenshot(page, 'dashboard', 'payout-batch-progress'));
      await stopRunner();
      expect(seen.at(-1)).toBe(198);
      expect(seen.filter((done) => done > 0 && done < 198).length, `progress seen: ${seen.join(', ')}`).toBeGreaterThan(0);
      await page.getByText(t.batchCounts({ completed: 198, failed: 0, pending: 0, cancelled: 0, queued: 0 })).waitFor();
      await saveScreenshot(page, 'dashboard', 'payout-batch-done');
      // Pushed, not polled: the page held the live subscription and never read the batch otherwise, in the same document.
      expect(requests.filter((request) => request.name === 'DashboardPayoutBatchProgress' && request.stream).length).toBeGreaterThan(0);
      expect(requests.filter((request) => request.name === 'DashboardPayoutBatch')).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: t.downloadResults }).click()]);
      const text = readFileSync((await download.path())!, 'utf8');
      const rows = text.trim().split('\r\n');
      expect(rows[0]).toMatch(/^line,order_id,payout_status,/);
      expect(rows).toHaveLength(199);
      expect(rows.filter((row) => row.includes(',completed,'))).toHaveLength(198);
      expect(await gateway.ctx.db.payout.count({ where: { organizationId, status: 'completed' } })).toBe(198);
    } finally {
      await context.close();
    }
  }, 240_000);

  it('reads the batch every second instead when the live connection fails, and the bar still moves', async () => {
    const { context, page } = await ownerPage();
    const requests = graphqlRequests(page);
    // The live connection cannot be opened (a proxy that cuts event streams, say).
    await page.route(`${gateway.url}/graphql`, (route) =>
      (route.request().headers().accept ?? '').includes('text/event-stream') ? route.abort('connectionreset') : route.continue(),
    );
    try {
      const lines = ['method,amount,phone,first_name,last_name,reason,reference'];
      for (let index = 1; index <= 8; index += 1) lines.push(`wave,${2_000 + index},+22178${String(index).padStart(7, '0')},Vendeur,${index},Semaine 48,`);
      await uploadCsv(page, `${lines.join('\n')}\n`, 'sellers-week-48.csv');
      await page.getByRole('button', { name: MESSAGES.en.startBatch(8) }).click();
      await page.locator('progress').waitFor();
      const stopRunner = runRunner(400);
      const seen = await watchProgress(page, 8);
      await stopRunner();
      expect(seen.at(-1)).toBe(8);
      expect(seen.filter((done) => done > 0 && done < 8).length, `progress seen: ${seen.join(', ')}`).toBeGreaterThan(0);
      expect(requests.filter((request) => request.name === 'DashboardPayoutBatchProgress').length).toBeGreaterThan(0);
      expect(requests.filter((request) => request.name === 'DashboardPayoutBatch').length).toBeGreaterThan(2);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('uploads a 5,000-line file into a draft; a file past 1 MiB or with a line too long is refused, saying why', async () => {
    const t = MESSAGES.en;
    const { context, page } = await ownerPage();
    try {
      const lines = ['method,amount,phone,first_name,last_name,reason,reference'];
      for (let index = 1; index <= 5_000; index += 1)
        lines.push(
          `${index % 2 ? 'wave' : 'orange_money'},${500 + (index % 300)},+22176${String(index).padStart(7, '0')},Chauffeur,${index},Semaine 49,REF-${index}`,
        );
      await uploadCsv(page, `${lines.join('\n')}\n`, 'everyone-week-49.csv');
      await page.getByText(t.batchLines(5_000, 5_000)).waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-refused-line]').count()).toBe(0);
      expect(await page.getByRole('button', { name: t.startBatch(5_000) }).isVisible()).toBe(true);
      await saveScreenshot(page, 'dashboard', 'payout-batch-5000');

      const batches = await gateway.ctx.db.payoutBatch.count({ where: { organizationId } });
      // Past 1 MiB: said at once, nothing sent.
      const large = `${lines[0]}\n${'wave,1000,+221770000001,,,x,\n'.repeat(40_000)}`;
      await uploadCsv(page, large, 'too-large.csv');
      expect(await page.getByRole('alert').innerText()).toBe(t.csvTooLarge(Buffer.byteLength(large)));
      // A line past 512 characters: the gateway says which.
      await uploadCsv(page, `${lines.slice(0, 3).join('\n')}\nwave,1000,+221770000001,${'x'.repeat(600)},,,\n`, 'long-line.csv');
      expect(await page.getByRole('alert').innerText()).toMatch(/CSV line 4 is longer than 512 characters/);
      expect(await gateway.ctx.db.payoutBatch.count({ where: { organizationId } })).toBe(batches);
    } finally {
      await context.close();
    }
  }, 120_000);
});
