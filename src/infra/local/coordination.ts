/**
 * In-process implementation of the coordination ports, for the embedded single-instance default.
 * Same semantics as the Redis one, but the state lives in this process: with TWO OR MORE instances
 * each would have its own limits, schedule and caches, so use Redis there.
 */
import type { Coordination, RateLimitDecision, RateLimitRule, RateLimiter } from '../../domain/ports.js';

/**
 * Rate-limit keys are per client IP and endpoint, so their number is driven by clients, not by us:
 * without a cap, a scan from many addresses would grow memory without end. Past the cap the least
 * recently used key is forgotten (its client gets a fresh budget, a small price against running out of memory).
 */
const MAX_TRACKED_KEYS = 100_000;

/**
 * The sliding-window log in this process: exact for the hits this process sees. The embedded
 * deployment's limiter, and each instance's own limiter while Redis cannot be asked (redis/coordination.ts).
 */
export function slidingWindowRateLimiter(defaultRule: RateLimitRule, now: () => number = Date.now): RateLimiter {
  /** key -> hit times (ms), oldest first. Map order = least recently used first (re-inserted on each hit). */
  const hits = new Map<string, number[]>();
  return {
    async hit(key: string, rule?: RateLimitRule): Promise<RateLimitDecision> {
      const { max, windowMs } = rule ?? defaultRule;
      const t = now();
      const times = hits.get(key) ?? [];
      // Slide the window: drop hits at or before t - window (same boundary as the Redis script).
      while (times.length > 0 && times[0]! <= t - windowMs) times.shift();
      const allowed = times.length < max;
      if (allowed) times.push(t); // a refused hit is not counted
      hits.delete(key);
      if (times.length > 0) hits.set(key, times);
      if (hits.size > MAX_TRACKED_KEYS) hits.delete(hits.keys().next().value!);

      const resetMs = times.length > 0 ? times[0]! + windowMs - t : windowMs;
      return {
        allowed,
        limit: max,
        remaining: max - times.length,
        retryAfterMs: allowed ? 0 : Math.max(resetMs, 1),
        resetMs,
      };
    },
  };
}

export function createLocalCoordination(options: { rateLimit: { max: number; windowMs: number }; now?: () => number }): Coordination {
  const now = options.now ?? Date.now;

  const jobs = new Map<string, number>(); // id -> dueAt
  const invalidationListeners: ((message: string) => void)[] = [];
  const liveListeners: ((message: string) => void)[] = [];

  return {
    kind: 'local',

    rateLimiter: slidingWindowRateLimiter(options.rateLimit, now),

    scheduler: {
      async schedule(job) {
        jobs.set(job.id, job.dueAt);
      },
      async cancel(id) {
        jobs.delete(id);
      },
      async claimDue(at, maxJobs) {
        // A linear scan is fine at one instance's scale (pending webhook retries); JS is single-threaded,
        // so claiming and deleting cannot interleave with another claimer.
        const due = [...jobs]
          .filter(([, dueAt]) => dueAt <= at)
          .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) // ties by id, like Redis
          .slice(0, Math.max(0, Math.floor(maxJobs)))
          .map(([id]) => id);
        for (const id of due) jobs.delete(id);
        return due;
      },
    },

    // One instance: "every instance" is this one.
    invalidations: {
      async publish(message) {
        for (const listener of invalidationListeners) listener(message);
      },
      subscribe(listener) {
        invalidationListeners.push(listener);
      },
    },

    // One instance: every subscriber is in this process. Delivered on a later turn, as Redis would,
    // so a publisher never runs the subscribers' work inside its own call.
    liveEvents: {
      async publish(message) {
        queueMicrotask(() => {
          for (const listener of liveListeners) listener(message);
        });
      },
      async subscribe(listener) {
        liveListeners.push(listener);
      },
    },

    health: {
      async ping() {
        return true;
      },
      async close() {
        jobs.clear();
      },
    },
  };
}
