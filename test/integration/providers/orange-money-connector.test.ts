/**
 * The Orange Money connector against the Orange Money simulator, over real HTTP: tokens (expiry,
 * one refresh shared by concurrent calls, once on a 401), collection confirmed by a signed callback,
 * duplicate / forged / replayed callbacks, payouts whose answer is lost reconciled by a status
 * question (never sent again), refunds as cash ins to the wallet that paid, and the history.
 */
import { constants, publicEncrypt, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotificationRejected, ProviderUnavailable, type InboundNotification } from '../../../src/domain/ports.js';
import { createOrangeMoneyProvider, type OrangeMoneySettings } from '../../../src/infra/providers/orangeMoney.js';
import { orangeMoneyAccessToken } from '../../support/providers/orangeMoney.js';
import { signOrangeMoneyNotification, startOrangeMoneySimulator, type OrangeMoneySimulator } from '../../support/providers/orangeMoneySimulator.js';
import { eventually, startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../support/webhookReceiver.js';

const CALLBACK_PATH = '/providers/orange_money/callback';
const CALLBACK_API_KEY = 'registered-api-key-for-tests';

let simulator: OrangeMoneySimulator;
let receiver: WebhookReceiver;

function settingsFor(sim: OrangeMoneySimulator, overrides: Partial<OrangeMoneySettings> = {}): OrangeMoneySettings {
  return {
    apiUrl: sim.url,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    merchantCode: sim.merchantCode,
    merchantName: 'Boutique de test',
    partner: { msisdn: sim.partnerMsisdn, pin: sim.partnerPin },
    webhookSecret: sim.webhookSecret,
    callbackApiKey: CALLBACK_API_KEY,
    qrValiditySeconds: 600,
    timeoutMs: 2_000,
    ...overrides,
  };
}

const inbound = (webhook: ReceivedWebhook): InboundNotification => ({ headers: webhook.headers, rawBody: webhook.raw });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  simulator = await startOrangeMoneySimulator({
    callback: { url: `${receiver.url}${CALLBACK_PATH}`, apiKey: CALLBACK_API_KEY },
    notificationRetryDelaysMs: [50, 100],
  });
});

afterEach(() => simulator.clearFaults());

afterAll(async () => {
  await simulator.close();
  await receiver.close();
});

describe('access tokens', () => {
  it('fetches one token for many calls, and a new one shortly before it expires', async () => {
    const sim = await startOrangeMoneySimulator({ tokenTtlSeconds: 2 });
    try {
      const provider = createOrangeMoneyProvider(settingsFor(sim));
      await provider.payoutStatus(randomUUID());
      await provider.payoutStatus(randomUUID());
      expect(sim.tokensIssued()).toBe(1);
      // Refreshed 20 % of its life early: at 1.7 s of 2 s a call no longer carries the old one.
      await new Promise((resolve) => setTimeout(resolve, 1_700));
      await provider.payoutStatus(randomUUID());
      expect(sim.tokensIssued()).toBe(2);
      expect(sim.calls.transactions).toBe(3);
    } finally {
      await sim.close();
    }
  });

  it('shares one refresh among concurrent calls', async () => {
    const sim = await startOrangeMoneySimulator();
    try {
      const provider = createOrangeMoneyProvider(settingsFor(sim));
      await Promise.all(Array.from({ length: 8 }, () => provider.payoutStatus(randomUUID())));
      expect(sim.tokensIssued()).toBe(1);
      // Every token revoked: eight calls meet a 401 with the same stale token, one refresh follows.
      sim.expireTokens();
      const answers = await Promise.all(Array.from({ length: 8 }, () => provider.payoutStatus(randomUUID())));
      expect(answers.every((answer) => answer.status === 'not_found')).toBe(true);
      expect(sim.tokensIssued()).toBe(2);
    } finally {
      await sim.close();
    }
  });

  it('refreshes once on a 401 and sends the refused request again (the API did nothing with it)', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const reference = randomUUID();
    await provider.payoutStatus(randomUUID());
    const issued = simulator.tokensIssued();
    simulator.expireTokens();
    const answer = await provider.payout({ method: 'orange_money', phone: '+221770001122', amount: 1_500n, reference });
    expect(answer.status).toBe('succeeded');
    expect(simulator.tokensIssued()).toBe(issued + 1);
    expect(simulator.cashinCalls(`payout-${reference}`)).toBe(1);
  });

  it('gives up after one refresh when the API keeps refusing: unknown, not failed', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const before = simulator.calls.transactions;
    simulator.fault('transactions', { kind: 'fail', status: 401 }, 2);
    await expect(provider.payoutStatus(randomUUID())).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(simulator.calls.transactions - before).toBe(2);
  });

  it('bad credentials never reach a message or a log', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator, { clientSecret: 'the-wrong-secret-value' }));
    const failure = await provider.payoutStatus(randomUUID()).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(ProviderUnavailable);
    expect(String((failure as Error).message)).toContain('invalid_client');
    expect(String((failure as Error).message)).not.toContain('the-wrong-secret-value');
  });
});

describe('collection', () => {
  it('creates a single-use QR code and sends the customer to its deep link; the signed callback confirms it', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const reference = randomUUID();
    const answer = await provider.collect({
      method: 'orange_money',
      phone: '+221770000001',
      amount: 2_500n,
      reference,
      returnUrls: { success: 'https://checkout.example/return?attempt=1', error: 'https://checkout.example/return?attempt=1&outcome=error' },
    });
    expect(answer.status).toBe('pending');
    expect(answer.redirectUrl).toMatch(/^https:\/\/sugu\.orange-sonatel\.com\//);
    const qr = simulator.qrCodes().find((code) => code.reference === `pay-${reference}`)!;
    expect(qr).toMatchObject({
      qrId: answer.providerReference,
      amount: 2_500,
      singleUse: true,
      callbackSuccessUrl: 'https://checkout.example/return?attempt=1',
    });
    // No transaction yet: still payable while the QR code is (the attempt stays open), closed after.
    expect(await provider.collectStatus(reference, 'orange_money', new Date())).toMatchObject({ status: 'processing' });
    expect(await provider.collectStatus(reference, 'orange_money', new Date(Date.now() - 661_000))).toMatchObject({
      status: 'pending',
      reason: 'the Orange Money QR code expired unpaid',
    });

    const paid = await simulator.pay(`pay-${reference}`, '771112233');
    const webhook = await eventually(() => receiver.on(CALLBACK_PATH).find((item) => item.raw.toString().includes(paid.transactionId)));
    expect(webhook.headers.authorization).toBe(`Basic ${CALLBACK_API_KEY}`);
    const [event] = provider.parseNotification(inbound(webhook));
    expect(event).toMatchObject({ kind: 'payment', reference, status: 'succeeded', providerReference: paid.transactionId, amount: 2_500n });
    expect(await provider.collectStatus(reference)).toEqual({ status: 'succeeded', providerReference: paid.transactionId });
    // Single use: a second scan cannot take the money twice.
    await expect(simulator.pay(`pay-${reference}`)).rejects.toThrow(/already used/);
  });

  it('a customer who refuses in the app is a failed payment, and a later success on the same code still wins', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const reference = randomUUID();
    await provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 900n, reference });
    const declined = await simulator.decline(`pay-${reference}`);
    expect(await provider.collectStatus(reference)).toMatchObject({ status: 'failed', providerReference: declined.transactionId });
    const paid = await simulator.pay(`pay-${reference}`);
    expect(await provider.collectStatus(reference)).toMatchObject({ status: 'succeeded', providerReference: paid.transactionId });
  });

  it('an error from the QR code endpoint is unknown for the flow, never a failed payment', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    simulator.fault('qrcode', { kind: 'fail', status: 503 });
    await expect(provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 900n, reference: randomUUID() })).rejects.toBeInstanceOf(
      ProviderUnavailable,
    );
    simulator.fault('qrcode', { kind: 'hang' });
    const started = Date.now();
    await expect(provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 900n, reference: randomUUID() })).rejects.toThrow(
      /no answer in time/,
    );
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});

describe('callbacks', () => {
  it('duplicates carry the same event id and parse to the same event (settling twice changes nothing)', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const reference = randomUUID();
    await provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 700n, reference });
    simulator.notifications.duplicates = 2;
    try {
      const paid = await simulator.pay(`pay-${reference}`);
      const copies = await eventually(() => {
        const found = receiver.on(CALLBACK_PATH).filter((item) => item.raw.toString().includes(paid.transactionId));
        return found.length === 3 && found;
      });
      const events = copies.map((copy) => provider.parseNotification(inbound(copy))[0]);
      expect(new Set(events.map((event) => event!.eventId)).size).toBe(1);
      expect(events.every((event) => event!.status === 'succeeded' && event!.reference === reference)).toBe(true);
    } finally {
      simulator.notifications.duplicates = 0;
    }
  });

  it('is redelivered after a 5xx, never after a 4xx', async () => {
    const path = `/retry-${randomUUID()}`;
    const sim = await startOrangeMoneySimulator({ callback: { url: `${receiver.url}${path}` }, notificationRetryDelaysMs: [20, 20, 20] });
    try {
      const provider = createOrangeMoneyProvider(settingsFor(sim));
      receiver.configure(path, { behaviour: { statuses: [503, 500, 200] } });
      const reference = randomUUID();
      await provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 700n, reference });
      await sim.pay(`pay-${reference}`);
      await sim.notificationsSettled();
      expect(receiver.on(path)).toHaveLength(3);
      receiver.configure(path, { behaviour: { statuses: [400] } });
      const second = randomUUID();
      await provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 700n, reference: second });
      await sim.pay(`pay-${second}`);
      await sim.notificationsSettled();
      expect(receiver.on(path)).toHaveLength(4);
    } finally {
      await sim.close();
    }
  });

  it('refuses a forged signature, a changed body, a stale timestamp, a missing or wrong apiKey', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const body = JSON.stringify({
      transactionId: 'MP1',
      reference: `pay-${randomUUID()}`,
      type: 'MERCHANT_PAYMENT',
      status: 'SUCCESS',
      amount: { value: 10, unit: 'XOF' },
    });
    const good = { 'x-sonatel-signature': signOrangeMoneyNotification(simulator.webhookSecret, body), authorization: `Basic ${CALLBACK_API_KEY}` };
    expect(provider.parseNotification({ headers: good, rawBody: Buffer.from(body) })).toHaveLength(1);

    const rejected = (headers: Record<string, string>, raw = body) => {
      try {
        provider.parseNotification({ headers, rawBody: Buffer.from(raw) });
        return 'accepted';
      } catch (error) {
        expect(error).toBeInstanceOf(NotificationRejected);
        return (error as NotificationRejected).status;
      }
    };
    expect(rejected({ ...good, 'x-sonatel-signature': signOrangeMoneyNotification('not-the-secret', body) })).toBe(401);
    expect(rejected(good, body.replace('"value":10', '"value":10000'))).toBe(401);
    expect(rejected({ ...good, 'x-sonatel-signature': signOrangeMoneyNotification(simulator.webhookSecret, body, Math.floor(Date.now() / 1000) - 600) })).toBe(
      401,
    );
    expect(rejected({ 'x-sonatel-signature': good['x-sonatel-signature'] })).toBe(401);
    expect(rejected({ ...good, authorization: 'Basic guessed' })).toBe(401);
    expect(rejected({ authorization: good.authorization })).toBe(401);
    // Signed but unreadable: 400.
    const junk = 'not json';
    expect(rejected({ ...good, 'x-sonatel-signature': signOrangeMoneyNotification(simulator.webhookSecret, junk) }, junk)).toBe(400);
  });

  it('a replayed genuine callback inside the window parses to the same event; a callback for another application is ignored', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const reference = randomUUID();
    await provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 300n, reference });
    const paid = await simulator.pay(`pay-${reference}`);
    await simulator.notificationsSettled();
    await simulator.redeliver(paid.transactionId);
    const copies = receiver.on(CALLBACK_PATH).filter((item) => item.raw.toString().includes(paid.transactionId));
    expect(copies.length).toBeGreaterThanOrEqual(2);
    expect(copies.map((copy) => provider.parseNotification(inbound(copy))[0]!.eventId)).toEqual(
      copies.map(() => copies[0]!.headers['x-sonatel-idempotency-key']),
    );

    const foreign = JSON.stringify({
      transactionId: 'MP2',
      reference: 'till-42',
      type: 'MERCHANT_PAYMENT',
      status: 'SUCCESS',
      amount: { value: 10, unit: 'XOF' },
    });
    expect(
      provider.parseNotification({
        headers: { 'x-sonatel-signature': signOrangeMoneyNotification(simulator.webhookSecret, foreign), authorization: `Basic ${CALLBACK_API_KEY}` },
        rawBody: Buffer.from(foreign),
      }),
    ).toEqual([]);
  });

  it('refuses every callback when no verification secret is configured', () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator, { webhookSecret: undefined, callbackApiKey: undefined }));
    expect(() => provider.parseNotification({ headers: {}, rawBody: Buffer.from('{}') })).toThrow(NotificationRejected);
  });
});

describe('payouts (cash in)', () => {
  it('sends the PIN encrypted, the amount in XOF, our prefixed reference; succeeds once', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const reference = randomUUID();
    const balance = simulator.partnerBalance();
    const answer = await provider.payout({ method: 'orange_money', phone: '+221 77 123 45 00', amount: 12_000n, reference });
    expect(answer.status).toBe('succeeded');
    const [record] = simulator.transactions().filter((item) => item.reference === `payout-${reference}`);
    expect(record).toMatchObject({
      type: 'CASHIN',
      status: 'SUCCESS',
      amount: { value: 12_000, unit: 'XOF' },
      customer: { id: '771234500' },
      transactionId: answer.providerReference,
    });
    expect(simulator.partnerBalance()).toBe(balance - 12_000);
    expect(await provider.payoutStatus(reference)).toEqual({ status: 'succeeded', providerReference: answer.providerReference });
  });

  it('a timed-out cash in is unknown, found done by the status question, and never sent again', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator, { timeoutMs: 500 }));
    const reference = randomUUID();
    simulator.fault('cashin', { kind: 'hang' });
    await expect(provider.payout({ method: 'orange_money', phone: '+221770009988', amount: 5_000n, reference })).rejects.toThrow(/no answer in time/);
    expect(await provider.payoutStatus(reference)).toMatchObject({ status: 'succeeded' });
    expect(simulator.cashinCalls(`payout-${reference}`)).toBe(1);
  });

  it('a lost answer and a lost call: both unknown; the status question tells them apart', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const answered = randomUUID();
    simulator.fault('cashin', { kind: 'dropAnswer' });
    await expect(provider.payout({ method: 'orange_money', phone: '+221770009988', amount: 1_000n, reference: answered })).rejects.toBeInstanceOf(
      ProviderUnavailable,
    );
    expect(await provider.payoutStatus(answered)).toMatchObject({ status: 'succeeded' });

    const lost = randomUUID();
    simulator.fault('cashin', { kind: 'dropRequest' });
    await expect(provider.payout({ method: 'orange_money', phone: '+221770009988', amount: 1_000n, reference: lost })).rejects.toBeInstanceOf(
      ProviderUnavailable,
    );
    expect(await provider.payoutStatus(lost)).toMatchObject({ status: 'not_found' });
    expect(simulator.cashinCalls(`payout-${lost}`)).toBe(0);
  });

  it('a slow answer within the bound is waited for; a 5xx or a 408 is unknown', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    simulator.fault('cashin', { kind: 'slow', delayMs: 300 });
    expect((await provider.payout({ method: 'orange_money', phone: '+221770009988', amount: 1_000n, reference: randomUUID() })).status).toBe('succeeded');
    const reference = randomUUID();
    simulator.fault('cashin', { kind: 'fail', status: 500 });
    await expect(provider.payout({ method: 'orange_money', phone: '+221770009988', amount: 1_000n, reference })).rejects.toMatchObject({ httpStatus: 500 });
    expect(simulator.cashinCalls(`payout-${reference}`)).toBe(0);
    // A 408 is a 4xx but no refusal: Orange may have acted on it, so it is unknown, never failed.
    const timedOut = randomUUID();
    simulator.fault('cashin', { kind: 'fail', status: 408 });
    await expect(provider.payout({ method: 'orange_money', phone: '+221770009988', amount: 1_000n, reference: timedOut })).rejects.toMatchObject({
      httpStatus: 408,
    });
  });

  it("masks wallet numbers in Orange's words, and refuses an answer larger than it reads (both unknown)", async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    simulator.fault('cashin', { kind: 'fail', status: 502, body: { code: '5000', detail: 'cannot credit 221771234567 now' } });
    const failure = await provider
      .payout({ method: 'orange_money', phone: '+221771234567', amount: 1_000n, reference: randomUUID() })
      .catch((error: Error) => error);
    expect(failure).toBeInstanceOf(ProviderUnavailable);
    expect((failure as Error).message).toBe('Orange Money cash in (payout): Orange Money answered 502 (5000: cannot credit <number> now)');
    simulator.fault('transactions', { kind: 'fail', status: 200, body: { transactions: 'x'.repeat(3 * 1024 * 1024) } });
    await expect(provider.payoutStatus(randomUUID())).rejects.toThrow(/Orange Money: the provider answered more than \d+ bytes/);
  });

  it('honours the flow deadline (its signal) as well as its own bound', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator, { timeoutMs: 10_000 }));
    simulator.fault('cashin', { kind: 'hang' });
    const started = Date.now();
    await expect(
      provider.payout({ method: 'orange_money', phone: '+221770009988', amount: 1_000n, reference: randomUUID(), signal: AbortSignal.timeout(300) }),
    ).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a wallet that cannot receive is a definite failure; a held one stays pending until Orange settles it', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    simulator.blockWallet('770000404');
    const refused = await provider.payout({ method: 'orange_money', phone: '+221770000404', amount: 1_000n, reference: randomUUID() });
    expect(refused).toMatchObject({ status: 'failed', reason: 'the customer wallet cannot receive this deposit' });

    simulator.holdWallet('770000555');
    const reference = randomUUID();
    const held = await provider.payout({ method: 'orange_money', phone: '+221770000555', amount: 2_000n, reference });
    expect(held.status).toBe('pending');
    expect(await provider.payoutStatus(reference)).toMatchObject({ status: 'processing' });
    await simulator.settle(held.providerReference, 'SUCCESS');
    const webhook = await eventually(() => receiver.on(CALLBACK_PATH).find((item) => item.raw.toString().includes(held.providerReference)));
    expect(provider.parseNotification(inbound(webhook))).toEqual([expect.objectContaining({ kind: 'payout', reference, status: 'succeeded', amount: 2_000n })]);
    expect(await provider.payoutStatus(reference)).toMatchObject({ status: 'succeeded' });
  });

  it('sends nothing for a wallet outside Senegal, a number that is not a Senegal mobile, or without cash-in credentials', async () => {
    const before = simulator.calls.cashin;
    // Côte d'Ivoire; a Dakar fixed line (33); eight digits.
    for (const phone of ['+2250700000000', '+221338221234', '+22177000000']) {
      expect(
        await createOrangeMoneyProvider(settingsFor(simulator)).payout({ method: 'orange_money', phone, amount: 1_000n, reference: randomUUID() }),
        phone,
      ).toMatchObject({ status: 'failed', reason: 'the recipient is not an Orange Money Senegal wallet (+221 7X XXX XX XX): nothing was sent' });
    }
    expect(
      await createOrangeMoneyProvider(settingsFor(simulator, { partner: undefined })).payout({
        method: 'orange_money',
        phone: '+221770000001',
        amount: 1_000n,
        reference: randomUUID(),
      }),
    ).toMatchObject({ status: 'failed' });
    expect(simulator.calls.cashin).toBe(before);
  });
});

describe("the simulator's numbers (Sonatel's formats)", () => {
  it('takes a wallet as the 9-digit Senegal mobile MSISDN only: with its country code, a fixed line or another length is a 400 problem', async () => {
    const token = await fetch(`${simulator.url}/oauth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: simulator.clientId, client_secret: simulator.clientSecret }),
    });
    const authorization = `Bearer ${((await token.json()) as { access_token: string }).access_token}`;
    const { key } = (await (await fetch(`${simulator.url}/api/account/v1/publicKeys`, { headers: { authorization } })).json()) as { key: string };
    const pem = `-----BEGIN PUBLIC KEY-----\n${key.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----`;
    const encryptedPinCode = publicEncrypt({ key: pem, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(simulator.partnerPin)).toString('base64');
    const cashIn = (customer: string) =>
      fetch(`${simulator.url}/api/eWallet/v1/cashins`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          partner: { idType: 'MSISDN', id: simulator.partnerMsisdn, encryptedPinCode },
          customer: { idType: 'MSISDN', id: customer, walletType: 'PRINCIPAL' },
          amount: { unit: 'XOF', value: 100 },
          reference: `direct-${randomUUID()}`,
        }),
      });
    const recorded = simulator.transactions().length;
    for (const customer of ['221770000001', '+221770000001', '338221234', '77000000', '7700000012']) {
      const refused = await cashIn(customer);
      expect(refused.status, customer).toBe(400);
      expect(await refused.json()).toMatchObject({ code: '4000' });
    }
    expect(simulator.transactions().length).toBe(recorded);
  });
});

describe('refunds (a cash in to the wallet that paid)', () => {
  it("returns the money to the payer found in Orange's record of the payment, not the phone typed at checkout", async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const payment = randomUUID();
    await provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 4_000n, reference: payment });
    const paid = await simulator.pay(`pay-${payment}`, '776665544');
    const refund = randomUUID();
    const answer = await provider.refund({
      method: 'orange_money',
      phone: '+221770000001',
      amount: 4_000n,
      reference: refund,
      paymentReference: paid.transactionId,
    });
    expect(answer.status).toBe('succeeded');
    const [record] = simulator.transactions().filter((item) => item.reference === `refund-${refund}`);
    expect(record).toMatchObject({ type: 'CASHIN', customer: { id: '776665544' }, amount: { value: 4_000 } });
    expect(await provider.refundStatus(refund)).toMatchObject({ status: 'succeeded', providerReference: answer.providerReference });
    // A refund and a payout are both cash ins: each status question only sees its own kind.
    expect(await provider.payoutStatus(refund)).toMatchObject({ status: 'not_found' });
  });

  it('falls back to the checkout phone when Orange has no record under the payment reference', async () => {
    const provider = createOrangeMoneyProvider(settingsFor(simulator));
    const refund = randomUUID();
    expect(
      (await provider.refund({ method: 'orange_money', phone: '+221778889900', amount: 1_000n, reference: refund, paymentReference: randomUUID() })).status,
    ).toBe('succeeded');
    expect(simulator.transactions().find((item) => item.reference === `refund-${refund}`)).toMatchObject({ customer: { id: '778889900' } });
  });
});

describe('history (reconciliation)', () => {
  it("lists every record of a period with our kind and reference, and others' records without one", async () => {
    const sim = await startOrangeMoneySimulator();
    try {
      const provider = createOrangeMoneyProvider(settingsFor(sim));
      const from = new Date(Date.now() - 1_000);
      const payment = randomUUID();
      await provider.collect({ method: 'orange_money', phone: '+221770000001', amount: 3_000n, reference: payment });
      const paid = await sim.pay(`pay-${payment}`);
      const refund = randomUUID();
      await provider.refund({ method: 'orange_money', phone: '+221770000001', amount: 1_000n, reference: refund, paymentReference: paid.transactionId });
      const payouts: string[] = Array.from({ length: 205 }, () => randomUUID());
      for (const reference of payouts) await provider.payout({ method: 'orange_money', phone: '+221770000002', amount: 100n, reference });
      // A QR code another application made on the same merchant account.
      const token = await orangeMoneyAccessToken(sim);
      await fetch(`${sim.url}/api/eWallet/v4/qrcode`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: sim.merchantCode, name: 'till', amount: { unit: 'XOF', value: 50 }, validity: 60, reference: 'till-1' }),
      });
      await sim.pay('till-1');
      const records = await provider.listRecords({ from, to: new Date(Date.now() + 1_000) });
      expect(records).toHaveLength(1 + 1 + 205 + 1);
      expect(records.find((record) => record.kind === 'payment' && record.reference === payment)).toMatchObject({
        kind: 'payment',
        amount: 3_000n,
        status: 'succeeded',
        providerReference: paid.transactionId,
      });
      // A refund is filed under the payment it returns (its attempt id), as the port asks.
      expect(records.find((record) => record.kind === 'refund')).toMatchObject({ reference: payment, amount: 1_000n, status: 'succeeded' });
      expect(sim.transactions().find((item) => item.reference === `refund-${refund}`)?.metadata).toEqual({ refundOf: payment });
      expect(records.filter((record) => record.kind === 'payout' && payouts.includes(record.reference))).toHaveLength(205);
      expect(records.filter((record) => record.reference === '')).toEqual([expect.objectContaining({ kind: 'payment', amount: 50n })]);
      expect(await provider.listRecords({ from: new Date(Date.now() + 60_000), to: new Date(Date.now() + 120_000) })).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});

describe('the simulator checks request shapes as documented', () => {
  it('refuses unknown fields, non-integer amounts, bad MSISDNs, a wrong PIN and a missing token', async () => {
    const token = async () => {
      const response = await fetch(`${simulator.url}/oauth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${simulator.clientId}&client_secret=${encodeURIComponent(simulator.clientSecret)}`,
      });
      return ((await response.json()) as { access_token: string }).access_token;
    };
    const bearer = await token();
    const post = (path: string, body: unknown, auth = `Bearer ${bearer}`) =>
      fetch(`${simulator.url}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const qr = { code: simulator.merchantCode, name: 'n', amount: { unit: 'XOF', value: 100 }, validity: 60 };
    expect((await post('/api/eWallet/v4/qrcode', qr)).status).toBe(200);
    expect((await post('/api/eWallet/v4/qrcode', { ...qr, colour: 'orange' })).status).toBe(400);
    expect((await post('/api/eWallet/v4/qrcode', { ...qr, amount: { unit: 'XOF', value: 100.5 } })).status).toBe(400);
    expect((await post('/api/eWallet/v4/qrcode', { ...qr, amount: { unit: 'EUR', value: 100 } })).status).toBe(400);
    expect((await post('/api/eWallet/v4/qrcode', qr, 'Bearer forged')).status).toBe(401);
    const cashin = {
      partner: { idType: 'MSISDN', id: simulator.partnerMsisdn, encryptedPinCode: 'AAAA' },
      customer: { idType: 'MSISDN', id: '+221770000001' },
      amount: { unit: 'XOF', value: 100 },
      reference: 'x-1',
    };
    expect((await post('/api/eWallet/v1/cashins', cashin)).status).toBe(400);
    const unknownPartner = { ...cashin, partner: { ...cashin.partner, id: '779999999' }, customer: { idType: 'MSISDN', id: '770000001' } };
    expect((await post('/api/eWallet/v1/cashins', unknownPartner)).status).toBe(403);
    expect(simulator.cashinCalls('x-1')).toBe(0);
  });
});
