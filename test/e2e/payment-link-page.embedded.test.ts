/**
 * A payment link's whole path on the embedded database (PGlite, the default without
 * DATABASE_URL): made through REST, read with its figures, filled (303 into checkout), paid, then
 * `used` (410) for a single-use link; its row lock and claim run there too.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../support/gateway.js';
import { fillLink, formTokenOf, openPage, postForm } from '../support/paymentLinks.js';

const gateway = useGateway({ embedded: true });

describe('payment links on the embedded database', () => {
  it('makes, fills, pays and closes a single-use link; lists it with its figures', async () => {
    const { key } = await gateway.merchant({ name: 'Boutique Thiès', verified: true });
    const created = await gateway.rest('POST', '/api/v2/payment-links', {
      key,
      body: {
        name: 'Panier',
        products: [{ name: 'Mangues', price: 1_000, quantity: 3 }],
        single_use: true,
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(created.status).toBe(200);
    const link = created.body;
    const made = await fillLink(link.url, { phone: '+221770003333' });
    expect(made.status).toBe(303);
    const orderId = made.location!.split('/').pop()!;
    expect((await fillLink(link.url, { phone: '+221770004444' })).status).toBe(409);

    const checkout = await openPage(made.location!);
    const paid = await postForm(made.location!, { csrf_token: formTokenOf(checkout.html), method: 'wave', phone: '+221770003333' });
    expect(paid.status).toBe(303);

    const read = await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key });
    expect(read.body).toMatchObject({ status: 'used', paid_count: 1, paid_amount: 3_000 });
    expect((await openPage(link.url)).status).toBe(410);
    const listed = await gateway.rest('GET', '/api/v2/payment-links?status=used', { key });
    expect(listed.body.payment_links.map((row: { id: string }) => row.id)).toEqual([link.id]);
    expect((await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body.payment_link_id).toBe(link.id);
  });
});
