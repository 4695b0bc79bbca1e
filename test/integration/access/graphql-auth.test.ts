/**
 * docs/graphql.md: `Authorization: Bearer <API key or operator token>`; a missing or unknown
 * token is refused (HTTP 401 or `extensions.code` UNAUTHENTICATED) even for `{ __typename }`;
 * only the GraphiQL page is served without a token. API keys get the REST scope rules; operator
 * mutations need an operator.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../src/domain/operations.js';
import { useGateway, transactionBody, type HttpResult } from '../../support/gateway.js';
import {
  CreateOrganizationDocument,
  CreateTransactionDocument,
  MerchantCancelTransactionDocument,
  type CreateTransactionInput,
  TransactionAndRecentOrderIdsDocument,
  TypenameDocument,
  UpdateOrganizationDocument,
} from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';

// Raw query text stays only for introspection and the requests sent with a hand-made header or GET.

const PERMISSION_DENIED = "You don't have permission to perform this action";

const gateway = useGateway();
let organizationId: string;
let checkoutKey: string;

beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'checkout' });
  organizationId = merchant.organization.id;
  checkoutKey = merchant.key;
});

/**
 * A refused, unauthenticated GraphQL request: HTTP 401, or a GraphQL error whose code is
 * UNAUTHENTICATED; either way no data at all.
 */
function expectUnauthenticated(response: HttpResult) {
  expect(response.body?.data ?? null).toBeNull();
  const codes = (response.body?.errors ?? []).map((error: { extensions?: { code?: string } }) => error.extensions?.code);
  expect(response.status === 401 || codes.includes('UNAUTHENTICATED'), `status ${response.status}, body ${JSON.stringify(response.body)}`).toBe(true);
  if (response.body?.errors) {
    expect(response.body.errors).toStrictEqual([
      expect.objectContaining({ message: 'Invalid API key', extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) }),
    ]);
  }
}

/** One field error with the REST wording and the FORBIDDEN code, and no data for that field. */
function expectForbidden(response: HttpResult, field: string) {
  expect(response.status).toBe(200);
  expect(response.body.data).toBeNull();
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0]).toMatchObject({ message: PERMISSION_DENIED, path: [field], extensions: { code: 'FORBIDDEN' } });
}

/** POST /graphql with a raw Authorization header (or none). */
async function graphqlWithHeader(query: string, authorization?: string) {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization !== undefined && { authorization }) },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: response.status, body, headers: response.headers };
}

const transactionInput: CreateTransactionInput = {
  methodOfPayment: ['wave', 'orange_money'],
  products: [{ name: 'Bissap juice', price: 1500, quantity: 2 }],
  customer: { firstName: 'Awa', lastName: 'Diop', phone: '+221771234567' },
};

describe('GraphQL refuses requests without a valid token', () => {
  it('refuses { __typename } without an Authorization header', async () => {
    expectUnauthenticated(await graphqlTyped(gateway, TypenameDocument, {}));
  });

  it('refuses { __typename } with an unknown API key', async () => {
    expectUnauthenticated(await graphqlTyped(gateway, TypenameDocument, {}, `gw_sk_${randomBytes(32).toString('base64url')}`));
  });

  it('refuses { __typename } with an unknown operator token', async () => {
    expectUnauthenticated(await graphqlTyped(gateway, TypenameDocument, {}, `gw_op_${randomBytes(32).toString('base64url')}`));
  });

  it('refuses { __typename } with a token of another format', async () => {
    expectUnauthenticated(await graphqlTyped(gateway, TypenameDocument, {}, 'not-a-gateway-token'));
  });

  it.each(['Bearer', 'Basic xxx', `Basic ${Buffer.from('user:pass').toString('base64')}`])('refuses the malformed header "%s"', async (authorization) => {
    expectUnauthenticated(await graphqlWithHeader('{ __typename }', authorization));
  });

  it('refuses a revoked API key', async () => {
    const issued = await createApiKey(gateway.ctx, gateway.operator, organizationId, 'checkout');
    const before = await graphqlTyped(gateway, TypenameDocument, {}, issued.secret);
    expect(before.status).toBe(200);
    expect(before.body.data).toStrictEqual({ __typename: 'Query' });
    await revokeApiKey(gateway.ctx, gateway.operator, issued.apiKey.id);
    expectUnauthenticated(await graphqlTyped(gateway, TypenameDocument, {}, issued.secret));
  });

  it('refuses introspection without a token', async () => {
    expectUnauthenticated(await gateway.graphql('{ __schema { queryType { name } } }'));
  });

  it('refuses a GET query without a token (only the GraphiQL page is public)', async () => {
    const response = await fetch(`${gateway.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
    const body = await response.json().catch(() => undefined);
    expectUnauthenticated({ status: response.status, body, headers: response.headers });
  });

  it('refuses an operator mutation without a token, and creates nothing', async () => {
    const before = await gateway.ctx.db.organization.count();
    expectUnauthenticated(await graphqlTyped(gateway, CreateOrganizationDocument, { input: { name: 'Intruder' } }));
    expect(await gateway.ctx.db.organization.count()).toBe(before);
  });
});

describe('GraphiQL', () => {
  it('serves the GraphiQL HTML page to GET with Accept: text/html without a token', async () => {
    const response = await fetch(`${gateway.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/<html/i);
    expect(html).toMatch(/graphiql/i);
  });
});

describe('GraphQL with an API key', () => {
  it('accepts { __typename } and merchant queries', async () => {
    const created = await gateway.rest('POST', '/api/v2/transactions', { key: checkoutKey, body: transactionBody() });
    expect(created.status).toBe(200);
    const orderId = created.body.order_id;

    const typename = await graphqlTyped(gateway, TypenameDocument, {}, checkoutKey);
    expect(typename.status).toBe(200);
    expect(typename.body.data).toStrictEqual({ __typename: 'Query' });

    const response = await graphqlTyped(gateway, TransactionAndRecentOrderIdsDocument, { orderId }, checkoutKey);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.transaction).toStrictEqual({ orderId, status: 'pending', amount: 3000 });
    expect(response.body.data!.transactions.transactions.map((transaction: { orderId: string }) => transaction.orderId)).toContain(orderId);
  });

  it('accepts the scheme case-insensitively', async () => {
    const response = await graphqlWithHeader('{ __typename }', `bearer ${checkoutKey}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toStrictEqual({ __typename: 'Query' });
  });

  it('gets FORBIDDEN for the operator mutation createOrganization, and nothing is created', async () => {
    const before = await gateway.ctx.db.organization.count();
    const response = await graphqlTyped(gateway, CreateOrganizationDocument, { input: { name: 'Merchant-made org' } }, checkoutKey);
    expectForbidden(response, 'createOrganization');
    expect(await gateway.ctx.db.organization.count()).toBe(before);
  });

  it('gets FORBIDDEN for the operator mutation updateOrganization on its own organisation, and nothing changes', async () => {
    const response = await graphqlTyped(gateway, UpdateOrganizationDocument, { id: organizationId, input: { verified: true } }, checkoutKey);
    expectForbidden(response, 'updateOrganization');
    expect((await gateway.ctx.db.organization.findUniqueOrThrow({ where: { id: organizationId } })).verified).toBe(false);
  });

  it('gets FORBIDDEN for createTransaction with a read key (same rule as REST), and nothing is written', async () => {
    const readKey = await gateway.createKey(organizationId, 'read');
    const before = await gateway.ctx.db.transaction.count({ where: { organizationId } });
    const response = await graphqlTyped(gateway, CreateTransactionDocument, { input: transactionInput }, readKey);
    expectForbidden(response, 'createTransaction');
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId } })).toBe(before);

    const rest = await gateway.rest('POST', '/api/v2/transactions', { key: readKey, body: transactionBody() });
    expect(rest.status).toBe(403);
    expect(rest.body).toStrictEqual({ error: PERMISSION_DENIED });
  });

  it('creates a transaction through GraphQL with a write key', async () => {
    const writeKey = await gateway.createKey(organizationId, 'write');
    const response = await graphqlTyped(gateway, CreateTransactionDocument, { input: transactionInput }, writeKey);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.createTransaction.transaction).toMatchObject({ status: 'pending', amount: 3000 });
  });
});

describe('GraphQL with the admin token', () => {
  it('can createOrganization', async () => {
    const name = `Admin-made ${randomBytes(3).toString('hex')}`;
    const response = await graphqlTyped(gateway, CreateOrganizationDocument, { input: { name } }, gateway.adminToken);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.createOrganization).toMatchObject({ name, status: 'active' });
    const stored = await gateway.ctx.db.organization.findUniqueOrThrow({ where: { id: response.body.data!.createOrganization.id } });
    expect(stored.name).toBe(name);
  });

  it('gets FORBIDDEN for merchant operations: an operator is not an organisation', async () => {
    // (createTransaction is the one merchant operation an admin may run, naming the organisation: gateway trigger.)
    const response = await graphqlTyped(gateway, MerchantCancelTransactionDocument, { orderId: randomUUID() }, gateway.adminToken);
    expectForbidden(response, 'cancelTransaction');
  });
});
