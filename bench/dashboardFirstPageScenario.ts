/**
 * The dashboard's first page in a real browser (issue 31: "shown in under a second"), timed here
 * rather than in the test suite, whose files share the machine (the suite checks what the page
 * asks for; docs/development.md). Each load is a new Chromium context (an empty cache) on a
 * 360 px phone, French, timed by the browser from the start of the navigation to the sign-in
 * form on screen (`main h1`).
 *
 * The floor is the same page with no server work: the shell, bundle and stylesheet the gateway
 * served, byte for byte, and the session check's 401, from a bare node:http server in the bench's
 * process. What the gateway adds to the floor is its own; the rest is the browser's.
 * Loads take turns (floor, gateway) so that both meet the same machine. Target: p50 <= 1 s.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { comparedWithFloor, sequentialFigures } from './load.js';
import type { BacklogContext, BacklogScenario, Figures, Row } from './shapes.js';

export interface DashboardFirstPageScenarioOptions {
  name: string;
  /** Timed loads of each side (after WARM_UP_LOADS untimed ones). */
  loads: number;
  /** The target on the gateway's median load (ms). */
  maxP50Ms: number;
}

const WARM_UP_LOADS = 2;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Asset {
  status: number;
  type: string;
  body: Buffer;
}

/** What the first page fetches from the gateway, exactly as the gateway serves it. */
async function firstPageAssets(gatewayUrl: string): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  const take = async (path: string) => {
    const response = await fetch(`${gatewayUrl}${path}`, { headers: { 'accept-language': 'fr-SN' } });
    assets.set(path, { status: response.status, type: response.headers.get('content-type') ?? 'text/plain', body: Buffer.from(await response.arrayBuffer()) });
  };
  await take('/dashboard');
  const html = assets.get('/dashboard')!.body.toString('utf8');
  const linked = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  if (linked.length === 0) throw new Error('the dashboard shell links no asset');
  for (const path of linked) await take(path);
  await take('/dashboard/auth/session');
  return assets;
}

/** The floor: the same bytes from a server that does nothing else (every /dashboard route is the one shell, as on the gateway). */
async function startFloor(assets: Map<string, Asset>): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://floor').pathname;
    const asset = assets.get(path.startsWith('/dashboard/assets/') || path === '/dashboard/auth/session' ? path : '/dashboard');
    if (!asset) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(asset.status, { 'content-type': asset.type, 'content-length': asset.body.length }).end(asset.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** One cold load: a new context, the navigation, the form on screen (ms, by the browser's clock). */
async function coldLoad(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, locale: 'fr-SN' });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      new MutationObserver((_changes, observer) => {
        if (!document.querySelector('main h1')) return;
        (window as unknown as { shownAt: number }).shownAt = performance.now();
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${url}/dashboard`);
    await page.locator('main h1').waitFor({ timeout: 10_000 });
    return await page.evaluate(() => (window as unknown as { shownAt: number }).shownAt);
  } finally {
    await context.close();
  }
}

const figuresOf = (durations: number[]): Figures => sequentialFigures(durations, { failedAnswers: 0, statusCodes: {}, cpuMsPerRequest: null });

export function dashboardFirstPageScenario(options: DashboardFirstPageScenarioOptions): BacklogScenario {
  const floorName = 'the same bytes from a bare node:http server';
  return {
    kind: 'backlog',
    name: options.name,
    target: { kind: 'p99', maxMs: options.maxP50Ms },
    budgetMs: 120_000,
    async run({ servers, log }: BacklogContext): Promise<Row> {
      const gateway = await servers.get('gateway');
      const floor = await startFloor(await firstPageAssets(gateway.url));
      const browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      try {
        const floorLoads: number[] = [];
        const gatewayLoads: number[] = [];
        for (let load = 0; load < WARM_UP_LOADS + options.loads; load++) {
          const onFloor = await coldLoad(browser, floor.url);
          const onGateway = await coldLoad(browser, gateway.url);
          if (load < WARM_UP_LOADS) continue;
          floorLoads.push(onFloor);
          gatewayLoads.push(onGateway);
        }
        const floorFigures = figuresOf(floorLoads);
        const gatewayFigures = figuresOf(gatewayLoads);
        log(
          `  baseline ${floorName}: p50 ${floorFigures.p50} ms, slowest ${floorFigures.p99} ms; gateway: p50 ${gatewayFigures.p50} ms, slowest ${gatewayFigures.p99} ms (${options.loads} cold loads each)`,
        );
        return {
          scenario: options.name,
          baseline: floorName,
          gateway: gatewayFigures,
          floor: floorFigures,
          ...comparedWithFloor(gatewayFigures, floorFigures),
          target: `p50 <=${options.maxP50Ms} ms`,
          met: gatewayFigures.p50 <= options.maxP50Ms,
        };
      } finally {
        await browser.close();
        await new Promise((resolve) => floor.server.close(resolve));
      }
    },
  };
}
