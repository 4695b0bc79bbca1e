/**
 * The rules every analysis shares: a range [from, to) in UTC, cut into buckets (days, weeks that
 * start on Monday, calendar months), and the bounds that keep one question from costing the
 * database more than an analyst's dashboard is worth.
 */
import { DomainError } from '../errors.js';

export const STATS_INTERVALS = ['DAY', 'WEEK', 'MONTH'] as const;
export type StatsInterval = (typeof STATS_INTERVALS)[number];

export const STATS_DIMENSIONS = ['METHOD', 'STATUS', 'ORGANIZATION'] as const;
export type StatsDimension = (typeof STATS_DIMENSIONS)[number];

/**
 * At most this many buckets in one answer: a year and a month by day, 10 years by week or month.
 * Enough for any chart a person reads; beyond it the answer is a page of numbers nobody reads, and
 * its rows (buckets x methods x statuses x organisations) grow with it.
 */
export const MAX_BUCKETS = 400;
/**
 * At most this many rows in one answer (buckets x the groups asked for). Grouping by organisation
 * over every merchant can multiply the buckets by thousands: past this the caller narrows the range,
 * the grouping or names one organisation, rather than the gateway holding a huge answer in memory.
 */
export const MAX_ROWS = 10_000;
/**
 * The analyses that read transactions row by row (conversion, time to pay) span at most this many
 * days: each costs a scan of the range's transactions (about 450,000 for 90 days of the bench's
 * merchant), so a range of years would take seconds of the primary's (or replica's) CPU.
 */
export const MAX_SCAN_DAYS = 366;

const DAY_MS = 86_400_000;

export interface StatsRange {
  from: Date;
  to: Date;
}

/** The range is well formed: two valid instants, `from` strictly before `to`. */
function checkRange({ from, to }: StatsRange): void {
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new DomainError('invalid_input', 'from and to must be valid dates');
  if (from.getTime() >= to.getTime()) throw new DomainError('invalid_input', 'from must be before to');
}

/** The start (UTC) of the bucket containing `at`. Weeks start on Monday, as PostgreSQL's date_trunc('week'). */
export function bucketStart(at: Date, interval: StatsInterval): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  if (interval === 'DAY') return new Date(day);
  if (interval === 'MONTH') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * DAY_MS);
}

/** How many buckets [from, to) touches. */
export function bucketCount({ from, to }: StatsRange, interval: StatsInterval): number {
  const first = bucketStart(from, interval);
  const last = bucketStart(new Date(to.getTime() - 1), interval);
  if (interval === 'MONTH') return (last.getUTCFullYear() - first.getUTCFullYear()) * 12 + last.getUTCMonth() - first.getUTCMonth() + 1;
  const width = interval === 'DAY' ? DAY_MS : 7 * DAY_MS;
  return Math.round((last.getTime() - first.getTime()) / width) + 1;
}

/** A range cut into buckets: well formed and within MAX_BUCKETS. */
export function checkBucketedRange(range: StatsRange, interval: StatsInterval): void {
  checkRange(range);
  const buckets = bucketCount(range, interval);
  if (buckets > MAX_BUCKETS)
    throw new DomainError(
      'invalid_input',
      `the range holds ${buckets} ${interval.toLowerCase()} buckets, at most ${MAX_BUCKETS} are answered: narrow it or take a longer interval`,
    );
}

/** A range read row by row: well formed and at most MAX_SCAN_DAYS long. */
export function checkScannedRange(range: StatsRange): void {
  checkRange(range);
  if (range.to.getTime() - range.from.getTime() > MAX_SCAN_DAYS * DAY_MS)
    throw new DomainError('invalid_input', `the range spans more than ${MAX_SCAN_DAYS} days: narrow it`);
}

/** The dimensions asked for, each once (a repeated one groups the same way). */
const dimensionsOf = (groupBy: readonly StatsDimension[] | null | undefined): Set<StatsDimension> => new Set(groupBy ?? []);

/**
 * [from, to) as the whole UTC days inside it (read from a daily rollup) and the partial days at its
 * edges (read from the rows themselves). `days` is null when no whole day fits.
 */
export interface SplitRange {
  days: { first: Date; end: Date } | null;
  /** Up to two partial ranges, [from, first day) and [end day, to). */
  edges: StatsRange[];
}

export function splitByWholeDays({ from, to }: StatsRange): SplitRange {
  const startOfDay = (at: Date) => Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const firstDay = startOfDay(from) === from.getTime() ? from.getTime() : startOfDay(from) + DAY_MS;
  const endDay = startOfDay(to);
  if (firstDay >= endDay) return { days: null, edges: [{ from, to }] };
  const edges: StatsRange[] = [];
  if (from.getTime() < firstDay) edges.push({ from, to: new Date(firstDay) });
  if (endDay < to.getTime()) edges.push({ from: new Date(endDay), to });
  return { days: { first: new Date(firstDay), end: new Date(endDay) }, edges };
}

/** PostgreSQL's date_trunc unit of an interval; anything else is refused (callers other than GraphQL's enum). */
function truncUnitOf(interval: string): 'day' | 'week' | 'month' {
  if (interval === 'DAY') return 'day';
  if (interval === 'WEEK') return 'week';
  if (interval === 'MONTH') return 'month';
  throw new DomainError('invalid_input', `interval must be one of ${STATS_INTERVALS.join(', ')}`);
}

/** What the bucketed analyses take. */
export interface BucketedStatsInput extends StatsRange {
  interval: StatsInterval;
  groupBy?: readonly StatsDimension[] | null;
}

/** The range, the interval and the grouping, checked: what the store is asked. */
export function checkBucketedInput(input: BucketedStatsInput, allowed: readonly StatsDimension[] = STATS_DIMENSIONS) {
  const unit = truncUnitOf(input.interval);
  checkBucketedRange(input, input.interval);
  const dimensions = dimensionsOf(input.groupBy);
  for (const dimension of dimensions) {
    if (!allowed.includes(dimension)) throw new DomainError('invalid_input', `groupBy takes ${allowed.join(', ')} here`);
  }
  return { unit, dimensions };
}

/** Rows read with a limit of MAX_ROWS + 1: one too many means the answer would be cut, which is refused instead. */
export function withinRowLimit<T>(rows: T[]): T[] {
  if (rows.length > MAX_ROWS)
    throw new DomainError('invalid_input', `the answer holds more than ${MAX_ROWS} rows: narrow the range, group by less, or name one organization`);
  return rows;
}
