/**
 * Payment links through GraphQL behave as through the REST v2 extension (issue 30): the same
 * operations, rules, refusals and access policy; plus what REST leaves out (products, methods) and
 * the link's transactions (PaymentLink.transactions).
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { signedIn } from '../../support/dashboard.js';
import { fillLink } from '../../support/paymentLinks.js';

const gateway = useGateway();

const LINK_FIELDS = 'id name url qrCodeUrl status amount singleUse expiresAt paidCount paidAmount methodOfPayment products { name price quantity description }';
const CREATE = `mutation($input: CreatePaymentLinkInput!) { createPaymentLink(input: $input) { ${LINK_FIELDS} } }`;

async function merchant(scope = 'checkout') {
  return gateway.merchant({ scope, name: 'Marché Sandaga', verified: true });
}

describe('createPaymentLink, paymentLink, paymentLinks, deactivatePaymentLink', () => {
  it('makes a link with products or an amount, reads it, lists it as a connection, and deactivates it, as REST does', async () => {
    const { key } = await merchant();
    const withProducts = await gateway.graphql(
      CREATE,
      { input: { name: 'Tissus', products: [{ name: 'Wax', price: 4_000, quantity: 3 }], methodOfPayment: ['orange_money'] } },
      key,
    );
    expect(withProducts.body.errors).toBeUndefined();
    const link = withProducts.body.data.createPaymentLink;
    expect(link).toMatchObject({
      status: 'active',
      amount: 12_000,
      singleUse: false,
      paidCount: 0,
      methodOfPayment: ['orange_money'],
      products: [{ name: 'Wax', price: 4_000, quantity: 3, description: null }],
    });
    expect(link.url).toBe(`${gateway.checkoutUrl}/pay/${link.id}`);

    const withAmount = await gateway.graphql(CREATE, { input: { name: 'Acompte', amount: 7_500, singleUse: true } }, key);
    expect(withAmount.body.data.createPaymentLink).toMatchObject({
      amount: 7_500,
      singleUse: true,
      products: [{ name: 'Acompte', price: 7_500, quantity: 1 }],
    });

    // The REST extension reads the same link the same way.
    const rest = await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key });
    expect(rest.body).toMatchObject({ id: link.id, amount: 12_000, url: link.url, qr_code_url: link.qrCodeUrl, status: 'active' });

    const listed = await gateway.graphql('{ paymentLinks(first: 1) { edges { node { id } } pageInfo { hasNextPage endCursor } } }', {}, key);
    expect(listed.body.data.paymentLinks.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([withAmount.body.data.createPaymentLink.id]);
    expect(listed.body.data.paymentLinks.pageInfo.hasNextPage).toBe(true);
    const next = await gateway.graphql(
      'query($after: String) { paymentLinks(first: 5, after: $after) { edges { node { id } } pageInfo { hasNextPage } } }',
      { after: listed.body.data.paymentLinks.pageInfo.endCursor },
      key,
    );
    expect(next.body.data.paymentLinks.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([link.id]);

    const deactivated = await gateway.graphql('mutation($id: ID!) { deactivatePaymentLink(id: $id) { status } }', { id: link.id }, key);
    expect(deactivated.body.data.deactivatePaymentLink.status).toBe('deactivated');
    const active = await gateway.graphql('{ paymentLinks(status: active) { edges { node { id } } } }', {}, key);
    expect(active.body.data.paymentLinks.edges).toHaveLength(1);
  });

  it('refuses what REST refuses, with the same wordings, and makes nothing', async () => {
    const { key, organization } = await merchant();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'X' }, 'Invalid payment link: give either products or amount'],
      [{ name: 'X', amount: 100, products: [{ name: 'A', price: 1, quantity: 1 }] }, 'Invalid payment link: give either products or amount'],
      [{ name: '', amount: 100 }, 'Invalid payment link: name is required'],
      [{ name: 'X', amount: 100, expiresAt: '2020-01-01T00:00:00Z' }, 'Invalid payment link: expires_at must be in the future'],
      [{ name: 'X', amount: 100, successUrl: 'ftp://nope' }, 'Invalid url'],
    ];
    for (const [input, message] of cases) {
      const response = await gateway.graphql(CREATE, { input }, key);
      expect(response.body.errors?.[0]?.message, JSON.stringify(input)).toBe(message);
      expect(response.body.errors[0].extensions.status).toBe(400);
    }
    expect(await gateway.ctx.db.paymentLink.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it("follows the access policy: a read key reads but cannot create; a payout key neither; another organisation's link is not found", async () => {
    const { key, organization } = await merchant();
    const link = (await gateway.graphql(CREATE, { input: { name: 'Privé', amount: 1_000 } }, key)).body.data.createPaymentLink;
    const readKey = await gateway.createKey(organization.id, 'read');
    const payoutKey = await gateway.createKey(organization.id, 'payout');
    expect((await gateway.graphql('query($id: ID!) { paymentLink(id: $id) { id } }', { id: link.id }, readKey)).body.data.paymentLink.id).toBe(link.id);
    const readCreates = await gateway.graphql(CREATE, { input: { name: 'Non', amount: 1_000 } }, readKey);
    expect(readCreates.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const payoutReads = await gateway.graphql('query($id: ID!) { paymentLink(id: $id) { id } }', { id: link.id }, payoutKey);
    expect(payoutReads.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const other = await merchant();
    const foreign = await gateway.graphql('query($id: ID!) { paymentLink(id: $id) { id } }', { id: link.id }, other.key);
    expect(foreign.body.errors[0].extensions.code).toBe('PAYMENT_LINK_NOT_FOUND');
    const foreignDeactivate = await gateway.graphql('mutation($id: ID!) { deactivatePaymentLink(id: $id) { id } }', { id: link.id }, other.key);
    expect(foreignDeactivate.body.errors[0].extensions.code).toBe('PAYMENT_LINK_NOT_FOUND');
    expect((await gateway.rest('GET', `/api/v2/payment-links/${link.id}`, { key })).body.status).toBe('active');
  });

  it("shows a link's transactions with their customer, and its paid count and amount once paid; the transaction knows its link", async () => {
    const { key } = await merchant();
    const link = (await gateway.graphql(CREATE, { input: { name: 'Yassa', amount: 2_500 } }, key)).body.data.createPaymentLink;
    const made = await fillLink(link.url, { first_name: 'Ibrahima', phone: '+221770004321' });
    const orderId = made.location!.split('/').pop()!;
    await fillLink(link.url, { first_name: 'Khady', phone: '+221770004322' });
    await gateway.graphql('mutation($id: ID!) { sandboxPay(orderId: $id, method: wave) { outcome } }', { id: orderId }, gateway.adminToken);

    const read = await gateway.graphql(
      'query($id: ID!) { paymentLink(id: $id) { paidCount paidAmount transactions { transactions { orderId status paymentLinkId customer { firstName phone } } pagination { totalCount } } } }',
      { id: link.id },
      key,
    );
    expect(read.body.errors).toBeUndefined();
    const { paidCount, paidAmount, transactions } = read.body.data.paymentLink;
    expect({ paidCount, paidAmount }).toEqual({ paidCount: 1, paidAmount: 2_500 });
    expect(transactions.pagination.totalCount).toBe(2);
    expect(transactions.transactions.map((row: { customer: { firstName: string } }) => row.customer.firstName)).toEqual(['Khady', 'Ibrahima']);
    expect(transactions.transactions[1]).toMatchObject({ orderId, status: 'paid', paymentLinkId: link.id });
  });

  it('keeps who paid a link from a key that reads links but not transactions (write): no transactions, no search through them', async () => {
    const { key, organization } = await merchant();
    const link = (await gateway.graphql(CREATE, { input: { name: 'Mafé', amount: 2_000 } }, key)).body.data.createPaymentLink;
    await fillLink(link.url, { first_name: 'Fatou', phone: '+221770004777' });
    const writeKey = await gateway.createKey(organization.id, 'write');
    const TRANSACTIONS = 'query($id: ID!) { paymentLink(id: $id) { name transactions { transactions { customer { phone } } } } }';
    const byWrite = await gateway.graphql(TRANSACTIONS, { id: link.id }, writeKey);
    expect(byWrite.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await gateway.graphql('query($id: ID!) { paymentLink(id: $id) { name } }', { id: link.id }, writeKey)).body.data.paymentLink.name).toBe('Mafé');

    const SEARCH = 'query($q: String) { paymentLinks(search: $q, first: 10) { totalCount } }';
    const count = async (q: string, asKey: string) => (await gateway.graphql(SEARCH, { q }, asKey)).body.data.paymentLinks.totalCount;
    expect(await count('770004777', key)).toBe(1);
    expect(await count('770004777', writeKey)).toBe(0);
    expect(await count('Mafé', writeKey)).toBe(1);
  });
});

describe('paymentLinks(search:) — the dashboard search across links (issue 30 item 3)', () => {
  const SEARCH = 'query($q: String) { paymentLinks(search: $q, first: 10) { totalCount edges { node { id name } } } }';
  const found = async (q: string, key: string) => {
    const answer = await gateway.graphql(SEARCH, { q }, key);
    expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
    return answer.body.data.paymentLinks.edges.map((edge: { node: { name: string } }) => edge.node.name).sort();
  };

  it('finds a link by its name, its id, or a payment of it by order id or the customer’s phone in any writing; only the caller’s', async () => {
    const { key, organization } = await merchant();
    const thieb = (await gateway.graphql(CREATE, { input: { name: 'Thiéboudienne du vendredi', amount: 3_000 } }, key)).body.data.createPaymentLink;
    await gateway.graphql(CREATE, { input: { name: 'Bissap 1 L', amount: 1_000 } }, key);
    const made = await fillLink(thieb.url, { first_name: 'Mariama', phone: '+221775550123' });
    const orderId = made.location!.split('/').pop()!;

    expect(await found('thiéboudienne', key)).toEqual(['Thiéboudienne du vendredi']);
    expect(await found(thieb.id, key)).toEqual(['Thiéboudienne du vendredi']);
    expect(await found(orderId, key)).toEqual(['Thiéboudienne du vendredi']);
    expect(await found('77 555 01 23', key)).toEqual(['Thiéboudienne du vendredi']);
    expect(await found('00221775550123', key)).toEqual(['Thiéboudienne du vendredi']);
    expect(await found('Mariama', key)).toEqual(['Thiéboudienne du vendredi']);
    expect(await found('770000000', key)).toEqual([]);
    expect((await gateway.graphql(SEARCH, { q: '%' }, key)).body.data.paymentLinks.totalCount).toBe(0);
    expect((await gateway.graphql(SEARCH, { q: '' }, key)).body.data.paymentLinks.totalCount).toBe(2);

    // Another organisation's search never sees them; a key that may not read links is refused.
    const other = await merchant();
    expect(await found('77 555 01 23', other.key)).toEqual([]);
    expect(await found(thieb.id, other.key)).toEqual([]);
    const payoutKey = await gateway.createKey(organization.id, 'payout');
    expect((await gateway.graphql(SEARCH, { q: 'Bissap' }, payoutKey)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    // Too long a text is a 400, as for transactions.
    const tooLong = await gateway.graphql(SEARCH, { q: 'x'.repeat(101) }, key);
    expect(tooLong.body.errors[0].extensions.status).toBe(400);
  });
});

describe('the audit log of payment links (issue 30)', () => {
  const LOG = 'query($org: ID) { auditEvents(organizationId: $org, first: 20) { nodes { action actorKind actorLabel target details } } }';

  it('records who made a link and who deactivated it, once, with the change', async () => {
    const organization = await gateway.createOrganization({ verified: true });
    const owner = await signedIn(gateway, organization.id, 'owner');
    const key = await gateway.createKey(organization.id, 'checkout');
    const made = (await owner.data(`mutation { createPaymentLink(input: { name: "Pagne", amount: 9000, singleUse: true }) { id } }`)).createPaymentLink;
    const byKey = (await gateway.graphql(CREATE, { input: { name: 'Par API', amount: 500 } }, key)).body.data.createPaymentLink;
    await owner.data('mutation($id: ID!) { deactivatePaymentLink(id: $id) { status } }', { id: made.id });
    await owner.data('mutation($id: ID!) { deactivatePaymentLink(id: $id) { status } }', { id: made.id });
    // A refused creation records nothing.
    await gateway.graphql(CREATE, { input: { name: 'Refusé', amount: -1 } }, key);

    const { nodes } = (await owner.data(LOG)).auditEvents;
    const linkRows = nodes.filter((row: { action: string }) => row.action.startsWith('payment_link.'));
    expect(linkRows).toEqual([
      { action: 'payment_link.deactivated', actorKind: 'merchantUser', actorLabel: owner.email, target: made.id, details: '{"name":"Pagne"}' },
      {
        action: 'payment_link.created',
        actorKind: 'merchant',
        actorLabel: 'API key (checkout)',
        target: byKey.id,
        details: expect.stringContaining('"name":"Par API"'),
      },
      {
        action: 'payment_link.created',
        actorKind: 'merchantUser',
        actorLabel: owner.email,
        target: made.id,
        details: expect.stringContaining('"amount":9000'),
      },
    ]);
    expect(JSON.parse(linkRows[2].details)).toEqual({ name: 'Pagne', amount: 9000, singleUse: true });
    // The audit page's filter knows the new actions.
    expect((await owner.data('{ auditEvents(action: "payment_link.created") { nodes { target } } }')).auditEvents.nodes).toHaveLength(2);
  });
});
