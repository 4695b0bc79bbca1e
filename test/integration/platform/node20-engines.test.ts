/**
 * Some dependencies declare Node >= 22 in `engines` (npm prints EBADENGINE on Node 20); the
 * machines run Node 20.20. Their declared minimums are not real requirements on the paths we use
 * (docs/development.md, "Installing"): each such path is exercised here, on the Node that runs the suite.
 */
import { describe, expect, it } from 'vitest';
import { V2_DEFINITION } from '../../../src/rest/v2/surface.js';
import { useGateway } from '../../support/gateway.js';
import { TransactionsPageSizeDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();

describe('dependencies declaring Node >= 22, on this Node', () => {
  it('runs on Node 20.19 or later (the engines floor)', () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 20 || (major === 20 && minor >= 19)).toBe(true);
  });

  it('@apidevtools/json-schema-ref-parser@16 (openapi-backend) dereferences the v2 contract', async () => {
    const { dereference } = await import('@apidevtools/json-schema-ref-parser');
    const contract = (await dereference(V2_DEFINITION)) as { paths: Record<string, unknown> };
    expect(Object.keys(contract.paths)).toContain('/transactions/{order_id}');
  });

  it('@whatwg-node/promise-helpers@2 and disposablestack (graphql-yoga executor) answer a query with variables', async () => {
    const { key } = await gateway.merchant();
    const response = await graphqlTyped(gateway, TransactionsPageSizeDocument, { limit: 5 }, key);
    expect(response.body.data).toEqual({ transactions: { pagination: { limit: 5 } } });
  });

  it('cookie@2 (light-my-request, fastify inject) serves an injected request', async () => {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.get('/', async (_request, reply) => reply.header('set-cookie', 'a=1').send({ ok: true }));
    const response = await app.inject({ method: 'GET', url: '/', cookies: { b: '2' } });
    expect(response.json()).toEqual({ ok: true });
    expect(response.cookies).toEqual([expect.objectContaining({ name: 'a', value: '1' })]);
    await app.close();
  });
});
