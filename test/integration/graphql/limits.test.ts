/**
 * What GraphQL refuses and how: queries beyond the bounds set in src/graphql/limits.ts
 * (depth 10, breadth 100, complexity 25000), malformed documents, and exceptions nobody expected
 * (masked as `Internal server error`, never a stack or an internal message).
 */
import { getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useGateway, transactionBody } from '../../support/gateway.js';

const gateway = useGateway();
// Raw query text throughout: the tests measure the text itself (depth, breadth, complexity) or send what the schema refuses.
let key: string;
beforeAll(async () => {
  ({ key } = await gateway.merchant({ scope: 'readAndWrite' }));
});

/** A GraphQL answer that is a refusal: errors, no data at all (not a partial answer). */
function expectRefused(response: { status: number; body: any }) {
  const shown = JSON.stringify(response.body).slice(0, 500);
  expect(response.status, shown).toBeLessThan(500);
  expect(response.body.errors?.length ?? 0, `expected a refusal, got: ${shown}`).toBeGreaterThan(0);
  expect(response.body.data ?? null, shown).toBeNull();
  return response.body.errors[0];
}

describe('query bounds', () => {
  it('answers the deepest shape the schema has (4 levels)', async () => {
    const response = await gateway.graphql(`{ transactions { transactions { customer { firstName } } } }`, {}, key);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ transactions: { transactions: [] } });
  });

  it('reports what each answer cost, and the bounds, in extensions.cost (as Shopify does)', async () => {
    // A page counts the rows it asks for (default 20): 1 + 2 x (1 (the list) + 10 x 1 (orderId)) = 23;
    // breadth counts the fields.
    const small = await gateway.graphql(`{ transactions { transactions { orderId } } }`, {}, key);
    expect(small.body.extensions.cost).toEqual({
      requestedQueryCost: 23,
      maximumQueryCost: 25000,
      depth: 3,
      maximumDepth: 10,
      breadth: 3,
      maximumBreadth: 100,
    });
    const wider = await gateway.graphql(`{ transactions { transactions { orderId amount status } } }`, {}, key);
    expect(wider.body.extensions.cost.requestedQueryCost).toBe(63);
    // A larger page costs in proportion, through a variable too (measured per request, not per document).
    const large = await gateway.graphql(`query($n: Int) { transactions(limit: $n) { transactions { orderId } } }`, { n: 100 }, key);
    expect(large.body.extensions.cost.requestedQueryCost).toBe(111);
  });

  // The depth limit (10, builder.ts) cannot be reached today: no type refers back to itself
  // (the deepest shape is the 4 levels above) and the complexity plugin does not count
  // introspection, whose own nesting graphql-js bounds. It stays for the types to come.

  it('still answers the standard introspection query (GraphiQL and codegen depend on it)', async () => {
    const response = await gateway.graphql(getIntrospectionQuery(), {}, key);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });

  it('refuses a query wider than the breadth limit (100), with an error and no data', async () => {
    const aliases = Array.from({ length: 101 }, (_, i) => `a${i}: __typename`).join(' ');
    const error = expectRefused(await gateway.graphql(`{ transactions { pagination { totalCount } } ${aliases} }`, {}, key));
    expect(error.message).toMatch(/Query exceeds maximum breadth/);
    expect(error.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
  });

  it('refuses a query costlier than the complexity limit (25000), with an error and no data', async () => {
    // A page of 100 with products: 1 + 10 x (1 + 10 x (4 fields + products: 1 + 10 x 4)) = 4511;
    // five of them (22,555) are allowed, six (27,066) are not.
    const page = `transactions(limit: 100) { transactions { orderId amount status currency products { name price quantity description } } }`;
    const pages = (count: number) => Array.from({ length: count }, (_, i) => `p${i}: ${page}`).join(' ');
    const five = await gateway.graphql(`{ ${pages(5)} }`, {}, key);
    expect(five.body.errors).toBeUndefined();
    expect(five.body.extensions.cost.requestedQueryCost).toBe(22555);
    const error = expectRefused(await gateway.graphql(`{ ${pages(6)} }`, {}, key));
    expect(error.message).toBe('Query exceeds maximum complexity (complexity: 27066, max: 25000)');
    expect(error.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });
  });

  it('a refused query has no effect (a mutation past the bounds creates nothing)', async () => {
    const { organization, key: writer } = await gateway.merchant();
    const aliases = Array.from({ length: 101 }, (_, i) => `a${i}: __typename`).join(' ');
    const mutation = `mutation($input: CreateTransactionInput!) { createTransaction(input: $input) { checkoutUrl } ${aliases} }`;
    const input = { methodOfPayment: ['wave'], products: [{ name: 'Mafé', price: 4000, quantity: 1 }] };
    expectRefused(await gateway.graphql(mutation, { input }, writer));
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});

describe('malformed requests are client errors, not 500s', () => {
  it('a syntax error gets a GraphQL syntax error', async () => {
    const response = await gateway.graphql('{ transactions { pagination { ', {}, key);
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0].message).toMatch(/^Syntax Error: /);
    expect(response.body.errors[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('an unknown field gets a validation error', async () => {
    const response = await gateway.graphql('{ transactions { nope } }', {}, key);
    expect(response.status).toBeLessThan(500);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors[0].message).toBe('Cannot query field "nope" on type "TransactionPage".');
    expect(response.body.errors[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('a variable of the wrong type gets a client error', async () => {
    const response = await gateway.graphql('query($page: Int) { transactions(page: $page) { pagination { page } } }', { page: 'two' }, key);
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
    expect(response.body.data ?? null).toBeNull();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0].message).toMatch(/cannot represent non-integer value: "two"/);
    expect(response.body.errors[0].extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
  });
});

describe('unexpected exceptions are masked', () => {
  it('answers "Internal server error" (no internal detail), logs it, and REST says the same', async () => {
    const { key: owner } = await gateway.merchant();
    const created = await gateway.rest('POST', '/api/v2/transactions', { key: owner, body: transactionBody() });
    expect(created.status).toBe(200);
    const orderId: string = created.body.order_id;
    // An amount no operation can write (beyond 2^53): rendering it throws a plain Error.
    await gateway.ctx.db.transaction.update({ where: { id: orderId }, data: { amount: 2n ** 60n } });

    const logged = vi.spyOn(gateway.ctx.log, 'error');
    try {
      const response = await gateway.graphql('query($id: ID!) { transaction(orderId: $id) { orderId amount } }', { id: orderId }, owner);
      expect(response.status).toBe(200);
      expect(response.body.data ?? null).toBeNull();
      expect(response.body.errors).toHaveLength(1);
      const [error] = response.body.errors;
      expect(error.message).toBe('Internal server error');
      expect(error.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', status: 500 });
      expect(JSON.stringify(response.body)).not.toMatch(/exact integer range|at .*\.ts|stack/i);
      expect(logged).toHaveBeenCalledWith(expect.objectContaining({ requestId: response.headers.get('x-request-id') }), 'unexpected GraphQL error');

      const rest = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key: owner });
      expect(rest.status).toBe(500);
      expect(rest.body).toEqual({ error: 'Internal server error' });
    } finally {
      logged.mockRestore();
    }
  });
});
