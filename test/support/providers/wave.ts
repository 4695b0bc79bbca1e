/** A test gateway whose `wave` method is served by the real Wave connector talking to the Wave simulator. */
import { afterAll, beforeAll, expect } from 'vitest';
import { createWaveProvider, type WaveOptions } from '../../../src/infra/providers/wave.js';
import { startGateway, transactionBody, type GatewayOptions, type TestGateway } from '../gateway.js';
import { ReconcileProviderDocument } from '../graphql/generated.js';
import { graphqlTyped } from '../graphql/typed.js';
import { startWaveSimulator, type WaveSimulator, type WaveSimulatorOptions } from './waveSimulator.js';

export interface WaveSetup {
  gateway: TestGateway;
  wave: WaveSimulator;
}

/** What a test may change in the Wave connector (e.g. a transport whose health clock it drives). */
type ConnectorOptions = Pick<WaveOptions, 'transport'>;

/**
 * The checkout's public address as Wave needs it (docs.wave.com/checkout: https only), for a
 * gateway that listens on http on 127.0.0.1: as in production behind a TLS-terminating proxy.
 */
const httpsPublicAddress = (plainUrl: string): string => plainUrl.replace(/^http:\/\/127\.0\.0\.1:/, 'https://127.0.0.1:');

/**
 * The test's TLS-terminating proxy: a gateway's public https address on 127.0.0.1 (checkout_url,
 * the return page Wave sends the customer to) reached on the http port the gateway listens on.
 */
export const throughTlsProxy = (url: string): string => url.replace(/^https:\/\/127\.0\.0\.1:/, 'http://127.0.0.1:');

/**
 * Starts the simulator, then a gateway whose Wave provider points at it and whose checkout's public
 * address is https (what Wave accepts), and tells the simulator where webhooks go.
 */
async function startWaveGateway(options: GatewayOptions = {}, simulator: WaveSimulatorOptions = {}, connector: ConnectorOptions = {}): Promise<WaveSetup> {
  const wave = await startWaveSimulator(simulator);
  const gateway = await startGateway({
    ...options,
    providers: { wave: createWaveProvider({ apiKey: wave.apiKey, apiUrl: wave.url, webhookSecret: wave.webhookSecret, ...connector }) },
  });
  gateway.ctx.settings.checkoutPublicUrl = httpsPublicAddress(gateway.checkoutUrl);
  wave.webhookUrl = `${gateway.url}/providers/wave/webhook`;
  return { gateway, wave };
}

/** One setup per test file (like useGateway). */
export function useWaveGateway(options: GatewayOptions = {}, simulator: WaveSimulatorOptions = {}, connector: ConnectorOptions = {}): WaveSetup {
  let current: WaveSetup | undefined;
  beforeAll(async () => {
    current = await startWaveGateway(options, simulator, connector);
  }, 60_000);
  afterAll(async () => {
    await current?.gateway.close();
    await current?.wave.close();
  });
  return {
    get gateway() {
      return current!.gateway;
    },
    get wave() {
      return current!.wave;
    },
  };
}

const tokenOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A v2 transaction offering Wave; its checkout URL and order id. */
export async function waveTransaction(
  gateway: TestGateway,
  key: string,
  overrides: Record<string, unknown> = {},
): Promise<{ orderId: string; checkoutUrl: string }> {
  const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ method_of_payment: ['wave'], ...overrides }) });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { orderId: created.body.order_id, checkoutUrl: created.body.checkout_url };
}

/**
 * The customer chooses Wave on the checkout page: the page answers with the way to Wave (the
 * session's launch URL). Returns that URL and the session the simulator holds for it.
 */
export async function startWaveCheckout(setup: WaveSetup, checkoutUrl: string, phone = '+221771234567') {
  const page = await (await fetch(throughTlsProxy(checkoutUrl))).text();
  const response = await fetch(throughTlsProxy(checkoutUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: tokenOf(page), method: 'wave', phone }).toString(),
  });
  const html = await response.text();
  expect(response.status, html).toBe(200);
  const launchUrl = /<a class="button" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&') ?? '';
  expect(launchUrl).toMatch(new RegExp(`^${setup.wave.url}/c/cos-`));
  const session = setup.wave.sessions.get(launchUrl.split('/c/')[1]!)!;
  expect(session).toBeDefined();
  return { launchUrl, session };
}

/** Where Wave sends the customer back (the session's success_url or error_url), followed once. */
export async function returnFromWave(url: string): Promise<{ status: number; location: string | null; html: string }> {
  const response = await fetch(throughTlsProxy(url), { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** The gateway's reconciliation of Wave over the last hour, through GraphQL as the CLI asks it. */
export async function reconcileWave(gateway: TestGateway): Promise<{ matched: number; discrepancyCount: number; discrepancies: unknown[] }> {
  const now = Date.now();
  const answer = await graphqlTyped(
    gateway,
    ReconcileProviderDocument,
    { method: 'wave', from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 60_000).toISOString() },
    gateway.adminToken,
  );
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data!.reconcileProvider;
}

/** The ledger and the simulator's books agree: no difference for the last hour. */
export async function expectWaveAgrees(gateway: TestGateway): Promise<void> {
  const report = await reconcileWave(gateway);
  expect(report.discrepancies).toEqual([]);
}
