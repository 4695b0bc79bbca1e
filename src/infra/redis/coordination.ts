/**
 * Redis implementation of the coordination ports: shared by every gateway instance, so rate limits,
 * "one payout at a time" and webhook retry schedules hold across the whole deployment.
 *
 * Every multi-step operation is a single Lua script (run with EVALSHA via `defineCommand`, which falls
 * back to EVAL after a SCRIPT FLUSH): Redis runs a script atomically, so concurrent instances can never
 * interleave between the "read" and the "write".
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Coordination, LockHandle, RateLimitDecision } from '../../domain/ports.js';

/** PING must answer within this or the coordinator is reported down (a probe must never hang). */
const PING_TIMEOUT_MS = 1_000;

/**
 * Sliding-window log. KEYS[1] = sorted set of hits scored by time (ms); ARGV = max, windowMs, member suffix.
 * Time comes from the Redis server, not the caller, so instances with skewed clocks share one timeline.
 * A refused hit is not recorded: a client hammering while limited gets back in once old hits slide out.
 * Returns { allowed (0|1), remaining, retryAfterMs, resetMs }.
 */
const RATE_LIMIT_LUA = `
if redis.replicate_commands then redis.replicate_commands() end -- TIME before writes on Redis < 5
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < max then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
local retry = 0
if allowed == 0 then retry = math.max(reset, 1) end
return { allowed, max - count, retry, reset }
`;

/** Compare-and-delete: only the token that took the lock may release it (not a later holder's lock). */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Claims due jobs: read and remove in one step, so two instances never claim the same id. */
const CLAIM_DUE_LUA = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, id in ipairs(ids) do redis.call('ZREM', KEYS[1], id) end -- one by one: unpack() caps at ~8000 args
return ids
`;

/** The client with the scripts registered by `defineCommand` (ioredis adds them at runtime). */
type ScriptedRedis = Redis & {
  gwRateLimit(key: string, max: number, windowMs: number, member: string): Promise<[number, number, number, number]>;
  gwRelease(key: string, token: string): Promise<number>;
  gwClaimDue(key: string, now: number, max: number): Promise<string[]>;
};

export function createRedisCoordination(options: {
  url: string;
  keyPrefix?: string;
  rateLimit: { max: number; windowMs: number };
  /** Connection errors (reconnects, refused connections); commands also reject on their own. */
  onError?: (err: Error) => void;
}): Coordination {
  const prefix = options.keyPrefix ?? 'gw:';
  const { max, windowMs } = options.rateLimit;

  const redis = new Redis(options.url, {
    // A request must not hang on a down Redis: fail a queued command after 2 reconnect attempts
    // (the default, 20, keeps an HTTP request waiting for tens of seconds).
    maxRetriesPerRequest: 2,
    // Keep the offline queue: commands sent while connecting at start-up or during a brief reconnect
    // wait for it instead of failing; the two limits here bound how long they can wait.
    enableOfflineQueue: true,
    // Hard upper bound on any single command, queued or sent (the default is no timeout at all).
    commandTimeout: 2_000,
    // An unreachable host (dropped packets, not refused) fails after 2 s instead of the default 10 s.
    connectTimeout: 2_000,
    // Reconnect quickly and keep trying at most every 2 s (default backoff grows to 5 s).
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  }) as ScriptedRedis;
  // Without a listener ioredis prints "Unhandled error event" for every failed reconnect.
  redis.on('error', (err: Error) => options.onError?.(err));

  redis.defineCommand('gwRateLimit', { numberOfKeys: 1, lua: RATE_LIMIT_LUA });
  redis.defineCommand('gwRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
  redis.defineCommand('gwClaimDue', { numberOfKeys: 1, lua: CLAIM_DUE_LUA });

  const schedKey = `${prefix}sched`;
  const token = () => randomBytes(12).toString('hex');

  return {
    kind: 'redis',

    rateLimiter: {
      async hit(key: string): Promise<RateLimitDecision> {
        // Random member suffix: two hits in the same millisecond must be two entries, not one.
        const [allowed, remaining, retryAfterMs, resetMs] = await redis.gwRateLimit(
          `${prefix}rl:${key}`,
          max,
          windowMs,
          token(),
        );
        return { allowed: allowed === 1, limit: max, remaining, retryAfterMs, resetMs };
      },
    },

    lock: {
      async tryAcquire(key: string, ttlMs: number): Promise<LockHandle | null> {
        const lockKey = `${prefix}lock:${key}`;
        const mine = token();
        // NX: fail at once if held; PX: a crashed holder cannot keep it forever (PX needs an integer >= 1).
        const ok = await redis.set(lockKey, mine, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
        if (ok !== 'OK') return null;
        return {
          async release() {
            await redis.gwRelease(lockKey, mine);
          },
        };
      },
    },

    scheduler: {
      async schedule(job) {
        await redis.zadd(schedKey, job.dueAt, job.id); // ZADD on an existing member replaces its score
      },
      async cancel(id) {
        await redis.zrem(schedKey, id);
      },
      async claimDue(now, maxJobs) {
        // LIMIT 0 0 is empty but a negative count means "all": never pass one through.
        if (maxJobs <= 0) return [];
        return redis.gwClaimDue(schedKey, now, Math.floor(maxJobs));
      },
    },

    health: {
      async ping() {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
        });
        try {
          // The PING may still reject after the timeout won: the handler keeps that from going unhandled.
          return await Promise.race([redis.ping().then((r) => r === 'PONG', () => false), timedOut]);
        } finally {
          clearTimeout(timer);
        }
      },
      async close() {
        // QUIT lets in-flight replies arrive; when not connected there is nothing to wait for, and a
        // QUIT would sit in the offline queue, so drop the connection (and stop reconnecting) at once.
        if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
        else redis.disconnect();
      },
    },
  };
}
