/**
 * An operator naming an organisation by an id that cannot be one gets 404 `organization_not_found`
 * from every operator query that takes an organisationId (the one access policy decides it, in
 * organizationOf), never a 500 from PostgreSQL refusing the id.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
// Raw query text: each test is named by its query, an id that cannot be one written into it.

const QUERIES = [
  '{ transactions(organizationId: "nope") { transactions { orderId } } }',
  '{ payouts(organizationId: "nope") { payouts { orderId } } }',
  '{ accounts(organizationId: "nope") { id } }',
  '{ webhooks(organizationId: "nope") { id } }',
  '{ accountStats(organizationId: "") { totalBalance } }',
];

describe('an operator naming a malformed organisation id', () => {
  it.each(QUERIES)('%s answers NOT_FOUND, not a 500', async (query) => {
    const answer = await gateway.graphql(query, {}, gateway.adminToken);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body.errors?.[0]?.extensions?.code).toMatch(/NOT_FOUND/);
  });
});
