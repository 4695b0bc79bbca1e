/**
 * The newest releases of some dependencies declare Node >= 22 in `engines` (npm printed EBADENGINE
 * on Node 20, which the machines run). package.json's `overrides` pin each to its newest release
 * that declares Node 20 and keeps the API its parents use (docs/development.md, "Installing");
 * each path they serve is exercised here, on the Node that runs the suite.
 */
import { describe, expect, it } from 'vitest';
import { V2_DEFINITION } from '../../../src/rest/v2/surface.js';
import { useGateway } from '../../support/gateway.js';
import { TransactionsPageSizeDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();

describe('dependencies pinned to releases that support Node 20, on this Node', () => {
  it('runs on Node 20.19 or later (the engines floor)', () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 20 || (major === 20 && minor >= 19)).toBe(true);
  });

  it('@apidevtools/json-schema-ref-parser@15 (openapi-backend, the contract tests) dereferences the v2 contract', async () => {
    const { dereference } = await import('@apidevtools/json-schema-ref-parser');
    const contract = (await dereference(V2_DEFINITION)) as { paths: Record<string, unknown> };
    expect(Object.keys(contract.paths)).toContain('/transactions/{order_id}');
  });

  it('@whatwg-node/promise-helpers@1 and disposablestack@0.0 (graphql-yoga executor) answer a query with variables', async () => {
    const { key } = await gateway.merchant();
    const response = await graphqlTyped(gateway, TransactionsPageSizeDocument, { limit: 5 }, key);
    expect(response.body.data).toEqual({ transactions: { pagination: { limit: 5 } } });
  });

  it('cookie@1 (light-my-request, fastify inject) serves an injected request', async () => {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.get('/', async (_request, reply) => reply.header('set-cookie', 'a=1').send({ ok: true }));
    const response = await app.inject({ method: 'GET', url: '/', cookies: { b: '2' } });
    expect(response.json()).toEqual({ ok: true });
    expect(response.cookies).toEqual([expect.objectContaining({ name: 'a', value: '1' })]);
    await app.close();
  });
});
