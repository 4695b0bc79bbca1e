/**
 * Who reads which analyses, by the one access policy: a merchant key with a read scope reads its
 * own organisation only (naming another one is refused); every operator role (analyst included)
 * reads every organisation or the one it names; the ranking across merchants is operators' only.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OperatorRole } from '../../../src/generated/prisma/enums.js';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { useGateway } from '../../support/gateway.js';
import { expectGraphqlError } from '../../support/assertions.js';
import { EveryAnalysisDocument, PayoutStatsDocument, TopOrganizationsDocument, TransactionStatsDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';
import { insertPayouts, insertTransactions, model, sortRows, type Fact } from '../../support/analytics.js';

const gateway = useGateway();
const RANGE = { from: new Date('2026-02-01T00:00:00.000Z'), to: new Date('2026-03-01T00:00:00.000Z') };
const VARIABLES = { from: RANGE.from.toISOString(), to: RANGE.to.toISOString(), interval: 'WEEK' } as const;

let mine: { organization: { id: string }; key: string };
let other: string;
let facts: Fact[];
let payoutFacts: Fact[];
const tokens: Partial<Record<OperatorRole, string>> = {};

/** An operator token of `role`, issued straight into the database. */
async function operatorToken(role: OperatorRole): Promise<string> {
  const token = `gw_op_${randomBytes(32).toString('base64url')}`;
  await gateway.ctx.db.operatorToken.create({ data: { role, prefix: token.slice(0, 14), tokenDigest: sha256Hex(token) } });
  return token;
}

beforeAll(async () => {
  mine = await gateway.merchant({ name: 'Mine', scope: 'read' });
  other = (await gateway.createOrganization({ name: 'Other' })).id;
  facts = await insertTransactions(gateway, [mine.organization.id, other], 120, RANGE.from, RANGE.to, 5);
  payoutFacts = await insertPayouts(gateway, [mine.organization.id, other], 60, RANGE.from, RANGE.to, 6);
  tokens.analyst = await operatorToken('analyst');
  tokens.support = await operatorToken('support');
});

describe('a merchant key', () => {
  it('reads its own organisation’s transactions and payouts only', async () => {
    const transactions = await graphqlDataTyped(gateway, TransactionStatsDocument, { ...VARIABLES, groupBy: ['METHOD', 'STATUS', 'ORGANIZATION'] }, mine.key);
    expect(sortRows(transactions.transactionStats)).toEqual(model(facts, RANGE, 'WEEK', ['METHOD', 'STATUS', 'ORGANIZATION'], mine.organization.id));
    const payouts = await graphqlDataTyped(gateway, PayoutStatsDocument, { ...VARIABLES, groupBy: ['ORGANIZATION'] }, mine.key);
    expect(sortRows(payouts.payoutStats)).toEqual(model(payoutFacts, RANGE, 'WEEK', ['ORGANIZATION'], mine.organization.id));
  });

  it('may name its own organisation, and is refused when it names another', async () => {
    const own = await graphqlDataTyped(gateway, TransactionStatsDocument, { ...VARIABLES, organizationId: mine.organization.id }, mine.key);
    expect(sortRows(own.transactionStats)).toEqual(model(facts, RANGE, 'WEEK', [], mine.organization.id));
    const refused = await graphqlTyped(gateway, TransactionStatsDocument, { ...VARIABLES, organizationId: other }, mine.key);
    expectGraphqlError(refused, 'permission_denied');
    expect(refused.body.data ?? null).toBeNull();
  });

  it('is refused the ranking across merchants, and analyses its scope does not cover', async () => {
    const vars = { from: VARIABLES.from, to: VARIABLES.to };
    expectGraphqlError(await graphqlTyped(gateway, TopOrganizationsDocument, vars, mine.key), 'permission_denied');
    // A checkout key lists transactions but not payouts: payoutStats is not its to read.
    const { key: checkoutKey } = await gateway.merchant({ name: 'Checkout only', scope: 'checkout' });
    expectGraphqlError(await graphqlTyped(gateway, PayoutStatsDocument, VARIABLES, checkoutKey), 'permission_denied');
    expect((await graphqlDataTyped(gateway, TransactionStatsDocument, VARIABLES, checkoutKey)).transactionStats).toEqual([]);
  });
});

describe('operators', () => {
  for (const role of ['analyst', 'support'] as const) {
    it(`${role}: runs every analysis, across every organisation`, async () => {
      const data = await graphqlDataTyped(gateway, EveryAnalysisDocument, { from: VARIABLES.from, to: VARIABLES.to }, tokens[role]);
      expect(data.transactionStats.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(facts.length);
      expect(data.payoutStats.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(payoutFacts.length);
      expect(new Set(data.topOrganizations.map((row: { organizationId: string }) => row.organizationId))).toEqual(new Set([mine.organization.id, other]));
    });
  }

  it('name one organisation to read it alone', async () => {
    const data = await graphqlDataTyped(gateway, TransactionStatsDocument, { ...VARIABLES, groupBy: ['STATUS'], organizationId: other }, tokens.analyst);
    expect(sortRows(data.transactionStats)).toEqual(model(facts, RANGE, 'WEEK', ['STATUS'], other));
  });
});
