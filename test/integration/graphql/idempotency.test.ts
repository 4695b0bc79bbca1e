/** GraphQL mutations honour idempotency keys as REST does: argument or header. */
import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { CreateTransactionOnceDocument, type CreateTransactionOnceMutationVariables } from '../../support/graphql/generated.js';

const gateway = useGateway();

const input = (price = 1500) => ({ methodOfPayment: ['wave' as const], products: [{ name: 'Bissap', price, quantity: 2 }] });
const count = (organizationId: string) => gateway.ctx.db.transaction.count({ where: { organizationId } });

async function create(key: string, variables: CreateTransactionOnceMutationVariables, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ query: print(CreateTransactionOnceDocument), variables }),
  });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as any };
}

describe('GraphQL idempotency keys', () => {
  it('replays the first answer for the same key and input (argument), announced by Idempotent-Replayed', async () => {
    const { organization, key } = await gateway.merchant();
    const first = await create(key, { input: input(), key: 'gql-1' });
    const second = await create(key, { input: input(), key: 'gql-1' });
    expect(first.replayed).toBeNull();
    expect(second.replayed).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await count(organization.id)).toBe(1);
  });

  it('takes the key from the Idempotency-Key header as well', async () => {
    const { organization, key } = await gateway.merchant();
    const first = await create(key, { input: input() }, { 'idempotency-key': 'gql-header' });
    const second = await create(key, { input: input(), key: 'gql-header' });
    expect(second.body.data.createTransaction.transaction.orderId).toBe(first.body.data.createTransaction.transaction.orderId);
    expect(await count(organization.id)).toBe(1);
  });

  it('refuses another input under a used key (422 IDEMPOTENCY_KEY_REUSED), running nothing', async () => {
    const { organization, key } = await gateway.merchant();
    await create(key, { input: input(), key: 'gql-2' });
    const other = await create(key, { input: input(9000), key: 'gql-2' });
    expect(other.body.errors[0]).toMatchObject({
      message: 'This Idempotency-Key was already used with a different request',
      extensions: { code: 'IDEMPOTENCY_KEY_REUSED', status: 422 },
    });
    expect(await count(organization.id)).toBe(1);
  });

  it('refuses an argument that contradicts the header, and a malformed key', async () => {
    const { organization, key } = await gateway.merchant();
    const contradicting = await create(key, { input: input(), key: 'a' }, { 'idempotency-key': 'b' });
    expect(contradicting.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400 });
    const malformed = await create(key, { input: input(), key: 'has space' });
    expect(malformed.body.errors[0]).toMatchObject({ message: 'Idempotency-Key must be 1 to 255 visible ASCII characters', extensions: { status: 400 } });
    expect(await count(organization.id)).toBe(0);
  });

  it('lets exactly one of many concurrent mutations with one key run; the others get 409 or the replay', async () => {
    const { organization, key } = await gateway.merchant();
    const results = await Promise.all(Array.from({ length: 6 }, () => create(key, { input: input(), key: 'gql-race' })));
    const orderIds = new Set(results.filter((r) => r.body.data?.createTransaction).map((r) => r.body.data.createTransaction.transaction.orderId));
    const refusals = results.filter((r) => r.body.errors).map((r) => r.body.errors[0].extensions.code);
    expect(orderIds.size).toBe(1);
    expect(refusals.every((code) => code === 'IDEMPOTENCY_KEY_IN_USE')).toBe(true);
    expect(await count(organization.id)).toBe(1);
  });
});
