/**
 * Issue 28 item 5 against a real gateway and the Wave simulator: Wave stops answering (its port
 * closed, then calls that hang) for longer than the health period while customers and merchants
 * keep calling; operators see it down with a reason (`gateway provider status`, GraphQL
 * `providerStatus`, /metrics, /healthz), the checkout does not send a customer into Wave, and once
 * Wave answers again the next definite answer makes it healthy. The merchant's dashboard home lists
 * the method under "what needs attention" from the same signal (issue 30 item 2). The health period (30 s in
 * src/infra/providers/providerHealth.ts) runs on the transport's injected clock: no real waiting.
 */
import { describe, expect, it } from 'vitest';
import { createProviderTransport } from '../../../src/infra/providers/transport.js';
import { runCli } from '../../support/cli.js';
import { signedIn } from '../../support/dashboard.js';
import { transactionBody } from '../../support/gateway.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { expectPayout, fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { throughTlsProxy, useWaveGateway } from '../../support/providers/wave.js';

let clockMs = Date.now();
const setup = useWaveGateway({ metrics: true }, {}, { transport: createProviderTransport({ now: () => clockMs }) });

const HEALTH_PERIOD_MS = 30_000;
const tokenOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** The customer chooses Wave on the checkout page; the page's status and HTML. */
async function chooseWave(checkoutUrl: string): Promise<{ status: number; html: string }> {
  const page = await (await fetch(throughTlsProxy(checkoutUrl))).text();
  const response = await fetch(throughTlsProxy(checkoutUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
    body: new URLSearchParams({ csrf_token: tokenOf(page), method: 'wave', phone: '+221771234567' }).toString(),
  });
  return { status: response.status, html: await response.text() };
}

async function newCheckout(key: string): Promise<string> {
  const created = await setup.gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({ method_of_payment: ['wave', 'orange_money'] }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.checkout_url;
}

const HOME = '{ merchantHome { capabilities { capability usable blockedBy } } }';

/** What operators see of Wave now. */
async function operatorViews() {
  const cli = await runCli(setup.gateway, ['provider', 'status']);
  expect(cli.code).toBe(0);
  const graphql = await setup.gateway.graphql('{ providerStatus { method provider healthy reason } }', {}, setup.gateway.adminToken);
  expect(graphql.body.errors, JSON.stringify(graphql.body.errors)).toBeUndefined();
  const metrics = await (await fetch(`${setup.gateway.url}/metrics`)).text();
  const healthz = await (await fetch(`${setup.gateway.url}/healthz`)).json();
  const waveOf = (list: Array<{ method: string }>) => list.find((status) => status.method === 'wave');
  return {
    cli: waveOf(cli.json.providers),
    graphql: waveOf(graphql.body.data.providerStatus),
    metric: /gateway_provider_healthy\{method="wave",provider="wave"\} (\d)/.exec(metrics)?.[1],
    healthz: waveOf(healthz.providers),
  };
}

describe('Wave unreachable for longer than the health period', () => {
  it('is shown down with its reason, keeps customers out of Wave, and is healthy again once Wave answers', async () => {
    const merchant = await setup.gateway.merchant({ name: 'Boutique Coupure', scope: 'readAndWrite' });
    const owner = await signedIn(setup.gateway, merchant.organization.id, 'owner');
    const homeSays = async () => (await owner.data(HOME)).merchantHome.capabilities;
    expect(await homeSays()).toContainEqual({ capability: 'wave', usable: true, blockedBy: null });
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    expect((await operatorViews()).metric).toBe('1');

    // Wave's port is closed: a customer's choice of Wave gets no answer (nothing was sent).
    await setup.wave.stopAnswering('closed');
    const first = await chooseWave(await newCheckout(merchant.key));
    expect(first.status).not.toBe(200);
    expect(first.html).not.toContain('/c/cos-');
    // One blip is not an outage.
    expect((await operatorViews()).cli).toMatchObject({ healthy: true, reason: '' });

    // Then Wave takes calls and never answers; past the health period a payout hangs too.
    await setup.wave.stopAnswering('hanging');
    clockMs += HEALTH_PERIOD_MS + 1_000;
    setup.gateway.ctx.settings.providerTimeoutMs = 300;
    let stranded: { order_id: string };
    try {
      stranded = expectPayout(await postPayout(setup.gateway, key, payoutBody({ amount: 4_000 })), 'pending');
    } finally {
      setup.gateway.ctx.settings.providerTimeoutMs = undefined;
    }

    const down = await operatorViews();
    const reason = expect.stringMatching(/has not answered since .* \(2 calls without an answer\)/);
    expect(down.cli).toEqual({ method: 'wave', provider: 'wave', healthy: false, reason });
    expect(down.graphql).toEqual({ method: 'wave', provider: 'wave', healthy: false, reason });
    expect(down.metric).toBe('0');
    expect(down.healthz).toEqual({ method: 'wave', provider: 'wave', healthy: false });
    // The merchant's home says it too, under what needs attention; Orange Money is still usable.
    expect(await homeSays()).toEqual(
      expect.arrayContaining([
        { capability: 'wave', usable: false, blockedBy: 'provider_down' },
        { capability: 'orange_money', usable: true, blockedBy: null },
      ]),
    );

    // The checkout does not send the next customer into Wave: it says so and offers the other method.
    const callsBefore = setup.wave.calls.length;
    const refused = await chooseWave(await newCheckout(merchant.key));
    expect(refused.status).toBe(503);
    expect(refused.html).toMatch(/temporarily unavailable|temporairement indisponible/);
    expect(refused.html).toMatch(/value="orange_money"/);
    expect(setup.wave.calls.length).toBe(callsBefore);

    // Wave answers again: the stranded payout is resumed under its key, and that answer clears the outage.
    await setup.wave.answerAgain();
    await settlePendingPayouts(setup.gateway.ctx, { olderThanMs: 0 });
    expect((await setup.gateway.rest('GET', `/api/v2/payouts/${stranded!.order_id}`, { key })).body.payout_status).toBe('completed');
    const back = await operatorViews();
    expect(back.cli).toEqual({ method: 'wave', provider: 'wave', healthy: true, reason: '' });
    expect(back.graphql).toMatchObject({ healthy: true, reason: '' });
    expect(back.metric).toBe('1');
    expect(back.healthz).toMatchObject({ healthy: true });
    expect(await homeSays()).toContainEqual({ capability: 'wave', usable: true, blockedBy: null });
    expect((await chooseWave(await newCheckout(merchant.key))).status).toBe(200);
  });
});
