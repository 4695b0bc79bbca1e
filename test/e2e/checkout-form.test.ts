/**
 * The checkout's rules over plain HTTP (no browser): what the page offers, what a POST of the
 * form does, and every way a post is refused without changing anything.
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { setSwitch } from '../../src/domain/organizations/setSwitch.js';
import { FORM_BODY_LIMIT } from '../../src/checkout/app.js';
import { startGateway, transactionBody, useGateway } from '../support/gateway.js';

const gateway = useGateway();

interface Page {
  status: number;
  html: string;
  headers: Headers;
}

async function open(url: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(url, { headers });
  return { status: response.status, html: await response.text(), headers: response.headers };
}

const tokenOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
/** Whitespace as a reader sees it: any run of spaces (incl. non-breaking) is one space. */
const text = (html: string): string =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

async function post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page & { location: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, html: await response.text(), headers: response.headers, location: response.headers.get('location') };
}

async function newTransaction(body: Record<string, unknown> = {}, merchant?: { key: string }) {
  const { key } = merchant ?? (await gateway.merchant({ name: 'Boutique Dakar' }));
  const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(body) });
  expect(created.status).toBe(200);
  const orderId: string = created.body.order_id;
  const url: string = created.body.checkout_url;
  const read = async () => (await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body;
  return { key, orderId, url, read };
}

/** Opens the page and posts its form with these fields (the page's own token unless given). */
async function pay(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const page = await open(url);
  return post(url, { csrf_token: tokenOf(page.html), ...fields }, headers);
}

describe('the checkout page (GET)', () => {
  it('offers each method of the transaction with its fee and total when the customer pays the fees, in French by default', async () => {
    const { url, orderId } = await newTransaction({ fees_customer_side: true, products: [{ name: 'Bissap', price: 1500, quantity: 2 }] });
    const page = await open(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-language')).toBe('fr');
    const words = text(page.html);
    expect(words).toContain('Boutique Dakar');
    expect(words).toContain('Bissap 2 × 1 500 XOF 3 000 XOF');
    expect(words).toContain('Wave — 3 030 XOF (dont 30 XOF de frais)');
    expect(words).toContain('Orange Money — 3 045 XOF (dont 45 XOF de frais)');
    expect(words).toContain(orderId);
    expect(page.html).toMatch(/<input[^>]+type="tel"[^>]+name="phone"/);
    expect(page.html).toContain('placeholder="+221 77 123 45 67"');
    expect(page.html).toMatch(/<form[^>]+method="post"[^>]+action="\/checkout\/[0-9a-f-]{36}"/);
    expect(tokenOf(page.html)).toMatch(/^\d+\.[\w-]{43}$/);
    expect(page.html).not.toMatch(/<script/i);
  });

  it('shows one total for every method when the merchant bears the fees', async () => {
    const { url } = await newTransaction();
    const words = text((await open(url)).html);
    expect(words).toContain('Total : 3 000 XOF');
    expect(words).toContain('Wave — 3 000 XOF');
    expect(words).not.toContain('frais)');
  });

  it('speaks English when the browser prefers English, French otherwise, and ?lang= overrides', async () => {
    const { url } = await newTransaction();
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'fr'],
      [{ 'accept-language': 'en-US,en;q=0.9' }, 'en'],
      [{ 'accept-language': 'fr-SN,fr;q=0.9,en;q=0.8' }, 'fr'],
      [{ 'accept-language': 'wo-SN,en;q=0.5,fr;q=0.9' }, 'fr'],
      [{ 'accept-language': 'de-DE' }, 'fr'],
      [{ 'accept-language': 'en;q=0.9,fr;q=0.4' }, 'en'],
    ];
    for (const [headers, lang] of cases) {
      const page = await open(url, headers);
      expect(page.html, JSON.stringify(headers)).toContain(`<html lang="${lang}">`);
      expect(text(page.html)).toContain(lang === 'fr' ? 'Payer' : 'Pay');
    }
    const english = await open(`${url}?lang=en`, { 'accept-language': 'fr' });
    expect(english.html).toContain('<html lang="en">');
    expect(english.html).toMatch(/action="\/checkout\/[0-9a-f-]{36}\?lang=en"/);
  });

  it('escapes what merchants and customers wrote', async () => {
    const { key } = await gateway.merchant({ name: '<script>alert("name")</script> & Fils' });
    const { url } = await newTransaction(
      { products: [{ name: '<script>alert(1)</script>', price: 1500, quantity: 1, description: '<img src=x onerror=alert(2)>' }] },
      { key },
    );
    const page = await open(url);
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; &amp; Fils');
    const refused = await pay(url, { method: 'wave', phone: '"><script>alert(3)</script>' });
    expect(refused.status).toBe(400);
    expect(refused.html).not.toContain('<script>');
    expect(refused.html).toContain('value="&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"');
  });

  it('sends the security headers, and lets the form land on the merchant redirect origins only', async () => {
    const { url } = await newTransaction({ success_url: 'https://shop.example.sn/merci', error_url: 'https://pay-errors.example.sn:8443/oups' });
    const page = await open(url);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).toContain("form-action 'self' https://shop.example.sn https://pay-errors.example.sn:8443;");
    expect(csp).not.toContain('script-src');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('shows the state and no form for paid, escrow-held, cancelled and refunded transactions', async () => {
    const paid = await newTransaction();
    expect((await pay(paid.url, { method: 'wave', phone: '+221 77 123 45 67' })).status).toBe(303);
    const { key: escrowKey } = await gateway.merchant({ escrowEnabled: true });
    const held = await newTransaction({ is_escrow: true }, { key: escrowKey });
    expect((await pay(held.url, { method: 'orange_money', phone: '+221771234567' })).status).toBe(303);
    expect((await held.read()).transaction_status).toBe('paid_and_blocked');
    const cancelled = await newTransaction();
    expect((await gateway.rest('DELETE', `/api/v2/transactions/${cancelled.orderId}`, { key: cancelled.key })).status).toBe(200);
    const refunded = await newTransaction();
    expect((await pay(refunded.url, { method: 'wave', phone: '+221771234567' })).status).toBe(303);
    await gateway.db.prisma.transaction.update({ where: { id: refunded.orderId }, data: { status: 'refunded', refundedAt: new Date() } });

    const expectations: Array<[string, string, string]> = [
      [paid.url, 'paid', 'Paiement reçu'],
      [held.url, 'paid_and_blocked', 'Paiement reçu'],
      [cancelled.url, 'cancelled', 'Annulé'],
      [refunded.url, 'refunded', 'Remboursé'],
    ];
    for (const [url, status, words] of expectations) {
      const page = await open(url);
      expect(page.status).toBe(200);
      expect(page.html).toContain(`data-status="${status}"`);
      expect(text(page.html)).toContain(words);
      expect(page.html).not.toContain('name="phone"');
      expect(page.html).not.toContain('<form');
    }
  });

  it('answers 404 with a readable page for an unknown or malformed link, on every checkout route', async () => {
    for (const id of [crypto.randomUUID(), 'not-an-id']) {
      for (const suffix of ['', '/success', '/error']) {
        const page = await open(`${gateway.checkoutUrl}/checkout/${id}${suffix}`);
        expect(page.status).toBe(404);
        expect(text(page.html)).toContain('Ce lien de paiement n’est pas valide.');
      }
    }
  });
});

describe('paying with the form (POST)', () => {
  it('pays, then redirects (303) to the merchant success_url; the transaction carries the method and the fees', async () => {
    const { url, read } = await newTransaction({ fees_customer_side: true });
    const result = await pay(url, { method: 'wave', phone: '+221 77 123 45 67' });
    expect(result.status).toBe(303);
    expect(result.location).toBe('https://shop.example.sn/merci');
    const transaction = await read();
    expect(transaction).toMatchObject({ transaction_status: 'paid', selected_payment_method: 'wave', fees: 30, amount: 3000 });
  });

  it('sends a declined payment (…0000) to error_url and leaves the transaction pending', async () => {
    const { url, read } = await newTransaction();
    const result = await pay(url, { method: 'orange_money', phone: '+221770000000' });
    expect(result.status).toBe(303);
    expect(result.location).toBe('https://shop.example.sn/erreur');
    expect(await read()).toMatchObject({ transaction_status: 'pending', selected_payment_method: '', fees: 0 });
  });

  it('asks the customer to confirm on the phone when the wallet has not answered (…1111), the transaction stays pending', async () => {
    const { url, read, orderId } = await newTransaction();
    const result = await pay(url, { method: 'wave', phone: '+221 77 000 11 11' });
    expect(result.status).toBe(200);
    expect(result.html).toContain('data-outcome="awaiting_confirmation"');
    expect(text(result.html)).toContain('Confirmez le paiement sur votre téléphone');
    expect(text(result.html)).toContain('+221770001111');
    expect(result.html).toContain(`href="/checkout/${orderId}"`);
    expect((await read()).transaction_status).toBe('pending');
  });

  it('uses the default pages when the merchant gave no URLs, and they show the state read from the database', async () => {
    const { url, orderId, read } = await newTransaction({ success_url: undefined, error_url: undefined });
    expect((await read()).success_url).toBe(`${gateway.checkoutUrl}/checkout/${orderId}/success`);

    // Before paying, neither page claims success.
    const early = await open(`${url}/success`);
    expect(early.status).toBe(200);
    expect(early.html).toContain('data-outcome="pending"');
    expect(text(early.html)).toContain('Cette commande n’est pas encore payée');

    const declined = await pay(url, { method: 'wave', phone: '+221770000000' });
    expect(declined.location).toBe(`${gateway.checkoutUrl}/checkout/${orderId}/error`);
    const errorPage = await open(declined.location!, { 'accept-language': 'en' });
    expect(errorPage.html).toContain('data-outcome="failed"');
    expect(text(errorPage.html)).toContain('The payment did not go through');
    expect(errorPage.html).toContain(`href="/checkout/${orderId}"`);

    const paid = await pay(url, { method: 'wave', phone: '+221771234567' });
    expect(paid.location).toBe(`${gateway.checkoutUrl}/checkout/${orderId}/success`);
    const successPage = await open(paid.location!);
    expect(successPage.html).toContain('data-outcome="paid"');
    expect(text(successPage.html)).toContain('Paiement reçu');
    expect(text(successPage.html)).toContain('3 000 XOF');
    // The error page of a paid transaction does not say it failed.
    const lateError = await open(`${url}/error`);
    expect(lateError.html).toContain('data-outcome="paid"');
    expect(text(lateError.html)).toContain('Cette commande est déjà payée');
  });

  it('re-shows the form with the reason (400) for a bad phone or no method, and changes nothing', async () => {
    const { url, read } = await newTransaction();
    for (const [fields, message] of [
      [{ method: 'wave', phone: '77 123 45 67' }, 'Numéro de téléphone invalide'],
      [{ method: 'wave', phone: '' }, 'Numéro de téléphone invalide'],
      [{ phone: '+221771234567' }, 'Choisissez un moyen de paiement.'],
      [{ method: '', phone: '+221771234567' }, 'Choisissez un moyen de paiement.'],
    ] as const) {
      const result = await pay(url, fields);
      expect(result.status, JSON.stringify(fields)).toBe(400);
      expect(text(result.html)).toContain(message);
      expect(result.html).toContain('name="phone"');
      expect(tokenOf(result.html)).not.toBe('');
    }
    expect(await read()).toMatchObject({ transaction_status: 'pending', selected_payment_method: '' });
  });

  it('refuses a method the transaction does not offer or that does not exist (400), and changes nothing', async () => {
    const { url, read } = await newTransaction({ method_of_payment: ['wave'] });
    const page = await open(url);
    expect(page.html).not.toContain('value="orange_money"');
    for (const method of ['orange_money', 'bitcoin', 'WAVE ']) {
      const result = await post(url, { csrf_token: tokenOf(page.html), method, phone: '+221771234567' });
      expect(result.status, method).toBe(400);
      expect(text(result.html)).toContain('Ce moyen de paiement n’est pas proposé pour cette commande.');
    }
    expect((await read()).transaction_status).toBe('pending');
  });

  it('refuses a missing, altered or expired token and a token of another transaction (403), and changes nothing', async () => {
    const target = await newTransaction();
    const other = await newTransaction();
    const token = tokenOf((await open(target.url)).html);
    const [expiry, mac] = token.split('.') as [string, string];
    const otherToken = tokenOf((await open(other.url)).html);
    const flipped = `${mac.slice(0, 10)}${mac[10] === 'A' ? 'B' : 'A'}${mac.slice(11)}`;
    for (const csrf_token of [
      undefined,
      '',
      otherToken,
      `${expiry}.${flipped}`,
      `${Number(expiry) + 60}.${mac}`,
      `${Number(expiry) - 10 * 3600}.${mac}`,
      'x'.repeat(500),
    ]) {
      const fields: Record<string, string> = { method: 'wave', phone: '+221771234567' };
      if (csrf_token !== undefined) fields.csrf_token = csrf_token;
      const result = await post(target.url, fields);
      expect(result.status, String(csrf_token)).toBe(403);
      expect(text(result.html)).toContain('Ce formulaire de paiement a expiré ou a été modifié');
      expect(result.html).not.toContain('name="phone"');
    }
    expect((await target.read()).transaction_status).toBe('pending');
    expect((await other.read()).transaction_status).toBe('pending');
    // The genuine token still works afterwards.
    expect((await post(target.url, { csrf_token: token, method: 'wave', phone: '+221771234567' })).status).toBe(303);
  });

  it('refuses posts another site makes (Sec-Fetch-Site, Origin) and repeated fields', async () => {
    const { url, read } = await newTransaction();
    const token = tokenOf((await open(url)).html);
    const fields = { csrf_token: token, method: 'wave', phone: '+221771234567' };
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }] as Record<
      string,
      string
    >[]) {
      const result = await post(url, fields, headers);
      expect(result.status, JSON.stringify(headers)).toBe(403);
      expect(text(result.html)).toContain('Demande refusée');
    }
    const repeated = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf_token=${encodeURIComponent(token)}&method=wave&method=orange_money&phone=%2B221771234567`,
    });
    expect(repeated.status).toBe(400);
    expect((await read()).transaction_status).toBe('pending');
    // Our own page's post: same origin, or Origin "null" (the page sends no referrer).
    expect((await post(url, fields, { 'sec-fetch-site': 'same-origin', origin: 'null' })).status).toBe(303);
    const second = await newTransaction();
    expect((await pay(second.url, { method: 'wave', phone: '+221771234567' }, { 'sec-fetch-site': 'same-origin', origin: gateway.checkoutUrl })).status).toBe(
      303,
    );
  });

  it('answers 4xx pages, never 500, to bodies that are not the form', async () => {
    const { url, read } = await newTransaction();
    const token = tokenOf((await open(url)).html);
    const huge = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf_token=${token}&method=wave&phone=${'1'.repeat(FORM_BODY_LIMIT)}`,
    });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain('<html');
    const plain = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `csrf_token=${token}&method=wave&phone=+221771234567` });
    expect(plain.status).toBe(415);
    const json = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ csrf_token: token, method: 'wave', phone: '+221771234567' }),
    });
    expect(json.status).toBe(415);
    const multipart = new FormData();
    multipart.set('csrf_token', token);
    expect((await fetch(url, { method: 'POST', body: multipart })).status).toBe(415);
    const empty = await fetch(url, { method: 'POST' });
    expect(empty.status).toBe(403);
    const bare = await fetch(`${gateway.checkoutUrl}/checkout/not-an-id`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'method=wave',
    });
    expect(bare.status).toBe(403);
    for (const path of ['/checkout/%E0%A4%A', `/checkout/${'a'.repeat(5000)}`, '/checkout/%00', '/checkout/x/success/more']) {
      const response = await fetch(`${gateway.checkoutUrl}${path}`);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(response.headers.get('content-type'), path).toContain('text/html');
      expect(response.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
    }
    expect((await fetch(url, { method: 'PUT' })).status).toBe(404);
    expect((await read()).transaction_status).toBe('pending');
  });

  it('shows the state instead of paying twice: a second post of a paid transaction is refused (409)', async () => {
    const { url, read } = await newTransaction();
    const token = tokenOf((await open(url)).html);
    const fields = { csrf_token: token, method: 'wave', phone: '+221771234567' };
    expect((await post(url, fields)).status).toBe(303);
    const again = await post(url, fields);
    expect(again.status).toBe(409);
    expect(text(again.html)).toContain('Cette commande est déjà payée');
    expect(again.html).not.toContain('name="phone"');
    expect((await read()).transaction_status).toBe('paid');
  });

  it('redirects to a merchant page on another origin, which the browser may then load', async () => {
    const server = createServer((_request, response) => response.end('merci'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const shop = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const { url } = await newTransaction({ success_url: `${shop}/merci?order=42`, error_url: `${shop}/oups` });
      const page = await open(url);
      expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${shop};`);
      const result = await post(url, { csrf_token: tokenOf(page.html), method: 'wave', phone: '+221771234567' });
      expect(result.location).toBe(`${shop}/merci?order=42`);
    } finally {
      server.close();
    }
  });
});

describe('method switches on the checkout', () => {
  it('does not offer a method the operator switched off, refuses a post of it (503), and says when nothing is left', async () => {
    const { url, read } = await newTransaction();
    const before = await open(url);
    try {
      await setSwitch(gateway.ctx, gateway.operator, 'wave', false);
      const page = await open(url);
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('value="wave"');
      expect(page.html).toContain('value="orange_money"');
      // A form rendered before the switch: the domain refuses the method.
      const late = await post(url, { csrf_token: tokenOf(before.html), method: 'wave', phone: '+221771234567' });
      expect(late.status).toBe(503);
      expect(text(late.html)).toContain('Ce moyen de paiement est temporairement indisponible');
      expect((await read()).transaction_status).toBe('pending');

      await setSwitch(gateway.ctx, gateway.operator, 'orange_money', false);
      const none = await open(url, { 'accept-language': 'en' });
      expect(none.status).toBe(503);
      expect(text(none.html)).toContain('Payment temporarily unavailable');
      expect(none.html).not.toContain('<form');
      expect(none.html).not.toContain('name="phone"');
    } finally {
      await setSwitch(gateway.ctx, gateway.operator, 'wave', true);
      await setSwitch(gateway.ctx, gateway.operator, 'orange_money', true);
    }
  });
});

describe('the checkout origin when something breaks', () => {
  it('shows a plain error page, never the internal message, and logs it', async () => {
    const errors: unknown[] = [];
    const broken = await startGateway({ log: { info: () => undefined, warn: () => undefined, error: (entry) => errors.push(entry) } });
    try {
      const { key } = await broken.merchant();
      const created = await broken.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
      await broken.db.close(); // the database goes away under the page
      const response = await fetch(created.body.checkout_url, { headers: { 'accept-language': 'en' } });
      expect(response.status).toBe(500);
      const html = await response.text();
      expect(html).toContain('Something went wrong.');
      expect(html).not.toMatch(/prisma|pool|database|Error:/i);
      expect(errors).toHaveLength(1);
      const french = await fetch(`${broken.checkoutUrl}/nowhere`);
      expect(french.status).toBe(404);
      expect(await french.text()).toContain('Page introuvable.');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});
