/**
 * The range rules of the analyses: buckets counted as PostgreSQL cuts them (UTC; weeks from
 * Monday; calendar months), a range split into the whole days the rollup answers and the partial
 * days at its edges, and an answer past the row bound refused rather than cut.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { MAX_ROWS, bucketCount, bucketStart, splitByWholeDays, withinRowLimit } from '../../../src/domain/analytics/ranges.js';

const at = (iso: string) => new Date(iso);

describe('buckets', () => {
  it('a week starts on Monday 00:00 UTC, also for a Sunday late in the evening', () => {
    expect(bucketStart(at('2026-03-15T23:59:59.999Z'), 'WEEK').toISOString()).toBe('2026-03-09T00:00:00.000Z');
    expect(bucketStart(at('2026-03-16T00:00:00.000Z'), 'WEEK').toISOString()).toBe('2026-03-16T00:00:00.000Z');
  });

  it('counts the buckets [from, to) touches', () => {
    expect(bucketCount({ from: at('2026-01-01T00:00:00Z'), to: at('2026-01-02T00:00:00Z') }, 'DAY')).toBe(1);
    expect(bucketCount({ from: at('2026-01-01T12:00:00Z'), to: at('2026-01-02T00:00:01Z') }, 'DAY')).toBe(2);
    expect(bucketCount({ from: at('2026-01-31T00:00:00Z'), to: at('2026-03-01T00:00:00Z') }, 'MONTH')).toBe(2);
    expect(bucketCount({ from: at('2025-12-31T00:00:00Z'), to: at('2026-01-13T00:00:00Z') }, 'WEEK')).toBe(3);
  });
});

describe('whole days and edges', () => {
  it('a range cut mid-day at both ends: whole days inside, two partial edges', () => {
    const split = splitByWholeDays({ from: at('2026-01-05T13:30:00Z'), to: at('2026-01-09T08:00:00Z') });
    expect(split.days).toEqual({ first: at('2026-01-06T00:00:00Z'), end: at('2026-01-09T00:00:00Z') });
    expect(split.edges).toEqual([
      { from: at('2026-01-05T13:30:00Z'), to: at('2026-01-06T00:00:00Z') },
      { from: at('2026-01-09T00:00:00Z'), to: at('2026-01-09T08:00:00Z') },
    ]);
  });

  it('whole days: no edge; inside one day: no whole day', () => {
    expect(splitByWholeDays({ from: at('2026-01-05T00:00:00Z'), to: at('2026-01-07T00:00:00Z') }).edges).toEqual([]);
    const inside = splitByWholeDays({ from: at('2026-01-05T01:00:00Z'), to: at('2026-01-05T02:00:00Z') });
    expect(inside).toEqual({ days: null, edges: [{ from: at('2026-01-05T01:00:00Z'), to: at('2026-01-05T02:00:00Z') }] });
  });
});

describe('the row bound', () => {
  it(`answers ${MAX_ROWS} rows, refuses one more`, () => {
    expect(withinRowLimit(new Array(MAX_ROWS).fill(0))).toHaveLength(MAX_ROWS);
    expect(() => withinRowLimit(new Array(MAX_ROWS + 1).fill(0))).toThrow(DomainError);
  });
});
