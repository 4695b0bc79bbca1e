/**
 * A real browser for end-to-end tests: Debian's Chromium driven by playwright-core (test tools
 * cannot download their own browsers here). Flags keep it from calling out to the network.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startGateway, type TestGateway } from './gateway.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface BrowserSession {
  gateway: TestGateway;
  browser: Browser;
}

/** A gateway and a browser for the whole test file, both closed after it. */
export function useGatewayWithBrowser(): BrowserSession {
  const session = {} as BrowserSession;
  beforeAll(async () => {
    [session.gateway, session.browser] = await Promise.all([startGateway(), launchBrowser()]);
  });
  afterAll(async () => {
    await session.browser?.close();
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
