/**
 * Spec, Authentication 5 and Errors "Any endpoint": an unknown key or a malformed Authorization
 * header gets 401 `{"error":"Invalid API key"}` on every endpoint; REST accepts API keys only.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../src/domain/operations.js';
import { useGateway, transactionBody } from '../../support/gateway.js';

const INVALID_API_KEY = { error: 'Invalid API key' };

const gateway = useGateway();
let organizationId: string;
let validKey: string;
/** A pending transaction of the organisation, so GET/DELETE answer 401 rather than 404. */
let orderId: string;

beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'checkout' });
  organizationId = merchant.organization.id;
  validKey = merchant.key;
  const created = await gateway.rest('POST', '/api/v2/transactions', { key: validKey, body: transactionBody() });
  expect(created.status).toBe(200);
  orderId = created.body.order_id;
});

interface Endpoint {
  name: string;
  method: string;
  path: () => string;
  body?: () => unknown;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'POST /transactions', method: 'POST', path: () => '/api/v2/transactions', body: () => transactionBody() },
  { name: 'GET /transactions', method: 'GET', path: () => '/api/v2/transactions' },
  { name: 'GET /transactions/{order_id}', method: 'GET', path: () => `/api/v2/transactions/${orderId}` },
  { name: 'DELETE /transactions/{order_id}', method: 'DELETE', path: () => `/api/v2/transactions/${orderId}` },
];

const transactionCount = () => gateway.ctx.db.transaction.count({ where: { organizationId } });

/** Sends `authorization` (or none) to every endpoint and expects 401 `Invalid API key` from each; nothing changes. */
async function expectRefusedEverywhere(authorization: string | undefined) {
  const before = await transactionCount();
  for (const endpoint of ENDPOINTS) {
    const response = await gateway.rest(endpoint.method, endpoint.path(), {
      headers: authorization === undefined ? {} : { authorization },
      ...(endpoint.body && { body: endpoint.body() }),
    });
    // The endpoint's name is part of the compared value so a failure says which one answered wrongly.
    expect({ endpoint: endpoint.name, status: response.status, body: response.body }).toStrictEqual({
      endpoint: endpoint.name,
      status: 401,
      body: INVALID_API_KEY,
    });
  }
  expect(await transactionCount()).toBe(before);
  const transaction = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });
  expect(transaction.status).toBe('pending');
  expect(transaction.isDeleted).toBe(false);
}

const unknownWellFormedKey = () => `gw_sk_${randomBytes(32).toString('base64url')}`;

describe('REST v2 refuses requests without a valid API key with 401 Invalid API key', () => {
  it('refuses a request without an Authorization header', async () => {
    await expectRefusedEverywhere(undefined);
  });

  it('refuses the Bearer scheme without a token', async () => {
    await expectRefusedEverywhere('Bearer');
  });

  it('refuses the Bearer scheme followed only by spaces', async () => {
    await expectRefusedEverywhere('Bearer  ');
  });

  it('refuses a Basic scheme, even when it carries a valid key', async () => {
    await expectRefusedEverywhere('Basic xxx');
    await expectRefusedEverywhere(`Basic ${validKey}`);
    await expectRefusedEverywhere(`Basic ${Buffer.from(`${validKey}:`).toString('base64')}`);
  });

  it('refuses a valid key sent without any scheme', async () => {
    await expectRefusedEverywhere(validKey);
  });

  it('refuses a well-formed gw_sk_ key that was never issued', async () => {
    await expectRefusedEverywhere(`Bearer ${unknownWellFormedKey()}`);
  });

  it('refuses a valid key with a character appended or removed', async () => {
    await expectRefusedEverywhere(`Bearer ${validKey}x`);
    await expectRefusedEverywhere(`Bearer ${validKey.slice(0, -1)}`);
  });

  it('refuses keys of another format', async () => {
    await expectRefusedEverywhere('Bearer sk_live_51H8abcdefghijklmnopqrstuvwxyz');
    await expectRefusedEverywhere('Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl');
    await expectRefusedEverywhere(`Bearer ${'a'.repeat(300)}`);
  });

  it('refuses a malformed header that contains a valid key among other text', async () => {
    await expectRefusedEverywhere(`Bearer ${validKey} ${validKey}`);
    await expectRefusedEverywhere(`Bearer ${validKey}, Bearer ${validKey}`);
  });

  it('refuses the operator (admin) token: REST accepts API keys only', async () => {
    await expectRefusedEverywhere(`Bearer ${gateway.adminToken}`);
  });

  it('refuses a revoked key on every endpoint, from the next request on', async () => {
    const issued = await createApiKey(gateway.ctx, gateway.operator, organizationId, 'checkout');
    const before = await gateway.rest('GET', '/api/v2/transactions', { key: issued.secret });
    expect(before.status).toBe(200);

    await revokeApiKey(gateway.ctx, gateway.operator, issued.apiKey.id);

    await expectRefusedEverywhere(`Bearer ${issued.secret}`);
  });

  it('answers 401 before looking at the body: a bad key with a malformed body is still Invalid API key', async () => {
    const response = await gateway.rest('POST', '/api/v2/transactions', {
      headers: { authorization: `Bearer ${unknownWellFormedKey()}` },
      rawBody: '{"products": [',
    });
    expect(response.status).toBe(401);
    expect(response.body).toStrictEqual(INVALID_API_KEY);
  });

  it("keeps the organisation's other keys working when one key is revoked", async () => {
    const issued = await createApiKey(gateway.ctx, gateway.operator, organizationId, 'checkout');
    await revokeApiKey(gateway.ctx, gateway.operator, issued.apiKey.id);
    const response = await gateway.rest('GET', '/api/v2/transactions', { key: validKey });
    expect(response.status).toBe(200);
  });
});

describe('REST v2 accepts the Bearer scheme case-insensitively', () => {
  it.each(['bearer', 'BEARER', 'BeArEr'])('accepts "%s <key>"', async (scheme) => {
    const list = await gateway.rest('GET', '/api/v2/transactions', { headers: { authorization: `${scheme} ${validKey}` } });
    expect(list.status).toBe(200);
    expect(list.body.transactions.map((transaction: { order_id: string }) => transaction.order_id)).toContain(orderId);

    const created = await gateway.rest('POST', '/api/v2/transactions', { headers: { authorization: `${scheme} ${validKey}` }, body: transactionBody() });
    expect(created.status).toBe(200);
    expect(created.body.transaction_status).toBe('pending');
  });
});
