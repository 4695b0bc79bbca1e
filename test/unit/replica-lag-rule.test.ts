/**
 * The read replica's rule (src/infra/prisma/replica.ts, ReplicaLagRule) on WAL positions and
 * times given by hand: what the real standby test (test/integration/platform/read-replica.test.ts)
 * cannot arrange at will, such as a replica found far behind on its very first check.
 */
import { describe, expect, it } from 'vitest';
import { ReplicaLagRule } from '../../src/infra/prisma/replica.js';

const BOUND_MS = 1_000;
const INTERVAL_MS = 250;

describe('the replica lag rule', () => {
  it('serves a replica that has replayed everything, until the check is older than the bound', () => {
    const rule = new ReplicaLagRule(BOUND_MS);
    rule.measured(10_000, 500n, 500n, 9_000);
    expect(rule.status(10_000)).toEqual({ state: 'serving', lagMs: 0 });
    expect(rule.serves(10_000 + BOUND_MS)).toBe(true);
    // No check since: the answer has aged past the bound, so the primary reads.
    expect(rule.serves(10_000 + BOUND_MS + 1)).toBe(false);
    expect(rule.status(10_000 + BOUND_MS + 1).state).toBe('lagging');
  });

  it('does not serve a replica found behind on its first check, by the age of the last commit it replayed', () => {
    const rule = new ReplicaLagRule(BOUND_MS);
    rule.measured(10_000, 900n, 500n, 10_000 - 5_000);
    expect(rule.status(10_000)).toEqual({ state: 'lagging', lagMs: 5_000 });
    const unknownAge = new ReplicaLagRule(BOUND_MS);
    unknownAge.measured(10_000, 900n, 500n, null);
    expect(unknownAge.serves(10_000)).toBe(false);
    // Once it has replayed what the primary had then, it serves.
    unknownAge.measured(10_000 + INTERVAL_MS, 950n, 950n, 10_000);
    expect(unknownAge.status(10_000 + INTERVAL_MS)).toEqual({ state: 'serving', lagMs: 0 });
  });

  it('measures the age of the oldest position not replayed: a replica always a little behind a busy primary serves', () => {
    const rule = new ReplicaLagRule(BOUND_MS);
    rule.measured(0, 100n, 100n, 0);
    // Each check: the primary has moved on by 100, the replica has replayed all but the last few.
    for (let check = 1; check <= 20; check++) rule.measured(check * INTERVAL_MS, 100n + 100n * BigInt(check), 100n * BigInt(check) + 90n, null);
    expect(rule.status(20 * INTERVAL_MS)).toEqual({ state: 'serving', lagMs: 0 });
  });

  it('a replica that stops replaying lags from the first check that saw the primary ahead, past the bound', () => {
    const rule = new ReplicaLagRule(BOUND_MS);
    rule.measured(0, 100n, 100n, 0);
    let now = 0;
    // Paused at 100 while the primary writes: many more checks than the samples it keeps.
    for (let check = 1; check <= 2_000; check++) {
      now = check * INTERVAL_MS;
      rule.measured(now, 100n + BigInt(check), 100n, null);
    }
    expect(rule.status(now)).toEqual({ state: 'lagging', lagMs: now - INTERVAL_MS });
    // Replayed up to the middle: what it still lacks was first seen at check 1_001 at the latest
    // (samples merged to stay bounded may make it earlier, never later).
    now += INTERVAL_MS;
    rule.measured(now, 3_000n, 1_100n, null);
    expect(rule.status(now).lagMs).toBeGreaterThanOrEqual(now - 1_001 * INTERVAL_MS);
    expect(rule.serves(now)).toBe(false);
  });

  it('forgets what it measured when a check fails: the primary reads until a check answers again', () => {
    const rule = new ReplicaLagRule(BOUND_MS);
    rule.measured(0, 100n, 100n, 0);
    rule.failed('unreachable');
    expect(rule.serves(1)).toBe(false);
    expect(rule.status(1)).toEqual({ state: 'unreachable', lagMs: null });
  });
});
