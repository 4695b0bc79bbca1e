/**
 * Input the analyses refuse, each with a clear GraphQL error (a BAD_USER_INPUT-class code and a
 * 4xx status in extensions), never a 500: an empty or reversed range, more buckets than answered,
 * a range too long to scan, an unknown enum value, a malformed date or organisation id, a limit out
 * of bounds, a grouping an analysis does not have.
 */
import { describe, expect, it } from 'vitest';
import { MAX_BUCKETS, MAX_SCAN_DAYS } from '../../../src/domain/analytics/ranges.js';
import { MAX_TOP_ORGANIZATIONS } from '../../../src/domain/analytics/topOrganizations.js';
import { useGateway } from '../../support/gateway.js';
import { expectGraphqlError, graphqlRefusal } from '../../support/assertions.js';
import { TRANSACTION_STATS } from '../../support/analytics.js';
import {
  ConversionStatsDocument,
  RefundStatsDocument,
  TimeToPayStatsDocument,
  TopOrganizationsDocument,
  TransactionStatsDocument,
  type TransactionStatsQueryVariables,
} from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();
const DAY_MS = 86_400_000;
const FROM = new Date('2026-01-01T00:00:00.000Z');
const plusDays = (days: number) => new Date(FROM.getTime() + days * DAY_MS).toISOString();

// Raw query text (TRANSACTION_STATS) stays only where the schema itself must refuse a value: an
// unknown enum or a date that is not one, written in the query or in its variables.
/** As the admin operator. */
const stats = (variables: Partial<TransactionStatsQueryVariables>) =>
  graphqlTyped(gateway, TransactionStatsDocument, { from: FROM.toISOString(), to: plusDays(30), interval: 'DAY', ...variables }, gateway.adminToken);

describe('refused ranges', () => {
  it('to equal to or before from', async () => {
    expectGraphqlError(await stats({ to: FROM.toISOString() }), 'invalid_input', 'from must be before to');
    expectGraphqlError(await stats({ to: plusDays(-1) }), 'invalid_input', 'from must be before to');
  });

  it(`more than ${MAX_BUCKETS} buckets; the same range by a longer interval is answered`, async () => {
    const refused = await stats({ to: plusDays(MAX_BUCKETS + 1) });
    expectGraphqlError(
      refused,
      'invalid_input',
      `the range holds ${MAX_BUCKETS + 1} day buckets, at most ${MAX_BUCKETS} are answered: narrow it or take a longer interval`,
    );
    expect(refused.status).toBeLessThan(500);
    const byWeek = await stats({ to: plusDays(MAX_BUCKETS + 1), interval: 'WEEK' });
    expect(byWeek.body.errors).toBeUndefined();
    // Exactly MAX_BUCKETS days: answered.
    expect((await stats({ to: plusDays(MAX_BUCKETS) })).body.errors).toBeUndefined();
  });

  it(`a scanned analysis over more than ${MAX_SCAN_DAYS} days`, async () => {
    const response = await graphqlTyped(gateway, ConversionStatsDocument, { from: FROM.toISOString(), to: plusDays(MAX_SCAN_DAYS + 1) }, gateway.adminToken);
    expectGraphqlError(response, 'invalid_input', `the range spans more than ${MAX_SCAN_DAYS} days: narrow it`);
    const timeToPay = await graphqlTyped(gateway, TimeToPayStatsDocument, { from: plusDays(10), to: FROM.toISOString() }, gateway.adminToken);
    expectGraphqlError(timeToPay, 'invalid_input', 'from must be before to');
  });
});

describe('refused values', () => {
  it('an unknown interval or dimension, or a date that is not one, written in the query: a validation error, not a 500', async () => {
    for (const args of ['interval: HOUR', 'interval: DAY, groupBy: [CUSTOMER]', 'interval: DAY, from: "yesterday"']) {
      const from = args.includes('from:') ? '' : `from: "${FROM.toISOString()}", `;
      const refusal = await graphqlRefusal(gateway, `{ transactionStats(${from}to: "${plusDays(30)}", ${args}) { count } }`);
      expect(refusal.httpStatus).toBeLessThan(500);
      expect(refusal.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(refusal.message).toMatch(/HOUR|CUSTOMER|yesterday/);
    }
  });

  it('the same values in variables: refused before execution, naming the value, not a 500', async () => {
    for (const variables of [{ interval: 'HOUR' }, { groupBy: ['CUSTOMER'] }, { from: 'yesterday' }]) {
      const refusal = await graphqlRefusal(gateway, TRANSACTION_STATS, { from: FROM.toISOString(), to: plusDays(30), interval: 'DAY', ...variables });
      expect(refusal.httpStatus).toBeLessThan(500);
      expect(refusal.message).toMatch(/got invalid value .*(HOUR|CUSTOMER|yesterday)/);
    }
  });

  it('an organisation id that cannot be one: not found, not a 500', async () => {
    expectGraphqlError(await stats({ organizationId: 'not-a-uuid' }), 'organization_not_found');
  });

  it(`a topOrganizations limit outside 1 to ${MAX_TOP_ORGANIZATIONS}`, async () => {
    for (const limit of [0, MAX_TOP_ORGANIZATIONS + 1]) {
      const response = await graphqlTyped(gateway, TopOrganizationsDocument, { from: FROM.toISOString(), to: plusDays(30), limit }, gateway.adminToken);
      expectGraphqlError(response, 'invalid_input', `limit must be an integer from 1 to ${MAX_TOP_ORGANIZATIONS}`);
    }
  });

  it('refunds grouped by STATUS (a refund counted here succeeded: it has no status to group by)', async () => {
    const response = await graphqlTyped(
      gateway,
      RefundStatsDocument,
      { from: FROM.toISOString(), to: plusDays(30), interval: 'DAY', groupBy: ['STATUS'] },
      gateway.adminToken,
    );
    expectGraphqlError(response, 'invalid_input', 'groupBy takes METHOD, ORGANIZATION here');
  });
});
