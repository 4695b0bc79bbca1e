/**
 * The payment links REST v2 extension (issue 30; docs/payment-links.md): create with products or
 * an amount, the 400s, list / get / deactivate, the scopes of the one access policy, another
 * organisation's link as a 404, answers that conform to openapi/v2.yaml, and `payment_link_id` on
 * the reads of a transaction a link made (and only there).
 */
import { describe, expect, it } from 'vitest';
import { ACCESS_POLICY } from '../../../src/domain/access/policy.js';
import { V2_DEFINITION } from '../../../src/rest/v2/surface.js';
import { useContract } from '../../support/contract.js';
import { useGateway, transactionBody } from '../../support/gateway.js';
import { fillLink } from '../../support/paymentLinks.js';

const gateway = useGateway();
const contract = useContract(V2_DEFINITION, '/api/v2');

const PRODUCTS = [
  { name: 'Boubou brodé', price: 15_000, quantity: 1, description: 'Taille M' },
  { name: 'Foulard', price: 2_500, quantity: 2 },
];

async function merchant(scope = 'checkout') {
  return gateway.merchant({ scope, name: 'Couture Dakar' });
}

describe('POST /api/v2/payment-links', () => {
  it('makes a reusable link that sells products: the total, its page and QR code on the checkout origin, active, nothing paid yet', async () => {
    const { key } = await merchant();
    const created = await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: 'Boubou', products: PRODUCTS, method_of_payment: ['wave'] } });
    expect(created.status).toBe(200);
    contract.expectConforms('createPaymentLink', 200, created.body);
    expect(created.body).toMatchObject({
      name: 'Boubou',
      status: 'active',
      amount: 20_000,
      single_use: false,
      expires_at: null,
      paid_count: 0,
      paid_amount: 0,
    });
    expect(created.body.url).toBe(`${gateway.checkoutUrl}/pay/${created.body.id}`);
    expect(created.body.qr_code_url).toBe(`${gateway.checkoutUrl}/pay/${created.body.id}/qr.svg`);
    const stored = await gateway.ctx.db.paymentLink.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.methodOfPayment).toEqual(['wave']);
  });

  it('makes a single-use link for a fixed amount with an expiry and redirect URLs; without methods it offers every method the organisation may use', async () => {
    const { key } = await merchant();
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await gateway.rest('POST', '/api/v2/payment-links', {
      key,
      body: {
        name: 'Acompte',
        amount: 5_000,
        single_use: true,
        expires_at: expiresAt,
        success_url: 'https://shop.example.sn/merci',
        error_url: 'https://shop.example.sn/oups',
      },
    });
    expect(created.status).toBe(200);
    contract.expectConforms('createPaymentLink', 200, created.body);
    expect(created.body).toMatchObject({ amount: 5_000, single_use: true, expires_at: expiresAt, status: 'active' });
    const stored = await gateway.ctx.db.paymentLink.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.methodOfPayment.sort()).toEqual(['orange_money', 'wave']);
    expect(stored.successUrl).toBe('https://shop.example.sn/merci');
  });

  it.each([
    [{ products: PRODUCTS }, 'Invalid request body: name is required'],
    [{ name: '  ', amount: 100 }, 'Invalid payment link: name is required'],
    [{ name: 'X' }, 'Invalid payment link: give either products or amount'],
    [{ name: 'X', amount: 100, products: PRODUCTS }, 'Invalid payment link: give either products or amount'],
    [{ name: 'X', amount: 0 }, 'Invalid payment link: amount must be a positive integer number of XOF'],
    [{ name: 'X', amount: 10.5 }, 'Invalid request body: amount must be an integer'],
    [{ name: 'X', amount: '100' }, 'Invalid request body: amount must be an integer'],
    [{ name: 'X', products: [] }, 'Add minimum one product'],
    [{ name: 'X', amount: 100, method_of_payment: ['cash'] }, 'Unsupported payment method'],
    [{ name: 'X', amount: 100, method_of_payment: [] }, 'Add minimum one payment method'],
    [{ name: 'X', amount: 100, expires_at: '2020-01-01T00:00:00Z' }, 'Invalid payment link: expires_at must be in the future'],
    [{ name: 'X', amount: 100, expires_at: 'tomorrow' }, 'Invalid request body: expires_at must be an RFC 3339 date-time'],
    [{ name: 'X', amount: 100, success_url: 'javascript:alert(1)' }, 'Invalid url'],
    [{ name: 'X', amount: 100, single_use: 'yes' }, 'Invalid request body: single_use must be true or false'],
  ])('refuses %j with 400 %s and makes nothing', async (body, message) => {
    const { key, organization } = await merchant();
    const response = await gateway.rest('POST', '/api/v2/payment-links', { key, body });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
    expect(await gateway.ctx.db.paymentLink.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('refuses a body that is not JSON, and an amount the organisation does not allow, as POST /transactions would', async () => {
    const { key } = await gateway.merchant({ update: { maxTransactionAmount: 10_000 } });
    const notJson = await gateway.rest('POST', '/api/v2/payment-links', { key, rawBody: '{name:' });
    expect(notJson).toMatchObject({ status: 400, body: { error: 'Invalid request body' } });
    const tooMuch = await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: 'Gros', amount: 50_000 } });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toContain('10000');
  });
});

describe('GET, list and DELETE /api/v2/payment-links', () => {
  it('reads a link, lists them newest first by status, and deactivates one (twice is not an error)', async () => {
    const { key } = await merchant();
    const first = (await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: 'Un', amount: 1_000 } })).body;
    const second = (await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: 'Deux', amount: 2_000 } })).body;

    const read = await gateway.rest('GET', `/api/v2/payment-links/${first.id}`, { key });
    expect(read.status).toBe(200);
    contract.expectConforms('getPaymentLink', 200, read.body);
    expect(read.body).toEqual(first);

    const listed = await gateway.rest('GET', '/api/v2/payment-links', { key });
    contract.expectConforms('listPaymentLinks', 200, listed.body);
    expect(listed.body.payment_links.map((link: { id: string }) => link.id)).toEqual([second.id, first.id]);
    expect(listed.body.pagination).toEqual({ page: 1, limit: 20, total_count: 2, total_pages: 1 });

    const deactivated = await gateway.rest('DELETE', `/api/v2/payment-links/${first.id}`, { key });
    expect(deactivated.status).toBe(200);
    contract.expectConforms('deactivatePaymentLink', 200, deactivated.body);
    expect(deactivated.body.status).toBe('deactivated');
    expect((await gateway.rest('DELETE', `/api/v2/payment-links/${first.id}`, { key })).body.status).toBe('deactivated');

    const active = await gateway.rest('GET', '/api/v2/payment-links?status=active', { key });
    expect(active.body.payment_links.map((link: { id: string }) => link.id)).toEqual([second.id]);
    const gone = await gateway.rest('GET', '/api/v2/payment-links?status=deactivated&limit=1', { key });
    expect(gone.body.payment_links.map((link: { id: string }) => link.id)).toEqual([first.id]);

    const badStatus = await gateway.rest('GET', '/api/v2/payment-links?status=paid', { key });
    expect(badStatus).toMatchObject({ status: 400, body: { error: 'Invalid query parameter: status has an unsupported value' } });
  });

  it("answers another organisation's link, an unknown id and a malformed one exactly alike: 404, and deactivates none of them", async () => {
    const owner = await merchant();
    const other = await merchant();
    const link = (await gateway.rest('POST', '/api/v2/payment-links', { key: owner.key, body: { name: 'À moi', amount: 1_000 } })).body;
    for (const id of [link.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      for (const method of ['GET', 'DELETE']) {
        const response = await gateway.rest(method, `/api/v2/payment-links/${id}`, { key: other.key });
        expect(response, `${method} ${id}`).toMatchObject({ status: 404, body: { error: 'Payment link not found' } });
      }
    }
    expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key: owner.key })).body.status).toBe('active');
    expect((await gateway.rest('GET', '/api/v2/payment-links', { key: other.key })).body.payment_links).toEqual([]);
  });

  it('counts the paid transactions of a link and their amount; a transaction it made reads with payment_link_id, others without', async () => {
    const { key } = await merchant();
    const link = (await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: 'Thiéboudienne', amount: 3_000 } })).body;
    const made = await fillLink(link.url, { phone: '+221770001234' });
    expect(made.status).toBe(303);
    const orderId = made.location!.split('/').pop()!;
    const pay = await gateway.graphql('mutation($id: ID!) { sandboxPay(orderId: $id, method: wave) { outcome } }', { id: orderId }, gateway.adminToken);
    expect(pay.body.errors).toBeUndefined();

    const read = await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key });
    expect(read.body).toMatchObject({ paid_count: 1, paid_amount: 3_000, status: 'active' });
    const transaction = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });
    contract.expectConforms('getTransaction', 200, transaction.body);
    expect(transaction.body).toMatchObject({ payment_link_id: link.id, transaction_status: 'paid', amount: 3_000 });
    expect(transaction.body.customer).toMatchObject({ first_name: 'Awa', last_name: 'Diop', phone: '+221770001234' });

    const plain = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    const plainRead = await gateway.rest('GET', `/api/v2/transactions/${plain.body.order_id}`, { key });
    expect(plainRead.body).not.toHaveProperty('payment_link_id');
    const list = await gateway.rest('GET', '/api/v2/transactions', { key });
    contract.expectConforms('listTransactions', 200, list.body);
    expect(list.body.transactions.find((row: { order_id: string }) => row.order_id === orderId).payment_link_id).toBe(link.id);
  });
});

describe('scopes (the one access policy)', () => {
  const SCOPES = ['checkout', 'read', 'write', 'readAndWrite', 'payout', 'management'] as const;
  const MAY_CREATE = ['checkout', 'write', 'readAndWrite'];
  const MAY_READ = ['checkout', 'read', 'write', 'readAndWrite'];

  it('lets checkout, write and readAndWrite create and deactivate, those and read read; the others get 403 and change nothing', async () => {
    const { organization, key: ownKey } = await merchant();
    const link = (await gateway.rest('POST', '/api/v2/payment-links', { key: ownKey, body: { name: 'Scopes', amount: 1_000 } })).body;
    expect([...ACCESS_POLICY.createPaymentLink.scopes].sort()).toEqual([...MAY_CREATE].sort());
    expect([...ACCESS_POLICY.getPaymentLink.scopes].sort()).toEqual([...MAY_READ].sort());
    for (const scope of SCOPES) {
      const key = await gateway.createKey(organization.id, scope);
      const before = await gateway.ctx.db.paymentLink.count({ where: { organizationId: organization.id } });
      const created = await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: scope, amount: 1_000 } });
      expect(created.status, `create with ${scope}`).toBe(MAY_CREATE.includes(scope) ? 200 : 403);
      if (created.status === 403) {
        expect(created.body).toEqual({ error: "You don't have permission to perform this action" });
        expect(await gateway.ctx.db.paymentLink.count({ where: { organizationId: organization.id } })).toBe(before);
      }
      expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key })).status, `get with ${scope}`).toBe(MAY_READ.includes(scope) ? 200 : 403);
      expect((await gateway.rest('GET', '/api/v2/payment-links', { key })).status, `list with ${scope}`).toBe(MAY_READ.includes(scope) ? 200 : 403);
      if (!MAY_CREATE.includes(scope)) {
        expect((await gateway.rest('DELETE', `/api/v2/payment-links/${link.id}`, { key })).status, `delete with ${scope}`).toBe(403);
      }
    }
    expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key: ownKey })).body.status).toBe('active');
  });

  it('refuses without a key (401) and an inactive organisation’s writes (401), as the spec’s endpoints do', async () => {
    const anonymous = await gateway.rest('POST', '/api/v2/payment-links', { body: { name: 'X', amount: 1_000 } });
    expect(anonymous).toMatchObject({ status: 401, body: { error: 'Invalid API key' } });
    const { key } = await gateway.merchant({ update: { status: 'inactive' } });
    const inactive = await gateway.rest('POST', '/api/v2/payment-links', { key, body: { name: 'X', amount: 1_000 } });
    expect(inactive).toMatchObject({ status: 401, body: { error: 'Organization is not active' } });
    expect((await gateway.rest('GET', '/api/v2/payment-links', { key })).status).toBe(200);
  });
});
