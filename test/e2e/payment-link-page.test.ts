/**
 * A payment link's page on the checkout origin over plain HTTP (issue 30): the page (French and
 * English, no script), the POST that makes a transaction through the one creation rule and answers
 * 303 into the normal checkout, the 410s (used, expired, deactivated), the single-use race on real
 * concurrent requests, the rules any transaction meets (unverified monthly limit), the usual
 * payment_status webhook, and the QR code the gateway draws.
 */
import { describe, expect, it } from 'vitest';
import { encode } from 'uqr';
import { useGateway } from '../support/gateway.js';
import { fillLink, formTokenOf, openPage, postForm, textOf } from '../support/paymentLinks.js';
import { merchantWithWebhook, useDispatching } from '../support/webhooks.js';
import { eventually } from '../support/webhookReceiver.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });
const delivering = useDispatching(gateway);

async function newLink(body: Record<string, unknown>, merchant?: { key: string }) {
  const { key } = merchant ?? (await gateway.merchant({ name: 'Boutique Awa', verified: true }));
  const created = await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: 'Bissap', amount: 2_000, ...body } });
  expect(created.status).toBe(200);
  return { key, link: created.body as { id: string; url: string; qr_code_url: string } };
}

const orderIdOf = (location: string | null): string => /\/checkout\/([0-9a-f-]{36})$/.exec(location ?? '')?.[1] ?? '';

async function payAtCheckout(orderId: string, phone = '+221770005678') {
  const checkout = await openPage(`${gateway.checkoutUrl}/checkout/${orderId}`);
  return postForm(`${gateway.checkoutUrl}/checkout/${orderId}`, { csrf_token: formTokenOf(checkout.html), method: 'wave', phone });
}

describe('GET /pay/{id}', () => {
  it('shows the merchant, what is sold, the methods and the name and phone fields, in French by default and in English when asked, without a script', async () => {
    const { link } = await newLink({ name: 'Panier légumes', products: [{ name: 'Tomates', price: 500, quantity: 3 }], amount: undefined, single_use: true });
    const french = await openPage(link.url);
    expect(french.status).toBe(200);
    expect(french.headers.get('content-language')).toBe('fr');
    const words = textOf(french.html);
    expect(words).toContain('Boutique Awa');
    expect(words).toContain('Panier légumes');
    expect(words).toContain('Tomates 3 × 500 XOF 1 500 XOF');
    expect(words).toContain('Ce lien ne peut être payé qu’une seule fois.');
    expect(french.html).toMatch(/<input[^>]+name="first_name"[^>]+required/);
    expect(french.html).toMatch(/<input[^>]+type="tel"[^>]+name="phone"/);
    expect(french.html).not.toMatch(/<script/i);
    expect(french.headers.get('content-security-policy')).toContain("default-src 'none'");

    const english = await openPage(`${link.url}?lang=en`);
    expect(textOf(english.html)).toContain('This link can be paid only once.');
    expect(english.html).toContain(`action="/pay/${link.id}?lang=en"`);
  });

  it('answers an unknown or malformed link with 404', async () => {
    expect((await openPage(`${gateway.checkoutUrl}/pay/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await openPage(`${gateway.checkoutUrl}/pay/nope`)).status).toBe(404);
  });
});

describe('POST /pay/{id}', () => {
  it('makes a pending transaction carrying the link id and the customer, then 303 into its checkout; paying it sends the usual payment_status webhook', async () => {
    const { organization, key } = await merchantWithWebhook(gateway, delivering.receiver, '/links', 'v2');
    const { link } = await newLink({ success_url: 'https://shop.example.sn/merci' }, { key });
    const made = await fillLink(link.url, { first_name: 'Fatou', last_name: 'Ndiaye', phone: '+221 77 123 45 99' });
    expect(made.status).toBe(303);
    const orderId = orderIdOf(made.location);
    expect(made.location).toBe(`${gateway.checkoutUrl}/checkout/${orderId}`);
    const row = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });
    expect(row).toMatchObject({
      organizationId: organization.id,
      paymentLinkId: link.id,
      status: 'pending',
      amount: 2_000n,
      customerFirstName: 'Fatou',
      customerLastName: 'Ndiaye',
      successUrl: 'https://shop.example.sn/merci',
    });

    const paid = await payAtCheckout(orderId);
    expect(paid.status).toBe(303);
    expect(paid.location).toBe('https://shop.example.sn/merci');
    const [delivery] = await eventually(
      () => (delivering.receiver.on('/links').length ? delivering.receiver.on('/links') : null),
      5_000,
      'the payment_status delivery',
    );
    expect(delivery!.headers['x-event-type']).toBe('payment_status');
    const body = JSON.parse(delivery!.raw.toString('utf8'));
    expect(body).toMatchObject({ order_id: orderId, transaction_status: 'paid', amount: 2_000 });
    // The webhook body stays exactly the spec's: the link's id is not in it.
    expect(body).not.toHaveProperty('payment_link_id');
    // Money is the transaction's: its ledger posting is there, and the link only counts it.
    expect(await gateway.ctx.db.ledgerEntry.count({ where: { transactionId: orderId } })).toBeGreaterThan(0);
    expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key })).body).toMatchObject({ paid_count: 1, paid_amount: 2_000 });
  });

  it('asks again, with the reason, for a missing first name or a bad phone, and makes nothing', async () => {
    const { link } = await newLink({});
    const noName = await fillLink(link.url, { first_name: ' ' });
    expect(noName.status).toBe(400);
    expect(textOf(noName.html)).toContain('Indiquez votre prénom.');
    const badPhone = await fillLink(link.url, { phone: '12' });
    expect(badPhone.status).toBe(400);
    expect(textOf(badPhone.html)).toContain('Numéro invalide');
    expect(badPhone.html).toContain('value="Awa"');
    const forged = await postForm(link.url, { csrf_token: 'x', first_name: 'A', phone: '+221771234567' });
    expect(forged.status).toBe(403);
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(0);
  });

  it('names the field at fault for a name too long: the last name, not the first', async () => {
    const { link } = await newLink({});
    const longLast = await fillLink(link.url, { last_name: 'D'.repeat(201) });
    expect(longLast.status).toBe(400);
    expect(textOf(longLast.html)).toContain('Nom trop long ou illisible');
    expect(textOf(longLast.html)).not.toContain('Indiquez votre prénom');
    const longFirst = await fillLink(`${link.url}?lang=en`, { first_name: 'A'.repeat(201) });
    expect(textOf(longFirst.html)).toContain('First name too long or unreadable');
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(0);
  });

  it('throttles orders through one link from one address: the 31st in 10 minutes gets 429 with Retry-After and a page, and makes nothing; another link is not affected', async () => {
    const { link, key } = await newLink({});
    const page = await openPage(link.url);
    const token = formTokenOf(page.html);
    const post = (url: string, phone: string) => postForm(url, { csrf_token: token, first_name: 'Awa', phone });
    const answers = [];
    // Invalid forms count too: the limiter cannot tell a typo from a script.
    for (let index = 0; index < 30; index += 1) answers.push(await post(link.url, index % 3 === 0 ? '12' : `+2217700${String(index).padStart(5, '0')}`));
    expect(answers.filter((answer) => answer.status === 303)).toHaveLength(20);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(10);
    const refused = await post(link.url, '+221770009999');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(textOf(refused.html)).toContain('Trop de tentatives depuis votre connexion');
    expect(textOf(refused.html)).toContain('Rien n’a été débité');
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(20);
    const other = await newLink({ name: 'Jus de gingembre' }, { key });
    expect((await fillLink(other.link.url, {})).status).toBe(303);
  });

  it('applies the unverified monthly limit as to any transaction: refused with a page, nothing made', async () => {
    const merchant = await gateway.merchant({ name: 'Petite boutique', verified: false });
    const { link } = await newLink({ amount: 150_000 }, merchant);
    expect((await fillLink(link.url, { phone: '+221770000101' })).status).toBe(303);
    const refused = await fillLink(link.url, { phone: '+221770000102' });
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain('Ce lien ne peut pas être payé pour le moment');
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(1);
  });

  it('refuses, with a page and nothing made, for an organisation the operator made inactive (as its own key would be)', async () => {
    const merchant = await gateway.merchant({ name: 'Boutique fermée', verified: true });
    const { link } = await newLink({}, merchant);
    await gateway.ctx.db.organization.update({ where: { id: merchant.organization.id }, data: { status: 'inactive' } });
    const refused = await fillLink(link.url, {});
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain('Ce lien ne peut pas être payé pour le moment');
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(0);
  });
});

describe('a link that takes no more payments answers 410', () => {
  it('deactivated: the page says so and a POST makes nothing', async () => {
    const { key, link } = await newLink({});
    const page = await openPage(link.url);
    await gateway.rest('DELETE', `/api/v2/payment-links/${link.id}`, { key });
    const gone = await openPage(link.url);
    expect(gone.status).toBe(410);
    expect(textOf(gone.html)).toContain('Ce lien de paiement n’est plus actif');
    const posted = await postForm(link.url, { csrf_token: formTokenOf(page.html), first_name: 'Awa', phone: '+221771234567' });
    expect(posted.status).toBe(410);
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(0);
  });

  it('expired: past expires_at (moved into the past here, as time would)', async () => {
    const { key, link } = await newLink({ expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const page = await openPage(link.url);
    await gateway.ctx.db.paymentLink.update({ where: { id: link.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const gone = await openPage(`${link.url}?lang=en`);
    expect(gone.status).toBe(410);
    expect(textOf(gone.html)).toContain('This payment link has expired');
    const posted = await postForm(link.url, { csrf_token: formTokenOf(page.html), first_name: 'Awa', phone: '+221771234567' });
    expect(posted.status).toBe(410);
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(0);
    expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key })).body.status).toBe('expired');
  });

  it('used: a single-use link once paid; refunding its payment does not reopen it', async () => {
    // Fees on the customer's side: the merchant's balance holds the whole amount to refund.
    const { key, link } = await newLink({ single_use: true, fees_customer_side: true });
    const page = await openPage(link.url);
    const made = await postForm(link.url, { csrf_token: formTokenOf(page.html), first_name: 'Awa', phone: '+221771234567' });
    const orderId = orderIdOf(made.location);
    expect((await payAtCheckout(orderId)).status).toBe(303);
    const gone = await openPage(link.url);
    expect(gone.status).toBe(410);
    expect(textOf(gone.html)).toContain('Ce lien de paiement a déjà été payé');
    expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key })).body).toMatchObject({ status: 'used', paid_count: 1 });
    const refund = await gateway.rest('GET', `/api/v2/refund/${orderId}`, { key });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key })).body).toMatchObject({ status: 'used', paid_count: 0, paid_amount: 0 });
    const late = await postForm(link.url, { csrf_token: formTokenOf(page.html), first_name: 'Moussa', phone: '+221770009999' });
    expect(late.status).toBe(410);
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(1);
  });
});

describe('single use under concurrency (PostgreSQL decides)', () => {
  it('of 8 customers posting at once exactly one gets a transaction; the others get 409 and nothing; the holder gets the same one back', async () => {
    const { link } = await newLink({ single_use: true });
    const page = await openPage(link.url);
    const token = formTokenOf(page.html);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        postForm(link.url, { csrf_token: token, first_name: `Client ${index}`, phone: `+22177000${String(index).padStart(4, '0')}` }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([303, 409, 409, 409, 409, 409, 409, 409]);
    expect(textOf(answers.find((answer) => answer.status === 409)!.html)).toContain('Ce lien est en cours de paiement par une autre personne');
    const winner = answers.find((answer) => answer.status === 303)!;
    const rows = await gateway.ctx.db.transaction.findMany({ where: { paymentLinkId: link.id } });
    expect(rows.map((row) => row.id)).toEqual([orderIdOf(winner.location)]);
    // The winner reloads and posts again: its own transaction, not a second one.
    const again = await postForm(link.url, { csrf_token: token, first_name: 'Client', phone: rows[0]!.customerPhone! });
    expect(again.location).toBe(winner.location);
    expect(await gateway.ctx.db.transaction.count({ where: { paymentLinkId: link.id } })).toBe(1);
  });

  it('frees the link only when its holder is cancelled (which can then never be paid)', async () => {
    const { key, link } = await newLink({ single_use: true });
    const first = await fillLink(link.url, { phone: '+221770001111' });
    expect((await fillLink(link.url, { phone: '+221770002222' })).status).toBe(409);
    await gateway.rest('DELETE', `/api/v2/transactions/${orderIdOf(first.location)}`, { key });
    const second = await fillLink(link.url, { phone: '+221770002222' });
    expect(second.status).toBe(303);
    expect(orderIdOf(second.location)).not.toBe(orderIdOf(first.location));
  });
});

describe('GET /pay/{id}/qr.svg', () => {
  it("draws the link's address as an SVG QR code (no outside service): the modules of a QR code of url, with finder patterns", async () => {
    const { link } = await newLink({});
    const response = await fetch(link.qr_code_url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = await response.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 (\d+) \1"/);
    const size = Number(/viewBox="0 0 (\d+)/.exec(svg)![1]);
    // Rebuild the module matrix from the drawn runs.
    const drawn = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
    for (const [, x, y, width] of svg.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) for (let i = 0; i < Number(width); i++) drawn[Number(y)]![Number(x) + i] = true;
    const expected = encode(link.url, { ecc: 'M', border: 4 });
    expect(size).toBe(expected.size);
    expect(drawn).toEqual(expected.data);
    // A finder pattern's 7-module dark ring at the top-left corner, inside the 4-module quiet zone.
    expect(drawn[4]!.slice(4, 11)).toEqual(Array(7).fill(true));
    expect(drawn[3]!.every((dark) => !dark)).toBe(true);
    expect((await fetch(`${gateway.checkoutUrl}/pay/00000000-0000-4000-8000-000000000000/qr.svg`)).status).toBe(404);
  });
});
