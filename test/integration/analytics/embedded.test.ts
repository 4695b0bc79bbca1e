/**
 * The embedded database (PGlite, `npm start` without DATABASE_URL) runs the analytics as
 * PostgreSQL does: the rollup's trigger and refresh, and transactionStats matching the model.
 */
import { beforeAll, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { TransactionStatsDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';
import { insertTransactions, model, sortRows, type Fact } from '../../support/analytics.js';

const gateway = useGateway({ embedded: true });
const RANGE = { from: new Date('2026-02-03T06:00:00.000Z'), to: new Date('2026-03-02T00:00:00.000Z') };
let organizationId: string;
let facts: Fact[];

beforeAll(async () => {
  organizationId = (await gateway.createOrganization({ name: 'Embedded stats' })).id;
  facts = await insertTransactions(gateway, [organizationId], 80, new Date('2026-02-01T00:00:00.000Z'), RANGE.to, 11);
});

it('answers transactionStats from the rollup on PGlite, and sees a payment made after it was built', async () => {
  const ask = async () =>
    sortRows(
      (
        await graphqlDataTyped(gateway, TransactionStatsDocument, {
          from: RANGE.from.toISOString(),
          to: RANGE.to.toISOString(),
          interval: 'WEEK',
          groupBy: ['METHOD', 'STATUS'],
        })
      ).transactionStats,
    );
  expect(await ask()).toEqual(model(facts, RANGE, 'WEEK', ['METHOD', 'STATUS']));
  const pending = await gateway.ctx.db.transaction.findFirstOrThrow({ where: { organizationId, status: 'pending', createdAt: { gte: RANGE.from } } });
  await gateway.ctx.db.transaction.update({ where: { id: pending.id }, data: { status: 'paid', selectedPaymentMethod: 'wave', fees: 10n } });
  const index = facts.findIndex(
    (fact) => fact.createdAt.getTime() === pending.createdAt.getTime() && fact.status === 'pending' && fact.amount === Number(pending.amount),
  );
  facts[index] = { ...facts[index]!, status: 'paid', method: 'wave', fees: 10 };
  expect(await ask()).toEqual(model(facts, RANGE, 'WEEK', ['METHOD', 'STATUS']));
});
