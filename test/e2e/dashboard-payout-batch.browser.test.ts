/**
 * A payout batch from the dashboard, in a real browser: the owner uploads a CSV of 200 payouts
 * with two invalid lines, sees those two named before anything is sent, sends the 198 valid ones,
 * watches the progress bar move while the runner sends them (the background job's own function,
 * run here), and downloads the results. Screenshots in test-artifacts/dashboard/.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
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
  it('uploads 200 lines, names the two invalid ones, sends the rest with a progress bar, downloads the results', async () => {
    const t = MESSAGES.en;
    const { context, page } = await newPhonePage(browser, { locale: 'en-GB' });
    await context.addCookies([{ name: 'gateway_session', value: cookie, url: gateway.url, httpOnly: true, sameSite: 'Strict' }]);
    try {
      await page.setViewportSize({ width: 1280, height: 900 });
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

      await page.getByRole('button', { name: t.startValidLines(198) }).click();
      await page.locator('progress').waitFor();
      // The runner (the background job's function) sends them while the page watches.
      let running = true;
      const runner = (async () => {
        while (running) {
          const run = await runPayoutBatches(gateway.ctx, 'e0000000-0000-4000-8000-000000000001');
          if (run.outcome === 'idle') await sleep(50);
        }
      })();
      const seen: number[] = [];
      for (let tries = 0; tries < 480; tries += 1) {
        const [done] = ((await page.locator('progress').getAttribute('data-progress')) ?? '0/0').split('/').map(Number);
        if (!seen.includes(done!)) seen.push(done!);
        if (seen.length === 3) await saveScreenshot(page, 'dashboard', 'payout-batch-progress');
        if (done === 198) break;
        await sleep(250);
      }
      running = false;
      await runner;
      expect(seen.at(-1)).toBe(198);
      expect(seen.filter((done) => done > 0 && done < 198).length, `progress seen: ${seen.join(', ')}`).toBeGreaterThan(0);
      await page.getByText(t.batchCounts({ completed: 198, failed: 0, pending: 0, cancelled: 0, queued: 0 })).waitFor();
      await saveScreenshot(page, 'dashboard', 'payout-batch-done');

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
});
