/**
 * The Wave connector's edges against the simulator: configuration from the environment (nothing
 * set = the sandbox), the simulator's own strictness (bearer key, idempotency keys), Wave's
 * shared-secret webhook strategy, and no credential nor phone number in any log line.
 */
import { describe, expect, it } from 'vitest';
import { providersFromEnv } from '../../../src/infra/providers/fromEnv.js';
import { StartupError } from '../../../src/infra/startupErrors.js';
import { createWaveProvider } from '../../../src/infra/providers/wave.js';
import { expectPayout, fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { withProvider } from '../../support/provider.js';
import { expectWaveAgrees, startWaveCheckout, throughTlsProxy, useWaveGateway, waveTransaction } from '../../support/providers/wave.js';

const lines: string[] = [];
const log = {
  info: (obj: object, msg?: string) =>
    void lines.push(
      JSON.stringify({ ...obj, msg }, (_key, value) =>
        value instanceof Error ? { message: value.message, name: value.name } : typeof value === 'bigint' ? String(value) : value,
      ),
    ),
  warn: (obj: object, msg?: string) => log.info(obj, msg),
  error: (obj: object, msg?: string) => log.info(obj, msg),
};
const setup = useWaveGateway({ log });

describe('Wave settings', () => {
  it('nothing set: no real provider (the sandbox serves wave); WAVE_API_KEY enables it; a bad WAVE_API_URL stops the start', () => {
    const https = { CHECKOUT_PUBLIC_URL: 'https://pay.example.sn' };
    expect(providersFromEnv({})).toEqual({});
    expect(Object.keys(providersFromEnv({ WAVE_API_KEY: 'k', ...https }))).toEqual(['wave']);
    expect(() => providersFromEnv({ WAVE_API_KEY: 'k', WAVE_API_URL: 'ftp://api.wave.com', ...https })).toThrow(StartupError);
    expect(() => providersFromEnv({ WAVE_API_KEY: 'k', WAVE_API_URL: 'https://user:pw@api.wave.com', ...https })).toThrow(StartupError);
    expect(() => providersFromEnv({ WAVE_API_KEY: 'k', WAVE_API_URL: 'not a url', ...https })).toThrow(/WAVE_API_URL/);
  });

  it('stops the start when the checkout is not on https: Wave sends customers back to https addresses only (docs.wave.com/checkout)', () => {
    expect(() => providersFromEnv({ WAVE_API_KEY: 'k' })).toThrow(/CHECKOUT_PUBLIC_URL .*https/);
    expect(() => providersFromEnv({ WAVE_API_KEY: 'k', CHECKOUT_PUBLIC_URL: 'http://pay.example.sn' })).toThrow(StartupError);
  });
});

describe('the Wave simulator, as strict as Wave', () => {
  it('refuses a wrong bearer key (401), so a payout sent with one fails without moving money', async () => {
    const direct = await fetch(`${setup.wave.url}/v1/balance`, { headers: { authorization: 'Bearer wave_sn_prod_wrong' } });
    expect(direct.status).toBe(401);
    expect(await direct.json()).toMatchObject({ code: 'invalid-auth' });
    const { key } = await fundedMerchant(setup.gateway, { balance: 50_000 });
    const wrongKey = createWaveProvider({ apiKey: 'wave_sn_prod_wrong', apiUrl: setup.wave.url });
    const refused = await withProvider(setup.gateway, wrongKey, () => postPayout(setup.gateway, key, payoutBody({ amount: 2_000 })));
    expect(refused.status).toBe(500);
    await expectWaveAgrees(setup.gateway);
  });

  it('refunds a session once however often the refund is sent, whatever its Idempotency-Key (idempotent on the session, docs.wave.com/checkout)', async () => {
    const line = setup.wave.bookForeignCheckout(1_000n);
    const sessionId = line.checkout_api_session_id!;
    const refund = (key?: string) =>
      fetch(`${setup.wave.url}/v1/checkout/sessions/${sessionId}/refund`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.wave.apiKey}`, ...(key && { 'idempotency-key': key }) },
      });
    const answers = [await refund('first'), await refund('second'), await refund()];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(await answers[0]!.text()).toBe('');
    expect(setup.wave.linesOf(sessionId).map((item) => item.transaction_type)).toEqual(['api_checkout', 'api_checkout_refund']);
    // (Made outside the gateway: the simulator's books drop them again.)
    for (const item of setup.wave.linesOf(sessionId)) setup.wave.removeLine(item.transaction_id);
    setup.wave.sessions.delete(sessionId);
  });

  it('refuses a checkout session whose return URLs are not https, and a payout mobile that is not one of a country Wave pays XOF to (E.164, per country)', async () => {
    const post = (path: string, body: object, key = `direct-${Math.random()}`) =>
      fetch(`${setup.wave.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.wave.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    const session = { amount: '1000', currency: 'XOF', success_url: 'https://shop.example.sn/ok', error_url: 'https://shop.example.sn/ko' };
    const sessionsBefore = setup.wave.sessions.size;
    for (const bad of [{ success_url: 'http://shop.example.sn/ok' }, { error_url: 'http://shop.example.sn/ko' }, { success_url: 'shop.example.sn' }]) {
      const refused = await post('/v1/checkout/sessions', { ...session, ...bad });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: 'request-validation-error' });
    }
    expect(setup.wave.sessions.size).toBe(sessionsBefore);
    const payoutsBefore = setup.wave.payouts.size;
    for (const mobile of ['221770000001', '+22177000000', '+2217700000011', '+221330000001', '+22507000000', '+22512345678', '+256771234567', '+33612345678']) {
      const refused = await post('/v1/payout', { currency: 'XOF', receive_amount: '1000', mobile });
      expect(refused.status, mobile).toBe(400);
      expect(await refused.json()).toMatchObject({ code: 'request-validation-error' });
    }
    expect(setup.wave.payouts.size).toBe(payoutsBefore);
  });

  it('answers the same idempotency key and body with the first answer, and refuses it with another body (409 idempotency-mismatch)', async () => {
    const send = (body: object) =>
      fetch(`${setup.wave.url}/v1/payout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.wave.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'direct-1' },
        body: JSON.stringify(body),
      });
    const body = { currency: 'XOF', receive_amount: '1000', mobile: '+221770000001' };
    const first = await (await send(body)).json();
    const again = await (await send(body)).json();
    expect(again.id).toBe(first.id);
    const other = await send({ ...body, receive_amount: '2000' });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ code: 'idempotency-mismatch' });
    const missingKey = await fetch(`${setup.wave.url}/v1/payout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.wave.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(missingKey.status).toBe(400);
    // (Sent outside the gateway: the simulator's books now hold a payout the ledger does not.)
    setup.wave.payouts.delete(first.id);
    setup.wave.history.splice(
      setup.wave.history.findIndex((item) => item.client_reference === null && item.transaction_type === 'api_payout'),
      1,
    );
  });

  it('settles a webhook sent with the shared-secret strategy (Authorization: Bearer <secret>)', async () => {
    const { key } = await setup.gateway.merchant();
    const { orderId, checkoutUrl } = await waveTransaction(setup.gateway, key);
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    setup.wave.webhookStrategy = 'shared-secret';
    try {
      await setup.wave.completeSession(session.id);
    } finally {
      setup.wave.webhookStrategy = 'signature';
    }
    expect(setup.wave.webhooksSent.at(-1)?.status).toBe(200);
    expect((await setup.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body.transaction_status).toBe('paid');
  });
});

describe('what the connector sends Wave', () => {
  it('the return page on https only: with an http CHECKOUT_PUBLIC_URL the customer is not sent to Wave and nothing is sent', async () => {
    const { key } = await setup.gateway.merchant();
    const { checkoutUrl } = await waveTransaction(setup.gateway, key);
    const https = setup.gateway.ctx.settings.checkoutPublicUrl;
    setup.gateway.ctx.settings.checkoutPublicUrl = setup.gateway.checkoutUrl;
    const before = setup.wave.calls.length;
    try {
      const page = await (await fetch(throughTlsProxy(checkoutUrl))).text();
      const chosen = await fetch(throughTlsProxy(checkoutUrl), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? '', method: 'wave', phone: '+221771234567' }).toString(),
      });
      expect(chosen.status).not.toBe(200);
      expect(await chosen.text()).not.toContain('/c/cos-');
    } finally {
      setup.gateway.ctx.settings.checkoutPublicUrl = https;
    }
    expect(setup.wave.calls.slice(before).filter((call) => call.path === '/v1/checkout/sessions')).toEqual([]);
  });

  it("payouts only to mobiles Wave pays XOF to: another country's or a malformed number fails with a reason, funds back, nothing sent; Côte d'Ivoire's ten digits go", async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    const sent = () => setup.wave.calls.filter((call) => call.path === '/v1/payout').length;
    const before = sent();
    // Senegal's eight digits, a Dakar fixed line, Uganda (Wave, not XOF), Côte d'Ivoire's old eight digits.
    for (const phone of ['+22177123456', '+221331234567', '+256771234567', '+22507123456']) {
      const refused = await postPayout(setup.gateway, key, payoutBody({ amount: 1_000, recipient: { first_name: 'A', last_name: 'B', phone } }));
      expect(refused.status, phone).toBe(500);
      expect(refused.body.error, phone).toMatch(/Failed to withdraw.*wave: (this is not a mobile number of|Wave pays XOF out only to)/);
    }
    expect(sent()).toBe(before);
    expectPayout(
      await postPayout(setup.gateway, key, payoutBody({ amount: 1_000, recipient: { first_name: 'A', last_name: 'B', phone: '+2250712345678' } })),
      'completed',
    );
    expect(sent()).toBe(before + 1);
    await expectWaveAgrees(setup.gateway);
  });
});

describe('logs', () => {
  it('never carry the API key, the webhook secret nor a phone number, whatever failed', async () => {
    const { key } = await fundedMerchant(setup.gateway, { balance: 100_000 });
    // Wave's message echoing the mobile: its words reach the error the flow logs, masked.
    setup.wave.failNext(/^POST \/v1\/payout$/, 500, 'internal-server-error', 'could not pay +221776543210');
    setup.gateway.ctx.settings.providerTimeoutMs = 800;
    setup.wave.loseNextAnswer(/^GET \/v1\/payouts\/search/);
    try {
      expectPayout(
        await postPayout(setup.gateway, key, payoutBody({ amount: 1_500, recipient: { first_name: 'A', last_name: 'B', phone: '+221776543210' } })),
        'pending',
      );
      const { settlePendingPayouts } = await import('../../../src/domain/payouts/payouts.js');
      await settlePendingPayouts(setup.gateway.ctx, { olderThanMs: 0 });
    } finally {
      setup.gateway.ctx.settings.providerTimeoutMs = undefined;
    }
    const forged = await fetch(setup.wave.webhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer guess' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    expect(lines.length).toBeGreaterThan(2);
    const all = lines.join('\n');
    expect(all).not.toContain(setup.wave.apiKey);
    expect(all).not.toContain(setup.wave.webhookSecret);
    expect(all).not.toMatch(/776543210|771234567/);
  });
});
