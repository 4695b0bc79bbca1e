/**
 * The fingerprint names the operation and its input, not the surface: a key used through REST
 * and then through GraphQL (or the other way round) for the same operation and input is the same
 * request, replayed in the second surface's own shape.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../support/gateway.js';
import { CreateTransactionWithCheckoutDocument as CREATE, type CreateTransactionInput } from '../support/graphql/generated.js';
import { graphqlTyped } from '../support/graphql/typed.js';

const gateway = useGateway();

const REST_BODY = {
  method_of_payment: ['wave'],
  products: [{ name: 'Bissap', price: 1500, quantity: 2 }],
  customer: { first_name: 'Awa', phone: '+221771234567' },
};
const GRAPHQL_INPUT: CreateTransactionInput = {
  methodOfPayment: ['wave'],
  products: [{ name: 'Bissap', price: 1500, quantity: 2 }],
  customer: { firstName: 'Awa', phone: '+221771234567' },
};

const viaRest = (key: string, idempotencyKey: string, body = REST_BODY) =>
  gateway.rest('POST', '/api/v2/transactions', { key, body, headers: { 'idempotency-key': idempotencyKey } });
const viaGraphql = (key: string, idempotencyKey: string, input = GRAPHQL_INPUT) => graphqlTyped(gateway, CREATE, { input, key: idempotencyKey }, key);
const count = (organizationId: string) => gateway.ctx.db.transaction.count({ where: { organizationId } });

describe('one key across surfaces', () => {
  it('REST first, then GraphQL: GraphQL replays the transaction REST created', async () => {
    const { organization, key } = await gateway.merchant();
    const rest = await viaRest(key, 'cross-1');
    const graphql = await viaGraphql(key, 'cross-1');
    expect(graphql.headers.get('idempotent-replayed')).toBe('true');
    expect(graphql.body.data!.createTransaction).toEqual({ checkoutUrl: rest.body.checkout_url, transaction: { orderId: rest.body.order_id } });
    expect(await count(organization.id)).toBe(1);
  });

  it('GraphQL first, then REST: REST replays it in the v2 shape', async () => {
    const { organization, key } = await gateway.merchant();
    const graphql = await viaGraphql(key, 'cross-2');
    const rest = await viaRest(key, 'cross-2');
    expect(rest.status).toBe(200);
    expect(rest.headers.get('idempotent-replayed')).toBe('true');
    expect(rest.body).toMatchObject({ order_id: graphql.body.data!.createTransaction.transaction.orderId, amount: 3000, transaction_status: 'pending' });
    expect(await count(organization.id)).toBe(1);
  });

  it('another input under the key is the same refusal on both surfaces', async () => {
    const { key } = await gateway.merchant();
    await viaRest(key, 'cross-3');
    const rest = await viaRest(key, 'cross-3', { ...REST_BODY, products: [{ name: 'Thiof', price: 9000, quantity: 1 }] });
    const graphql = await viaGraphql(key, 'cross-3', { ...GRAPHQL_INPUT, products: [{ name: 'Thiof', price: 9000, quantity: 1 }] });
    expect({ status: rest.status, message: rest.body.error }).toEqual({
      status: graphql.body.errors[0].extensions.status,
      message: graphql.body.errors[0].message,
    });
    expect(rest.status).toBe(422);
  });

  it('a refusal stored through one surface replays through the other', async () => {
    const { organization, key } = await gateway.merchant();
    const tooSmall = { ...REST_BODY, products: [{ name: 'x', price: 5, quantity: 1 }] };
    const rest = await viaRest(key, 'cross-4', tooSmall);
    const graphql = await viaGraphql(key, 'cross-4', { ...GRAPHQL_INPUT, products: [{ name: 'x', price: 5, quantity: 1 }] });
    expect(rest.status).toBe(400);
    expect(graphql.headers.get('idempotent-replayed')).toBe('true');
    expect(graphql.body.errors[0]).toMatchObject({ message: rest.body.error, extensions: { code: 'INVALID_TOTAL', status: 400 } });
    expect(await count(organization.id)).toBe(0);
  });
});
