/**
 * The request limit, exact across instances, without a Redis round trip on most requests.
 *
 * Every hit an instance lets through was counted in Redis BEFORE it was let through, by one atomic
 * script (`take`): so all instances together never let more than the limit through in a window.
 * What spares the round trip is a lease: a take may also count a few hits ahead ("slots"), which
 * this instance then spends locally on the next requests of that key. Slots are granted only while
 * more than half of the window's budget would still be free after them, so near the limit every
 * hit is decided by Redis one batch at a time; a slot not spent within LEASE_MS is given back.
 *
 * - Requests of one key that find no slot wait together: one take in flight per key, for all of
 *   them (the ones that arrive meanwhile join the next); Redis grants what is free, first come
 *   first served, and refuses the rest.
 * - Slots are scored in Redis LEASE_MS ahead, and spent before then: a hit's entry leaves the
 *   window no earlier than the hit itself would, so the sliding window only errs on the strict side.
 * - When a key's slots run low, the next ones are asked for in the background (prefetch), so a
 *   busy key rarely waits: on the bench's 2-vCPU machine a request waiting for Redis costs up to
 *   ~1 ms at p99 (two more cross-process wake-ups), and the spec allows the limiter 1 ms.
 * - How many slots: the key's hits in the last LEASE_MS (at most LEASE_MAX): a key hit once a
 *   second leases none, so slots are not taken only to be given back.
 *
 * A take that fails (Redis unreachable) rejects its waiting requests: the caller then limits with
 * its own local window (domain/rateLimit.ts). Slots already counted stay spendable.
 */
import type { RateLimitDecision, RateLimiter } from '../../domain/ports.js';

/** One atomic step in Redis: count `need` hits (as many as are free) and lease up to `extra` slots. */
export interface TakeAnswer {
  /** Of the `need` hits, how many were counted (the rest are refused). */
  granted: number;
  /** Slots leased: members `${base}:x1` .. `${base}:x${extras}`. */
  extras: number;
  base: string;
  limit: number;
  /** Free in the window after this take (leased slots count as used). */
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
}

export interface LeasingRateLimiter extends RateLimiter {
  take(key: string, need: number, extra: number, leaseMs: number): Promise<TakeAnswer>;
  /** Gives leased slots back (best effort: a slot not given back only ages out with the window). */
  release(key: string, members: string[]): Promise<void>;
}

/** How long leased slots may be spent, from the moment they were asked for. */
export const LEASE_MS = 1_000;
/** At most this many slots per take. */
const LEASE_MAX = 200;
/** Ask for more slots in the background when fewer than this share of the last lease is left. */
const PREFETCH_SHARE = 0.5;
/** Keys remembered at most (client IP x endpoint: bounded against floods of addresses); then forgotten all at once. */
const MAX_KEYS = 10_000;

interface Lease {
  base: string;
  /** Next unspent slot number (1-based); slots next..count are unspent. */
  next: number;
  count: number;
  /** Local time after which its slots are not spent (given back). */
  until: number;
}

interface Waiter {
  resolve(decision: RateLimitDecision): void;
  reject(error: unknown): void;
}

interface KeyState {
  limit: number;
  /** Free in Redis as of the last answer (leased slots count as used). */
  remaining: number;
  resetMs: number;
  answeredAt: number;
  leases: Lease[];
  waiters: Waiter[];
  taking: boolean;
  /** Whether the last take leased anything: when not, the key is near its limit (no prefetch). */
  leasable: boolean;
  /** Hits in the current and the previous LEASE_MS period (the lease's size). */
  hitsNow: number;
  hitsBefore: number;
  periodStart: number;
}

const unspentOf = (state: KeyState): number => state.leases.reduce((sum, lease) => sum + lease.count - lease.next + 1, 0);

export function leasedRateLimiter(inner: LeasingRateLimiter, now: () => number = Date.now): RateLimiter {
  const states = new Map<string, KeyState>();
  let sweepTimer: NodeJS.Timeout | undefined;

  const stateOf = (key: string): KeyState => {
    let state = states.get(key);
    if (!state) {
      if (states.size >= MAX_KEYS) states.clear();
      state = {
        limit: 0,
        remaining: 0,
        resetMs: 0,
        answeredAt: now(),
        leases: [],
        waiters: [],
        taking: false,
        leasable: true,
        hitsNow: 0,
        hitsBefore: 0,
        periodStart: now(),
      };
      states.set(key, state);
    }
    return state;
  };

  const countHit = (state: KeyState): void => {
    const t = now();
    if (t - state.periodStart >= LEASE_MS) {
      state.hitsBefore = t - state.periodStart >= 2 * LEASE_MS ? 0 : state.hitsNow;
      state.hitsNow = 0;
      state.periodStart = t;
    }
    state.hitsNow += 1;
  };

  /** Slots to ask for: about what the key used in one lease period. A key hit rarely asks for none. */
  const wantedSlots = (state: KeyState): number => {
    const recent = state.hitsNow + state.hitsBefore;
    return recent < 3 ? 0 : Math.min(LEASE_MAX, recent);
  };

  /** Gives back the slots of leases past their time. */
  const dropExpired = (key: string, state: KeyState): void => {
    const t = now();
    const kept: Lease[] = [];
    for (const lease of state.leases) {
      if (lease.until > t) {
        kept.push(lease);
        continue;
      }
      const members: string[] = [];
      for (let slot = lease.next; slot <= lease.count; slot++) members.push(`${lease.base}:x${slot}`);
      if (members.length > 0) inner.release(key, members).catch(() => undefined);
    }
    state.leases = kept;
  };

  const sweep = (): void => {
    sweepTimer = undefined;
    for (const [key, state] of states) {
      dropExpired(key, state);
      if (state.leases.length === 0 && state.waiters.length === 0 && !state.taking && now() - state.answeredAt > LEASE_MS) states.delete(key);
    }
    if (states.size > 0) scheduleSweep();
  };

  const scheduleSweep = (): void => {
    if (sweepTimer) return;
    sweepTimer = setTimeout(sweep, LEASE_MS);
    sweepTimer.unref();
  };

  const allowed = (state: KeyState, remaining: number): RateLimitDecision => ({
    allowed: true,
    limit: state.limit,
    remaining: Math.max(0, remaining),
    retryAfterMs: 0,
    resetMs: Math.max(0, state.resetMs - (now() - state.answeredAt)),
  });

  /** Spends one leased slot, if any is left: the hit was counted in Redis already. */
  const spendSlot = (state: KeyState): RateLimitDecision | null => {
    const lease = state.leases[0];
    if (!lease) return null;
    lease.next += 1;
    if (lease.next > lease.count) state.leases.shift();
    return allowed(state, state.remaining + unspentOf(state));
  };

  const serveWaitersFromSlots = (state: KeyState): void => {
    while (state.waiters.length > 0) {
      const decision = spendSlot(state);
      if (!decision) return;
      state.waiters.shift()!.resolve(decision);
    }
  };

  const prefetchIfLow = (key: string, state: KeyState, leaseSize: number): void => {
    if (state.taking || !state.leasable) return;
    if (unspentOf(state) >= Math.max(1, Math.floor(leaseSize * PREFETCH_SHARE))) return;
    if (wantedSlots(state) === 0) return;
    sendTake(key, state);
  };

  /** One take for every request of the key waiting now (and slots ahead when the key is busy). */
  function sendTake(key: string, state: KeyState): void {
    const batch = state.waiters.splice(0);
    const extra = wantedSlots(state);
    const sentAt = now();
    state.taking = true;
    inner.take(key, batch.length, extra, LEASE_MS).then(
      (answer) => {
        state.taking = false;
        state.limit = answer.limit;
        state.remaining = answer.remaining;
        state.resetMs = answer.resetMs;
        state.answeredAt = now();
        state.leasable = answer.extras > 0;
        if (answer.extras > 0) {
          state.leases.push({ base: answer.base, next: 1, count: answer.extras, until: sentAt + LEASE_MS });
          scheduleSweep();
        }
        const unspent = unspentOf(state);
        batch.forEach((waiter, index) => {
          if (index < answer.granted) waiter.resolve(allowed(state, answer.remaining + unspent + (answer.granted - 1 - index)));
          else waiter.resolve({ allowed: false, limit: answer.limit, remaining: 0, retryAfterMs: Math.max(1, answer.retryAfterMs), resetMs: answer.resetMs });
        });
        // Requests that arrived meanwhile: the new slots first, then the next take.
        serveWaitersFromSlots(state);
        if (state.waiters.length > 0) sendTake(key, state);
      },
      (error: unknown) => {
        state.taking = false;
        for (const waiter of batch) waiter.reject(error);
        if (state.waiters.length > 0) sendTake(key, state);
      },
    );
  }

  return {
    hit(key, rule) {
      // A rule of its own (sign-in throttling): rare hits on a small budget, so Redis decides each one.
      if (rule) return inner.hit(key, rule);
      const state = stateOf(key);
      countHit(state);
      dropExpired(key, state);
      const leaseSize = state.leases[0]?.count ?? 0;
      const spent = state.waiters.length === 0 ? spendSlot(state) : null;
      if (spent) {
        prefetchIfLow(key, state, leaseSize);
        return Promise.resolve(spent);
      }
      return new Promise<RateLimitDecision>((resolve, reject) => {
        state.waiters.push({ resolve, reject });
        if (!state.taking) sendTake(key, state);
      });
    },
  };
}
