/**
 * A real browser for end-to-end tests: Debian's Chromium driven by playwright-core (test tools
 * cannot download their own browsers here). Flags keep it from calling out to the network.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startGateway, type TestGateway } from './gateway.js';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

let workerBrowser: Promise<Browser> | undefined;

/**
 * The worker's one Chromium, launched on first use and shared by its browser test files (each
 * works in contexts of its own and closes them): a launch per file cost more than most of those
 * files' tests. Playwright closes it when the worker exits.
 */
export function sharedBrowser(): Promise<Browser> {
  workerBrowser ??= launchBrowser().then((browser) => {
    browser.on('disconnected', () => (workerBrowser = undefined));
    return browser;
  });
  return workerBrowser;
}

export interface BrowserSession {
  gateway: TestGateway;
  browser: Browser;
}

/** A gateway for the whole test file, closed after it, and the worker's browser. */
export function useGatewayWithBrowser(): BrowserSession {
  const session = {} as BrowserSession;
  beforeAll(async () => {
    [session.gateway, session.browser] = await Promise.all([startGateway(), sharedBrowser()]);
  });
  afterAll(async () => {
    await session.gateway?.close();
  });
  return session;
}

/**
 * Collects every request the page makes outside `origin`: a page of ours must work on a closed
 * network. data: and blob: URLs (inline assets, web workers) stay in the page.
 */
export function recordOutsideRequests(page: Page, origin: string): string[] {
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !/^(data|blob):/.test(request.url())) outside.push(request.url());
  });
  return outside;
}

/** Where browser tests keep what they saw (git-ignored): test-artifacts/<folder>/<name>.png. */
const ARTIFACTS_DIR = join(fileURLToPath(new URL('../..', import.meta.url)), 'test-artifacts');

/**
 * A full-page screenshot kept as a test artifact (its path returned) when TEST_SCREENSHOTS=1
 * (`TEST_SCREENSHOTS=1 npx vitest run test/e2e/*.browser.test.ts`); otherwise nothing. Nothing
 * asserts on them, and full-page shots cost Chromium about 10 CPU-seconds in two of the browser
 * files alone (measured back to back), which a full run on two cores pays for pictures nobody opens.
 */
export async function saveScreenshot(page: Page, folder: string, name: string): Promise<string | undefined> {
  if (process.env.TEST_SCREENSHOTS !== '1') return undefined;
  const path = join(ARTIFACTS_DIR, folder, `${name}.png`);
  await mkdir(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface PhoneOptions {
  /** The browser's language (its Accept-Language). */
  locale?: string;
  /** false: a browser with JavaScript turned off. */
  javaScriptEnabled?: boolean;
}

/** A small phone: 360 CSS px wide, touch, in its own context (close the context after). */
export async function newPhonePage(browser: Browser, options: PhoneOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    locale: options.locale ?? 'fr-SN',
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  return { context, page: await context.newPage() };
}
