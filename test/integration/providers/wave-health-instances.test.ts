/**
 * Issue 28 item 5 with two instances of one deployment (two in-process gateways, one PostgreSQL
 * database, each with its own Wave connector, both against one Wave simulator): what one instance
 * learnt of Wave's health (unreachable for longer than the health period; the key revoked) is shared
 * through PostgreSQL by the health job (`shareProviderHealth`, every 10 s in a running gateway; called
 * here), so operators asking the OTHER instance see it (GraphQL `providerStatus`, `gateway provider
 * status`, /healthz, /metrics), and the other instance's checkout keeps customers out of Wave without
 * calling it; any instance's later definite answer clears it, and the report of an instance that
 * stopped reporting no longer counts. The health period runs on the connectors' injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shareProviderHealth } from '../../../src/domain/providerCalls/providerHealth.js';
import { createProviderTransport } from '../../../src/infra/providers/transport.js';
import { createWaveProvider } from '../../../src/infra/providers/wave.js';
import { runCli } from '../../support/cli.js';
import { startGateway, transactionBody, type TestGateway } from '../../support/gateway.js';
import { expectPayout, fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { throughTlsProxy } from '../../support/providers/wave.js';
import { startWaveSimulator, type WaveSimulator } from '../../support/providers/waveSimulator.js';

const HEALTH_PERIOD_MS = 30_000;
let clockMs = Date.now();
let wave: WaveSimulator;
let first: TestGateway;
let second: TestGateway;

/** One instance: its own Wave connector (its own transport and health), the checkout on https. */
async function instance(sharedDatabaseUrl?: string): Promise<TestGateway> {
  const connector = createWaveProvider({
    apiKey: wave.apiKey,
    apiUrl: wave.url,
    webhookSecret: wave.webhookSecret,
    transport: createProviderTransport({ now: () => clockMs }),
  });
  const gateway = await startGateway({ metrics: true, providers: { wave: connector }, ...(sharedDatabaseUrl && { sharedDatabaseUrl }) });
  gateway.ctx.settings.checkoutPublicUrl = gateway.checkoutUrl.replace(/^http:/, 'https:');
  return gateway;
}

beforeAll(async () => {
  wave = await startWaveSimulator();
  first = await instance();
  second = await instance(first.databaseUrl);
  wave.webhookUrl = `${first.url}/providers/wave/webhook`;
}, 60_000);

afterAll(async () => {
  await second?.close();
  await first?.close();
  await wave?.close();
});

const tokenOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A customer on `gateway`'s checkout chooses Wave: the page's status and HTML. */
async function chooseWave(gateway: TestGateway, key: string): Promise<{ status: number; html: string }> {
  const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ method_of_payment: ['wave', 'orange_money'] }) });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const url = throughTlsProxy(created.body.checkout_url);
  const page = await (await fetch(url)).text();
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
    body: new URLSearchParams({ csrf_token: tokenOf(page), method: 'wave', phone: '+221771234567' }).toString(),
  });
  return { status: response.status, html: await response.text() };
}

/** What an operator asking `gateway` sees of Wave, on every surface. */
async function operatorViews(gateway: TestGateway) {
  const cli = await runCli(gateway, ['provider', 'status']);
  expect(cli.code).toBe(0);
  const graphql = await gateway.graphql('{ providerStatus { method provider healthy reason } }', {}, gateway.adminToken);
  expect(graphql.body.errors, JSON.stringify(graphql.body.errors)).toBeUndefined();
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  const healthz = await (await fetch(`${gateway.url}/healthz`)).json();
  const waveOf = (list: Array<{ method: string }>) => list.find((status) => status.method === 'wave');
  return {
    cli: waveOf(cli.json.providers),
    graphql: waveOf(graphql.body.data.providerStatus),
    metric: /gateway_provider_healthy\{method="wave",provider="wave"\} (\d)/.exec(metrics)?.[1],
    healthz: waveOf(healthz.providers),
  };
}

describe("Wave's health, shared by the instances of one deployment", () => {
  it('an outage one instance met is seen on the other, whose checkout keeps customers out of Wave; a later answer anywhere clears it', async () => {
    const merchant = await first.merchant({ scope: 'readAndWrite' });
    // Wave's port closes; the first instance's customers meet it twice, longer apart than the health period.
    await wave.stopAnswering('closed');
    expect((await chooseWave(first, merchant.key)).status).not.toBe(200);
    clockMs += HEALTH_PERIOD_MS + 1_000;
    expect((await chooseWave(first, merchant.key)).status).not.toBe(200);
    const reason = expect.stringMatching(/has not answered since .* \(2 calls without an answer\)/);
    expect((await operatorViews(first)).graphql).toEqual({ method: 'wave', provider: 'wave', healthy: false, reason });
    // The second instance made no call: before the first shares what it saw, it knows nothing.
    expect((await operatorViews(second)).graphql).toMatchObject({ healthy: true });

    await shareProviderHealth(first.ctx);
    await shareProviderHealth(second.ctx);
    const seen = await operatorViews(second);
    expect(seen.cli).toEqual({ method: 'wave', provider: 'wave', healthy: false, reason });
    expect(seen.graphql).toEqual({ method: 'wave', provider: 'wave', healthy: false, reason });
    expect(seen.metric).toBe('0');
    expect(seen.healthz).toEqual({ method: 'wave', provider: 'wave', healthy: false });

    // Wave answers again, but no instance knows yet: the second's checkout still sends nobody to it.
    await wave.answerAgain();
    const callsBefore = wave.calls.length;
    const refused = await chooseWave(second, merchant.key);
    expect(refused.status).toBe(503);
    expect(refused.html).toMatch(/temporarily unavailable/);
    expect(refused.html).toMatch(/value="orange_money"/);
    expect(wave.calls.length).toBe(callsBefore);

    // The first instance gets a definite answer (a payout): shared, it clears the outage on the second too.
    const { key } = await fundedMerchant(first, { balance: 50_000 });
    expectPayout(await postPayout(first, key, payoutBody({ amount: 2_000 })), 'completed');
    await shareProviderHealth(first.ctx);
    await shareProviderHealth(second.ctx);
    expect(await operatorViews(second)).toMatchObject({ cli: { healthy: true, reason: '' }, metric: '1', healthz: { healthy: true } });
    expect((await chooseWave(second, merchant.key)).status).toBe(200);
  });

  it('a revoked key one instance met is said on the other at its next share, and an instance that stopped reporting no longer counts', async () => {
    const { key } = await fundedMerchant(first, { balance: 50_000 });
    wave.revokeKey();
    const refused = await postPayout(first, key, payoutBody({ amount: 2_000 }));
    expect(refused.status).toBe(500);
    await shareProviderHealth(first.ctx);
    await shareProviderHealth(second.ctx);
    const seen = await operatorViews(second);
    expect(seen.graphql).toEqual({
      method: 'wave',
      provider: 'wave',
      healthy: false,
      reason: expect.stringMatching(/refuses the gateway's credentials \(HTTP 401\)/),
    });
    expect(seen.healthz).toMatchObject({ healthy: false });
    const merchant = await second.merchant({ scope: 'checkout' });
    expect((await chooseWave(second, merchant.key)).status).toBe(503);

    // The first instance stops (its reports age): past a minute its view is no longer counted.
    await second.ctx.db.providerHealthReport.updateMany({ where: {}, data: { reportedAt: new Date(Date.now() - 120_000) } });
    await shareProviderHealth(second.ctx);
    expect((await operatorViews(second)).graphql).toMatchObject({ healthy: true });
  });
});
