/**
 * Wave collection through the checkout, against the Wave simulator: the customer is sent to Wave's
 * page, Wave's signed webhook (or, when it is lost, a status question) makes the transaction paid,
 * duplicates, replays, out-of-order and forged webhooks change nothing, and after each the
 * gateway's ledger and Wave's own books agree.
 */
import { describe, expect, it } from 'vitest';
import { settleStalePaymentAttempts } from '../../../src/domain/payments/attempts.js';
import { expectWaveAgrees, returnFromWave, startWaveCheckout, throughTlsProxy, useWaveGateway, waveTransaction } from '../../support/providers/wave.js';

const setup = useWaveGateway();

async function newCheckout(overrides: Record<string, unknown> = {}) {
  const { key, organization } = await setup.gateway.merchant({ name: 'Boutique Wave' });
  const { orderId, checkoutUrl } = await waveTransaction(setup.gateway, key, overrides);
  const read = async () => (await setup.gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body;
  return { key, organization, orderId, checkoutUrl, read };
}

/** The payment postings of a transaction (one posting: the merchant, the clearing account, the fee). */
const paymentPostings = async (orderId: string) =>
  new Set((await setup.gateway.ctx.db.ledgerEntry.findMany({ where: { transactionId: orderId, kind: 'payment' } })).map((entry) => entry.postingId)).size;

async function webhook(body: string, headers: Record<string, string>) {
  const response = await fetch(setup.wave.webhookUrl!, { method: 'POST', headers, body });
  return { status: response.status, body: await response.text() };
}

describe('a Wave checkout', () => {
  it('sends the customer to a Wave checkout session for the amount, returning to the gateway, and is paid by the signed webhook', async () => {
    const { orderId, checkoutUrl, read } = await newCheckout({ fees_customer_side: true });
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    // 3,000 XOF + 1 % Wave fee paid by the customer; the session is ours by its client_reference.
    expect(session.amount).toBe('3030');
    expect(session.currency).toBe('XOF');
    expect(session.success_url).toMatch(new RegExp(`/checkout/${orderId}/return\\?attempt=[0-9a-f-]{36}$`));
    expect(session.error_url).toBe(`${session.success_url}&outcome=error`);
    expect(session.client_reference).toBe(new URL(session.success_url).searchParams.get('attempt'));
    const create = setup.wave.calls.find((call) => call.path === '/v1/checkout/sessions');
    expect(create?.idempotencyKey).toBe(session.client_reference);
    expect((await read()).transaction_status).toBe('pending');

    await setup.wave.completeSession(session.id);
    expect(setup.wave.webhooksSent.at(-1)?.status).toBe(200);
    const paid = await read();
    expect(paid.transaction_status).toBe('paid');
    expect(paid.selected_payment_method).toBe('wave');
    expect(await paymentPostings(orderId)).toBe(1);

    // Wave sends the customer back: the gateway sends them on to the merchant's success_url.
    const back = await returnFromWave(session.success_url);
    expect(back.status).toBe(303);
    expect(back.location).toBe('https://shop.example.sn/merci');
    await expectWaveAgrees(setup.gateway);
  });

  it('pays once whatever duplicates and replays of the webhook arrive, and ignores a failed try that comes after the payment', async () => {
    const { orderId, checkoutUrl, read } = await newCheckout();
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    setup.wave.duplicateWebhooks = true;
    try {
      await setup.wave.completeSession(session.id);
    } finally {
      setup.wave.duplicateWebhooks = false;
    }
    const event = setup.wave.webhooksSent.at(-1)!;
    expect(await setup.wave.replayWebhook(event.id)).toBe(200);
    expect(await setup.wave.replayWebhook(event.id)).toBe(200);
    // Out of order: a failed try reported after the completion changes nothing.
    await setup.wave.failSessionPayment(session.id);
    expect((await read()).transaction_status).toBe('paid');
    expect(await paymentPostings(orderId)).toBe(1);
    await expectWaveAgrees(setup.gateway);
  });

  it('stays pending after a failed try inside the session, and is paid when the customer then succeeds', async () => {
    const { checkoutUrl, read, orderId } = await newCheckout();
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    await setup.wave.failSessionPayment(session.id);
    expect((await read()).transaction_status).toBe('pending');
    // The customer back from Wave's error page: still open at Wave, so "confirm on your phone".
    const back = await returnFromWave(session.error_url);
    expect(back.status).toBe(200);
    expect(back.html).toContain(`/checkout/${orderId}/return?attempt=${session.client_reference}`);
    await setup.wave.completeSession(session.id);
    expect((await read()).transaction_status).toBe('paid');
    await expectWaveAgrees(setup.gateway);
  });

  it('refuses forged, unsigned, stale and tampered webhooks (401) and settles nothing with them', async () => {
    const { checkoutUrl, read } = await newCheckout();
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    const body = JSON.stringify({
      id: 'EV_forged',
      type: 'checkout.session.completed',
      data: { ...session, checkout_status: 'complete', payment_status: 'succeeded' },
    });
    const forged = `t=${Math.floor(Date.now() / 1000)},v1=${'ab'.repeat(32)}`;
    expect((await webhook(body, { 'content-type': 'application/json', 'wave-signature': forged })).status).toBe(401);
    expect((await webhook(body, { 'content-type': 'application/json' })).status).toBe(401);
    expect((await webhook(body, { 'content-type': 'application/json', authorization: 'Bearer not-the-secret' })).status).toBe(401);
    const stale = setup.wave.webhookHeaders(body, Math.floor(Date.now() / 1000) - 3600);
    expect((await webhook(body, stale)).status).toBe(401);
    const signed = setup.wave.webhookHeaders(body);
    expect((await webhook(body.replace('"EV_forged"', '"EV_forge2"'), signed)).status).toBe(401);
    expect((await read()).transaction_status).toBe('pending');
    // Signed but not an event: unreadable (400), nothing settled.
    expect((await webhook('{"not json', setup.wave.webhookHeaders('{"not json'))).status).toBe(400);
    expect((await read()).transaction_status).toBe('pending');
    setup.wave.expireSession(session.id);
    expect((await returnFromWave(session.error_url)).status).toBe(303);
  });

  it("is paid by a status question when the webhook is lost: on the customer's return, or by the reconciler", async () => {
    const first = await newCheckout();
    const { session } = await startWaveCheckout(setup, first.checkoutUrl);
    setup.wave.loseNextWebhook = true;
    await setup.wave.completeSession(session.id);
    expect((await first.read()).transaction_status).toBe('pending');
    const back = await returnFromWave(session.success_url);
    expect(back.status).toBe(303);
    expect(back.location).toBe('https://shop.example.sn/merci');
    expect((await first.read()).transaction_status).toBe('paid');

    const second = await newCheckout();
    const { session: other } = await startWaveCheckout(setup, second.checkoutUrl);
    setup.wave.loseNextWebhook = true;
    await setup.wave.completeSession(other.id);
    const tally = await settleStalePaymentAttempts(setup.gateway.ctx, { olderThanMs: 0 });
    expect(tally.settled).toBeGreaterThanOrEqual(1);
    expect((await second.read()).transaction_status).toBe('paid');
    await expectWaveAgrees(setup.gateway);
  });

  it('keeps the attempt open while the session is open, and closes it unpaid once Wave expires it (the customer may pay again)', async () => {
    const { checkoutUrl, read, orderId } = await newCheckout();
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    await settleStalePaymentAttempts(setup.gateway.ctx, { olderThanMs: 0 });
    const attempt = await setup.gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: session.client_reference! } });
    expect(attempt.state).toBe('collecting');
    setup.wave.expireSession(session.id);
    const back = await returnFromWave(session.error_url);
    expect(back.status).toBe(303);
    expect(back.location).toBe('https://shop.example.sn/erreur');
    expect((await setup.gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } })).state).toBe('unconfirmed');
    expect((await read()).transaction_status).toBe('pending');
    // A new try opens a new session.
    const again = await startWaveCheckout(setup, checkoutUrl);
    expect(again.session.id).not.toBe(session.id);
    await setup.wave.completeSession(again.session.id);
    expect((await read()).transaction_status).toBe('paid');
    expect(await paymentPostings(orderId)).toBe(1);
    await expectWaveAgrees(setup.gateway);
  });

  it('closes the Wave session a customer left when they pay again (expired at Wave first), and pays once with the new one', async () => {
    const { checkoutUrl, read, orderId } = await newCheckout();
    const { session: left } = await startWaveCheckout(setup, checkoutUrl);
    const again = await startWaveCheckout(setup, checkoutUrl);
    expect(again.session.id).not.toBe(left.id);
    expect(setup.wave.sessions.get(left.id)?.checkout_status).toBe('expired');
    expect((await setup.gateway.ctx.db.paymentAttempt.findUniqueOrThrow({ where: { id: left.client_reference! } })).state).toBe('unconfirmed');
    await setup.wave.completeSession(again.session.id);
    expect((await read()).transaction_status).toBe('paid');
    expect(await paymentPostings(orderId)).toBe(1);
    await expectWaveAgrees(setup.gateway);
  });

  it('learns that the session the customer left was paid meanwhile (its webhook lost) instead of opening another', async () => {
    const { checkoutUrl, read } = await newCheckout();
    const { session } = await startWaveCheckout(setup, checkoutUrl);
    setup.wave.loseNextWebhook = true;
    await setup.wave.completeSession(session.id);
    const page = await (await fetch(throughTlsProxy(checkoutUrl))).text();
    const token = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const posted = await fetch(throughTlsProxy(checkoutUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: token, method: 'wave', phone: '+221771234567' }).toString(),
    });
    expect(posted.status).toBe(409);
    expect((await read()).transaction_status).toBe('paid');
    expect([...setup.wave.sessions.values()].filter((s) => s.client_reference && s.client_reference === session.client_reference)).toHaveLength(1);
    await expectWaveAgrees(setup.gateway);
  });
});
