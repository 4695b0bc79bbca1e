/** The checkout's main path on the embedded database (PGlite): page, pay, decline, default pages. */
import { describe, expect, it } from 'vitest';
import { transactionBody, useGateway } from '../support/gateway.js';

const gateway = useGateway({ embedded: true });

const tokenOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function payOnPage(url: string, method: string, phone: string): Promise<Response> {
  const token = tokenOf(await (await fetch(url)).text());
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: token, method, phone }),
  });
}

describe('the checkout on the embedded database', () => {
  it('offers the methods with their fees, declines (…0000) to the error page, then pays to the success page', async () => {
    const { key } = await gateway.merchant({ name: 'Boutique Thiès' });
    const created = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: transactionBody({ fees_customer_side: true, success_url: undefined, error_url: undefined }),
    });
    const { order_id: orderId, checkout_url: url } = created.body;
    const html = await (await fetch(url)).text();
    expect(html.replace(/\s+/g, ' ')).toContain('Wave — 3 030 XOF (dont 30 XOF de frais)');

    const declined = await payOnPage(url, 'wave', '+221770000000');
    expect(declined.status).toBe(303);
    expect(declined.headers.get('location')).toBe(`${url}/error`);
    expect((await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body.transaction_status).toBe('pending');

    const paid = await payOnPage(url, 'orange_money', '+221 77 123 45 67');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${url}/success`);
    expect((await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body).toMatchObject({
      transaction_status: 'paid',
      selected_payment_method: 'orange_money',
      fees: 45,
    });
    const success = await (await fetch(`${url}/success`)).text();
    expect(success).toContain('data-outcome="paid"');
    expect(success).not.toContain('name="phone"');
  });
});
