/**
 * Analytics for analysts and internal tools (docs/analytics.md): transactionStats
 * and payoutStats with the names other tools rely on, and what an analyst asks next (refunds over
 * time, conversion, time to pay, the largest merchants). Grouping and sums are PostgreSQL's
 * (domain/analytics/); a merchant key reads its own organisation, operators every one or the one
 * they name.
 */
import { authorizeRead } from '../../domain/access/auth.js';
import type { ConversionStats } from '../../domain/analytics/conversionStats.js';
import { STATS_DIMENSIONS, STATS_INTERVALS } from '../../domain/analytics/ranges.js';
import type { OrganizationVolumeRecord, PayoutStatsRecord, RefundStatsRecord, TimeToPayRecord, TransactionStatsRecord } from '../../domain/analytics/store.js';
import { toWireAmount } from '../../domain/money.js';
import { conversionStats, payoutStats, refundStats, timeToPayStats, topOrganizations, transactionStats } from '../../domain/operations.js';
import { organizationIdOf } from './arguments.js';
import { builder } from '../builder.js';
import { PaymentMethodEnum, PayoutStatusEnum, TransactionStatusEnum } from './enums.js';

const StatsIntervalEnum = builder.enumType('StatsInterval', {
  description: 'UTC buckets: a day, a week starting on Monday, a calendar month.',
  values: STATS_INTERVALS,
});
const StatsDimensionEnum = builder.enumType('StatsDimension', { values: STATS_DIMENSIONS });

const TransactionStatsRowRef = builder.objectRef<TransactionStatsRecord>('TransactionStatsRow').implement({
  description: 'Transactions created in one bucket (and group): how many, their amounts and their fees.',
  fields: (t) => ({
    periodStart: t.expose('periodStart', { type: 'DateTime', description: 'Start of the bucket (UTC).' }),
    method: t.field({
      type: PaymentMethodEnum,
      nullable: true,
      description: 'The method used (null while unpaid, and unless grouped by METHOD).',
      resolve: (row) => row.method,
    }),
    status: t.field({ type: TransactionStatusEnum, nullable: true, description: 'Null unless grouped by STATUS.', resolve: (row) => row.status }),
    organizationId: t.exposeID('organizationId', { nullable: true, description: 'Null unless grouped by ORGANIZATION.' }),
    count: t.exposeInt('count'),
    amount: t.field({ type: 'SafeInt', description: 'XOF.', resolve: (row) => toWireAmount(row.amount) }),
    fees: t.field({ type: 'SafeInt', description: 'XOF (0 while unpaid).', resolve: (row) => toWireAmount(row.fees) }),
  }),
});

const PayoutStatsRowRef = builder.objectRef<PayoutStatsRecord>('PayoutStatsRow').implement({
  description: 'Payouts created in one bucket (and group): how many, their amounts and their fees.',
  fields: (t) => ({
    periodStart: t.expose('periodStart', { type: 'DateTime', description: 'Start of the bucket (UTC).' }),
    method: t.field({ type: PaymentMethodEnum, nullable: true, description: 'Null unless grouped by METHOD.', resolve: (row) => row.method }),
    status: t.field({ type: PayoutStatusEnum, nullable: true, description: 'Null unless grouped by STATUS.', resolve: (row) => row.status }),
    organizationId: t.exposeID('organizationId', { nullable: true, description: 'Null unless grouped by ORGANIZATION.' }),
    count: t.exposeInt('count'),
    amount: t.field({ type: 'SafeInt', description: 'XOF.', resolve: (row) => toWireAmount(row.amount) }),
    fees: t.field({ type: 'SafeInt', description: 'XOF.', resolve: (row) => toWireAmount(row.fees) }),
  }),
});

const RefundStatsRowRef = builder.objectRef<RefundStatsRecord>('RefundStatsRow').implement({
  description: 'Refunds that succeeded in one bucket (and group).',
  fields: (t) => ({
    periodStart: t.expose('periodStart', { type: 'DateTime', description: 'Start of the bucket (UTC) in which the refund succeeded.' }),
    method: t.field({ type: PaymentMethodEnum, nullable: true, description: 'Null unless grouped by METHOD.', resolve: (row) => row.method }),
    organizationId: t.exposeID('organizationId', { nullable: true, description: 'Null unless grouped by ORGANIZATION.' }),
    count: t.exposeInt('count'),
    amount: t.field({ type: 'SafeInt', description: 'XOF returned to customers.', resolve: (row) => toWireAmount(row.amount) }),
  }),
});

const ConversionRowRef = builder.objectRef<ConversionStats>('ConversionStatsRow').implement({
  description: 'Of the transactions created in the range: those that offered the method, and those paid with it.',
  fields: (t) => ({
    method: t.field({ type: PaymentMethodEnum, nullable: true, description: 'Null: every transaction, and every paid one.', resolve: (row) => row.method }),
    created: t.exposeInt('created'),
    paid: t.exposeInt('paid', { description: 'Ever paid: paid, held in escrow, or paid then refunded.' }),
    rate: t.exposeFloat('rate', { nullable: true, description: 'paid / created (null when none was created).' }),
  }),
});

const TimeToPayRowRef = builder.objectRef<TimeToPayRecord>('TimeToPayStatsRow').implement({
  description: 'Time from creation to payment of the transactions created in the range and paid.',
  fields: (t) => ({
    method: t.field({ type: PaymentMethodEnum, nullable: true, description: 'The method used; null: every method.', resolve: (row) => row.method }),
    count: t.exposeInt('count'),
    medianSeconds: t.exposeFloat('medianSeconds', { nullable: true }),
    p90Seconds: t.exposeFloat('p90Seconds', { nullable: true, description: '90th percentile (continuous).' }),
  }),
});

const OrganizationVolumeRef = builder.objectRef<OrganizationVolumeRecord>('OrganizationVolume').implement({
  description: 'An organisation’s paid volume: its transactions created in the range and paid (paid, held in escrow, or paid then refunded).',
  fields: (t) => ({
    organizationId: t.exposeID('organizationId'),
    name: t.exposeString('name'),
    count: t.exposeInt('count'),
    amount: t.field({ type: 'SafeInt', description: 'XOF.', resolve: (row) => toWireAmount(row.amount) }),
    fees: t.field({ type: 'SafeInt', description: 'XOF.', resolve: (row) => toWireAmount(row.fees) }),
  }),
});

/** The arguments every analysis over a range of one organisation, or all, takes. */
const rangeArgs = builder.args((t) => ({
  from: t.field({ type: 'DateTime', required: true }),
  to: t.field({ type: 'DateTime', required: true }),
  organizationId: t.id(),
}));

/** ...and those of the analyses in buckets (transactionStats, payoutStats, refundStats). */
const bucketedArgs = builder.args((t) => ({
  ...rangeArgs,
  interval: t.field({ type: StatsIntervalEnum, required: true }),
  groupBy: t.field({ type: [StatsDimensionEnum] }),
}));

/** The list fields answer at most MAX_ROWS rows; the cost model counts them as one page of 100. */
const STATS_COMPLEXITY = { field: 1, multiplier: 100 };

builder.queryField('transactionStats', (t) =>
  t.field({
    type: [TransactionStatsRowRef],
    authScopes: { run: 'transactionStats' },
    complexity: STATS_COMPLEXITY,
    description:
      'Transactions counted in the UTC bucket of their creation, within [from, to), cancelled ones included; grouped by the dimensions asked for. Merchants (scopes checkout, read, readAndWrite): their own organisation; operators: every one, or organizationId.',
    args: bucketedArgs,
    resolve: (_root, { from, to, interval, groupBy, organizationId }, ctx) =>
      transactionStats(ctx.gateway, authorizeRead(ctx.caller, 'transactionStats', organizationIdOf(organizationId)), { from, to, interval, groupBy }),
  }),
);

builder.queryField('payoutStats', (t) =>
  t.field({
    type: [PayoutStatsRowRef],
    authScopes: { run: 'payoutStats' },
    complexity: STATS_COMPLEXITY,
    description:
      'Payouts counted in the UTC bucket of their creation, within [from, to), every status included; grouped by the dimensions asked for. Merchants (scopes payout, read): their own organisation; operators: every one, or organizationId.',
    args: bucketedArgs,
    resolve: (_root, { from, to, interval, groupBy, organizationId }, ctx) =>
      payoutStats(ctx.gateway, authorizeRead(ctx.caller, 'payoutStats', organizationIdOf(organizationId)), { from, to, interval, groupBy }),
  }),
);

builder.queryField('refundStats', (t) =>
  t.field({
    type: [RefundStatsRowRef],
    authScopes: { run: 'refundStats' },
    complexity: STATS_COMPLEXITY,
    description: 'Refunds that succeeded, counted in the UTC bucket of when they did, within [from, to); groupBy takes METHOD and ORGANIZATION.',
    args: bucketedArgs,
    resolve: (_root, { from, to, interval, groupBy, organizationId }, ctx) =>
      refundStats(ctx.gateway, authorizeRead(ctx.caller, 'refundStats', organizationIdOf(organizationId)), { from, to, interval, groupBy }),
  }),
);

builder.queryField('conversionStats', (t) =>
  t.field({
    type: [ConversionRowRef],
    authScopes: { run: 'conversionStats' },
    description:
      'Conversion (paid / created) per method of the transactions created in [from, to) (at most 366 days): created counts every transaction offering the method, paid those paid with it; the last row (method null) is over every transaction.',
    args: rangeArgs,
    resolve: (_root, { from, to, organizationId }, ctx) =>
      conversionStats(ctx.gateway, authorizeRead(ctx.caller, 'conversionStats', organizationIdOf(organizationId)), { from, to }),
  }),
);

builder.queryField('timeToPayStats', (t) =>
  t.field({
    type: [TimeToPayRowRef],
    authScopes: { run: 'timeToPayStats' },
    description:
      'Median and 90th percentile of the time from creation to payment (seconds) of the transactions created in [from, to) (at most 366 days) and paid, per method used, then over all (method null).',
    args: rangeArgs,
    resolve: (_root, { from, to, organizationId }, ctx) =>
      timeToPayStats(ctx.gateway, authorizeRead(ctx.caller, 'timeToPayStats', organizationIdOf(organizationId)), { from, to }),
  }),
);

builder.queryField('topOrganizations', (t) =>
  t.field({
    type: [OrganizationVolumeRef],
    authScopes: { run: 'topOrganizations' },
    complexity: STATS_COMPLEXITY,
    description:
      'Operators: the organisations with the largest paid volume among the transactions created in [from, to), largest first (limit: default 10, at most 100).',
    args: {
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: 'DateTime', required: true }),
      limit: t.arg.int(),
    },
    resolve: (_root, { from, to, limit }, ctx) => topOrganizations(ctx.gateway, authorizeRead(ctx.caller, 'topOrganizations'), { from, to, limit }),
  }),
);
