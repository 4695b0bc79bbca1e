/**
 * GRAPHQL_PRELOAD (docs/configuration.md): the GraphQL API is loaded before the gateway listens
 * unless it says false; then the first /graphql request makes it, and answers as any other would.
 * Anything but a boolean word refuses the start, naming the variable.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { useGateway } from '../../support/gateway.js';

const lazy = useGateway({ graphqlPreload: false });

describe('GRAPHQL_PRELOAD', () => {
  it('is on unless false/0/no/off, and refuses to start on anything else', () => {
    expect(loadConfig({}).graphqlPreload).toBe(true);
    expect(loadConfig({ GRAPHQL_PRELOAD: 'yes' }).graphqlPreload).toBe(true);
    for (const off of ['false', '0', 'no', 'OFF']) expect(loadConfig({ GRAPHQL_PRELOAD: off }).graphqlPreload).toBe(false);
    expect(() => loadConfig({ GRAPHQL_PRELOAD: 'later' })).toThrow('GRAPHQL_PRELOAD must be true or false (got "later")');
  });

  it('off: the first requests, sent at once, are answered as they are with it on; a bad token is still refused', async () => {
    const [first, second] = await Promise.all([
      lazy.graphql('{ operatorTokens { id } }', {}, lazy.adminToken),
      lazy.graphql('mutation { createOrganization(input: { name: "Made lazily" }) { name } }', {}, lazy.adminToken),
    ]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.operatorTokens).toEqual([]);
    expect(second.body.data).toEqual({ createOrganization: { name: 'Made lazily' } });
    const refused = await lazy.graphql('{ operatorTokens { id } }', {}, 'gw_op_not_a_token');
    expect(refused.status).toBe(401);
  });
});
