/**
 * Redis implementation of the coordination ports: shared by every gateway instance, so rate limits,
 * cache invalidations and webhook retry schedules hold across the whole deployment.
 *
 * Every multi-step operation is a single Lua script (run with EVALSHA via `defineCommand`, which falls
 * back to EVAL after a SCRIPT FLUSH): Redis runs a script atomically, so concurrent instances can never
 * interleave between the "read" and the "write".
 *
 * Redis trouble must not stall requests: every call has a short deadline and goes through one circuit
 * breaker, commands are never queued while disconnected, and the client reconnects in the background,
 * so coordination resumes by itself when Redis returns. A call that cannot reach Redis rejects with
 * CoordinatorUnavailableError; what that means for each port is said where it is implemented below.
 */
import { randomBytes } from 'node:crypto';
import { Redis, ReplyError } from 'ioredis';
import { INVALIDATE_ALL, type Coordination, type RateLimitDecision, type RateLimitRule, type RateLimiter } from '../../domain/ports.js';
import { slidingWindowRateLimiter } from '../local/coordination.js';
import { leasedRateLimiter } from './leasedRateLimiter.js';
import { CircuitBreaker, CoordinatorUnavailableError } from './circuitBreaker.js';
import { DEFAULT_REDIS_CALL_TIMEOUT_MS } from '../../config.js';

export { CoordinatorUnavailableError } from './circuitBreaker.js';

/**
 * Consecutive failures that open the breaker: one lost reply or slow moment does not, a real
 * outage does within 3 calls (at most ~0.5 s of requests paying the timeout, usually nothing: a
 * refused or dropped connection fails at once).
 */
const BREAKER_FAILURE_THRESHOLD = 3;
/**
 * How long an open breaker refuses every call before letting one probe through. Short, because
 * probing costs at most one call's timeout per second; and the breaker also probes as soon as the
 * connection is ready again (see the 'ready' listener), so recovery does not wait for it.
 */
const BREAKER_COOL_DOWN_MS = 1_000;
/** Reconnect backoff: 50, 100, 200... capped here, so a returning Redis is found within about a second. */
const RECONNECT_MAX_DELAY_MS = 1_000;
/** A host that drops packets (rather than refusing) fails its connection attempt after this. */
const CONNECT_TIMEOUT_MS = 1_000;
/**
 * ioredis's own bound on a sent command. Callers already gave up at the call deadline; this makes the
 * command's promise settle too, and is generous because it also bounds the INFO ready check on connect.
 */
const COMMAND_TIMEOUT_MS = 1_000;
/**
 * The subscribed connection that carries cache invalidations is pinged this often, and counts as
 * live for SUBSCRIPTION_TRUST_MS after a PING it answered was sent (see subscribeToInvalidations).
 * Two missed PINGs, not one: a gateway busy for a moment must not drop its caches. The trust
 * window is the bound on how long another instance may still serve a revoked key when Redis
 * freezes or the network drops silently.
 */
const SUBSCRIPTION_PING_INTERVAL_MS = 1_000;
export const SUBSCRIPTION_TRUST_MS = 2_000;
/** Connection errors repeat on every reconnect attempt (every second when down): report one per minute. */
const ERROR_REPORT_INTERVAL_MS = 60_000;

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

/**
 * The leased limiter's one step (leasedRateLimiter.ts). KEYS[1] = the same sorted set; ARGV = max,
 * windowMs, member base, need, extra, leaseMs. Counts up to `need` hits now (first come, first
 * served: the rest are refused), then leases up to `extra` slots, but only as far as more than half
 * of the budget stays free after them. Slots are scored leaseMs ahead (they are spent before then,
 * so none leaves the window before the hit it stands for). Returns { granted, extras, remaining,
 * retryAfterMs, resetMs }.
 */
const RATE_TAKE_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local need, extra, lease = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local granted = math.max(0, math.min(need, max - count))
for i = 1, granted do redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':' .. i) end
count = count + granted
local extras = math.max(0, math.min(extra, max - count - math.floor(max / 2) - 1))
for i = 1, extras do redis.call('ZADD', KEYS[1], now + lease, ARGV[3] .. ':x' .. i) end
count = count + extras
if granted + extras > 0 then redis.call('PEXPIRE', KEYS[1], window + lease) end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
local retry = 0
if granted < need then retry = math.max(reset, 1) end
return { granted, extras, max - count, retry, reset }
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
  gwRateTake(
    key: string,
    max: number,
    windowMs: number,
    memberBase: string,
    need: number,
    extra: number,
    leaseMs: number,
  ): Promise<[number, number, number, number, number]>;
  gwClaimDue(key: string, now: number, max: number): Promise<string[]>;
};

export function createRedisCoordination(options: {
  url: string;
  keyPrefix?: string;
  rateLimit: { max: number; windowMs: number };
  /**
   * Connection errors (refused connections, failed reconnects). While Redis stays unreachable they
   * repeat on every reconnect attempt: the first is reported, then at most one per minute, and the
   * next outage after a recovery is reported at once. Failed calls reject on their own.
   */
  onError?: (err: Error) => void;
  /** Deadline of every call, waiting for a connection included (REDIS_CALL_TIMEOUT_MS). */
  callTimeoutMs?: number;
}): Coordination {
  const prefix = options.keyPrefix ?? 'gw:';
  const { max, windowMs } = options.rateLimit;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_REDIS_CALL_TIMEOUT_MS;

  const redis = new Redis(options.url, {
    // No offline queue: a command sent while disconnected fails at once instead of waiting for a
    // reconnect and running later, stale (a rate-limit hit for a request long
    // answered). Calls made while a connection attempt is in flight (start-up) wait for it,
    // bounded by their deadline: see `call` below.
    enableOfflineQueue: false,
    // When the connection drops, commands already sent fail at once rather than being re-sent after
    // the reconnect (same staleness; and with 0 the queue is flushed on every close).
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: Math.max(COMMAND_TIMEOUT_MS, callTimeoutMs),
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Always a number: ioredis never gives up reconnecting in the background, so coordination resumes
    // by itself when Redis returns, without a restart.
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times - 1, 10), RECONNECT_MAX_DELAY_MS),
    // Commands issued in the same event-loop turn (the rate-limit hits of concurrent requests)
    // leave in one write and come back in one read: fewer system calls and Redis wake-ups under
    // load, the same commands and answers.
    enableAutoPipelining: true,
  }) as ScriptedRedis;

  /**
   * Invalidations travel on one pub/sub channel, on a connection of their own (a subscribed
   * connection can do nothing else). It queues its SUBSCRIBE until connected and ioredis
   * resubscribes after every reconnect; messages published while it was away are lost, so each
   * (re)subscription tells the listeners to drop everything (INVALIDATE_ALL).
   *
   * Whether this instance is RECEIVING is known, not assumed: the subscribed connection is pinged
   * every SUBSCRIPTION_PING_INTERVAL_MS. Redis answers a connection in order, so a PONG proves that
   * every message published before Redis read that PING has been delivered here. The subscription
   * counts as live until SUBSCRIPTION_TRUST_MS after the SENDING of the last answered PING (not its
   * arrival: a PING answered late says nothing about the time in between), and at once not live
   * when the connection closes. A frozen Redis (SIGSTOP), a silent network partition or a blocked
   * event loop all end in "not receiving" within SUBSCRIPTION_TRUST_MS; caches then stop trusting
   * themselves (callerCache.ts). The first PONG after a gap emits INVALIDATE_ALL: whatever was
   * published during the gap may have been missed.
   */
  const invalidationChannel = `${prefix}invalidations`;
  const invalidationListeners: ((message: string) => void)[] = [];
  /** Messages may have been missed (a new or renewed subscription): caches drop everything, and a live listener may have appeared unheard. */
  const notifyInvalidation = (message: string) => {
    if (message === INVALIDATE_ALL) liveListenerMayHaveAppeared();
    invalidationListeners.forEach((listener) => {
      listener(message);
    });
  };
  let subscriber: Redis | undefined;
  let subscriptionPinger: NodeJS.Timeout | undefined;
  /** When the last answered PING on the subscribed connection was sent; -Infinity = not receiving. */
  let receivingConfirmedAt = Number.NEGATIVE_INFINITY;
  const receiving = () => Date.now() - receivingConfirmedAt < SUBSCRIPTION_TRUST_MS;
  const subscribeToInvalidations = (): Redis => {
    const connection = redis.duplicate({
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
      connectionName: `${prefix}invalidations`,
    });
    connection.on('error', () => undefined); // reported through the main connection's onError
    connection.on('message', (channel: string, message: string) =>
      channel === liveListeningChannel ? liveListenerMayHaveAppeared() : notifyInvalidation(message),
    );
    connection.on('ready', () => notifyInvalidation(INVALIDATE_ALL));
    connection.on('close', () => {
      receivingConfirmedAt = Number.NEGATIVE_INFINITY; // gone: not receiving, from now
    });
    // The same connection hears when an instance starts listening to live events (see below).
    void connection.subscribe(invalidationChannel, liveListeningChannel).catch(() => undefined);
    let pingInFlight = false;
    const pingSubscription = () => {
      // One PING at a time: behind a frozen Redis they would pile up, and the oldest one decides anyway.
      if (pingInFlight || connection.status !== 'ready') return;
      pingInFlight = true;
      const sentAt = Date.now();
      connection.ping().then(
        () => {
          pingInFlight = false;
          if (connection.status !== 'ready') return;
          if (!receiving()) notifyInvalidation(INVALIDATE_ALL); // back after a gap: messages may have been lost
          receivingConfirmedAt = Math.max(receivingConfirmedAt, sentAt);
        },
        () => {
          pingInFlight = false;
        },
      );
    };
    // ioredis emits 'ready' BEFORE it writes the (re)SUBSCRIBE: ping on the next turn, so the PING
    // follows the SUBSCRIBE on the wire and its PONG proves the subscription is in place.
    connection.on('ready', () => setImmediate(pingSubscription));
    subscriptionPinger = setInterval(pingSubscription, SUBSCRIPTION_PING_INTERVAL_MS);
    subscriptionPinger.unref();
    return connection;
  };

  /**
   * Live updates travel on their own channel and their own subscribed connection (not the
   * invalidations'), opened on the first subscriber: a gateway nobody watches live holds none.
   * ioredis resubscribes after a reconnect; what was published meanwhile is lost (best effort, see
   * LiveEventBus). Subscribing resolves when Redis confirmed the SUBSCRIBE.
   */
  const liveChannel = `${prefix}live`;
  const liveListeners: ((message: string) => void)[] = [];
  let liveSubscriber: Redis | undefined;
  let liveSubscribed: Promise<unknown> | undefined;

  /**
   * Live events nobody would receive are not sent: most of the time no screen watches, and a
   * PUBLISH per status change cost about 0.06 ms of the gateway's CPU per refund (issue 18's bench,
   * docs/benchmarks-history.md). A PUBLISH answers how many connections received it. Once one answers 0,
   * this instance stops publishing, until an instance announces that it started listening (on
   * `live:listening`, heard on the invalidations connection) or this instance may have missed such
   * an announcement (its subscription renewed, or a gap in hearing it). It stops only while it
   * hears announcements (`receiving`), and not on a 0 sent before news of a listener arrived.
   *
   * The window this leaves: a change committed on another instance in the few milliseconds between
   * a first listener's SUBSCRIBE and that instance hearing its announcement is not told; live
   * updates are best effort (LiveEventBus), and a screen re-reads what it shows when it subscribes.
   */
  const liveListeningChannel = `${prefix}live:listening`;
  let nobodyListensLive = false;
  /** Bumped whenever a live listener may have appeared: a 0 answered to a PUBLISH sent before it proves nothing. */
  let liveListenerNews = 0;
  function liveListenerMayHaveAppeared(): void {
    liveListenerNews += 1;
    nobodyListensLive = false;
  }
  /** Tells every instance this one listens now (after its SUBSCRIBE was confirmed, so a PUBLISH after it reaches it). */
  const announceLiveListening = () => call(() => redis.publish(liveListeningChannel, '1'));

  const subscribeToLiveEvents = (): Promise<unknown> => {
    const connection = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined, connectionName: `${prefix}live` });
    connection.on('error', () => undefined); // reported through the main connection's onError
    connection.on('message', (_channel: string, message: string) => {
      for (const listener of liveListeners) listener(message);
    });
    // After a reconnect ioredis subscribes again (after 'ready'): a PING on the next turn follows
    // that SUBSCRIBE on the wire, and once it is answered the others are told again (they may
    // have stopped publishing while this connection was away).
    let first = true;
    connection.on('ready', () => {
      if (first) {
        first = false; // the first subscription announces below
        return;
      }
      setImmediate(
        () =>
          void connection
            .ping()
            .then(announceLiveListening)
            .catch(() => undefined),
      );
    });
    liveSubscriber = connection;
    return connection
      .subscribe(liveChannel)
      .then(announceLiveListening)
      .catch((error: unknown) => {
        liveSubscribed = undefined; // the next subscriber asks again
        liveSubscriber = undefined;
        connection.disconnect();
        throw error;
      });
  };

  const breaker = new CircuitBreaker({
    failureThreshold: BREAKER_FAILURE_THRESHOLD,
    coolDownMs: BREAKER_COOL_DOWN_MS,
    timeoutMs: callTimeoutMs,
    // An error reply (WRONGTYPE, a script error...) means Redis answered: it is reachable.
    isFailure: (error) => !(error instanceof ReplyError),
  });

  // Without a listener ioredis prints "Unhandled error event" for every failed reconnect.
  let lastReportedAt = Number.NEGATIVE_INFINITY;
  redis.on('error', (err: Error) => {
    const now = Date.now();
    if (now - lastReportedAt < ERROR_REPORT_INTERVAL_MS) return;
    lastReportedAt = now;
    options.onError?.(err);
  });
  redis.on('ready', () => {
    lastReportedAt = Number.NEGATIVE_INFINITY; // the next outage is news again
    breaker.endCoolDown(); // connected again: let the next call probe now rather than after the cool-down
  });

  /** Settles when the connection attempt in flight ends, either way (one listener pair for all waiters). */
  let attempt: Promise<void> | undefined;
  const attemptEnds = (): Promise<void> =>
    (attempt ??= new Promise<void>((resolve) => {
      const done = () => {
        redis.off('ready', done);
        redis.off('close', done);
        attempt = undefined;
        resolve();
      };
      redis.on('ready', done);
      redis.on('close', done);
    }));

  /**
   * Every Redis call goes through here: the breaker (fail at once while open), the deadline, and no
   * queueing. A call made while a connection attempt is in flight waits for it, until its deadline at
   * most; while disconnected between attempts it fails at once. Anything but an error reply becomes
   * CoordinatorUnavailableError: "Redis could not be asked", as opposed to "Redis said no".
   */
  const call = <T>(send: () => Promise<T>): Promise<T> =>
    breaker.run(async (deadline) => {
      try {
        if (redis.status === 'connecting' || redis.status === 'connect') await attemptEnds();
        if (redis.status !== 'ready') throw new CoordinatorUnavailableError(`redis connection is ${redis.status}`);
        // Past the deadline the caller has moved on: do not send a command nobody awaits.
        if (Date.now() >= deadline) throw new CoordinatorUnavailableError('redis connected after the deadline');
        return await send();
      } catch (error) {
        if (error instanceof ReplyError || error instanceof CoordinatorUnavailableError) throw error;
        throw new CoordinatorUnavailableError(`redis: ${(error as Error).message}`, { cause: error });
      }
    });

  redis.defineCommand('gwRateLimit', { numberOfKeys: 1, lua: RATE_LIMIT_LUA });
  redis.defineCommand('gwRateTake', { numberOfKeys: 1, lua: RATE_TAKE_LUA });
  redis.defineCommand('gwClaimDue', { numberOfKeys: 1, lua: CLAIM_DUE_LUA });

  const schedKey = `${prefix}sched`;
  const token = () => randomBytes(12).toString('hex');
  /**
   * Rate-limit members must be unique across instances, not secret: a random prefix per
   * coordinator and a counter (randomBytes on every hit showed in the bench's CPU profile).
   */
  const memberPrefix = `${token()}:`;
  let hits = 0;
  const nextMember = () => memberPrefix + (hits++).toString(36);

  return {
    kind: 'redis',

    // Exact across instances: every hit let through was counted in Redis first (see leasedRateLimiter).
    // When Redis cannot be asked, this instance's own exact window decides (never no limit at all).
    rateLimiter: withLocalFallback(
      leasedRateLimiter({
        /** Rejects with CoordinatorUnavailableError when Redis cannot be asked: the caller limits locally. */
        async hit(key: string, rule?: RateLimitRule): Promise<RateLimitDecision> {
          const limit = rule ?? { max, windowMs };
          // Unique member suffix: two hits in the same millisecond must be two entries, not one.
          const [allowed, remaining, retryAfterMs, resetMs] = await call(() =>
            redis.gwRateLimit(`${prefix}rl:${key}`, limit.max, limit.windowMs, nextMember()),
          );
          return { allowed: allowed === 1, limit: limit.max, remaining, retryAfterMs, resetMs };
        },
        async take(key: string, need: number, extra: number, leaseMs: number) {
          const base = nextMember();
          const [granted, extras, remaining, retryAfterMs, resetMs] = await call(() =>
            redis.gwRateTake(`${prefix}rl:${key}`, max, windowMs, base, need, extra, leaseMs),
          );
          return { granted, extras, base, limit: max, remaining, retryAfterMs, resetMs };
        },
        async release(key: string, members: string[]): Promise<void> {
          await call(() => redis.zrem(`${prefix}rl:${key}`, ...members));
        },
      }),
      slidingWindowRateLimiter({ max, windowMs }),
    ),

    /**
     * Fails fast (CoordinatorUnavailableError) while Redis cannot be asked. The schedule is a fast index,
     * not the record: a job's state lives in PostgreSQL (the outbox), so a caller leaves the job pending
     * there and re-schedules pending jobs from it once calls succeed again (schedule is idempotent by
     * id). A claimDue that timed out may have removed jobs on the server: only the outbox can bring
     * those back, so it must never be treated as gone.
     */
    scheduler: {
      async schedule(job) {
        await call(() => redis.zadd(schedKey, job.dueAt, job.id)); // ZADD on an existing member replaces its score
      },
      async cancel(id) {
        await call(() => redis.zrem(schedKey, id));
      },
      async claimDue(now, maxJobs) {
        // LIMIT 0 0 is empty but a negative count means "all": never pass one through.
        if (maxJobs <= 0) return [];
        return call(() => redis.gwClaimDue(schedKey, now, Math.floor(maxJobs)));
      },
    },

    invalidations: {
      // Through the breaker like every call: fails fast when Redis is down (callers log it; caches expire).
      async publish(message) {
        await call(() => redis.publish(invalidationChannel, message));
      },
      subscribe(listener) {
        invalidationListeners.push(listener);
        subscriber ??= subscribeToInvalidations();
      },
      receiving,
    },

    liveEvents: {
      // Through the breaker: fails fast when Redis is down (the publisher logs it; webhooks remain).
      async publish(message) {
        if (nobodyListensLive && receiving()) return;
        const news = liveListenerNews;
        const receivers = await call(() => redis.publish(liveChannel, message));
        if (receivers === 0 && news === liveListenerNews && receiving()) nobodyListensLive = true;
      },
      async subscribe(listener) {
        if (!liveListeners.includes(listener)) liveListeners.push(listener); // a retry after a failed subscribe
        liveSubscribed ??= subscribeToLiveEvents();
        await liveSubscribed;
      },
    },

    health: {
      /**
       * True only if Redis answers PING within the call deadline. Goes through the breaker: while it
       * is open every coordination call fails at once, so the coordinator is down for this instance
       * and false is the honest answer (given at once). A readiness probe may be the breaker's probe.
       */
      async ping() {
        return call(() => redis.ping()).then(
          (reply) => reply === 'PONG',
          () => false,
        );
      },
      async close() {
        clearInterval(subscriptionPinger);
        subscriber?.disconnect();
        liveSubscriber?.disconnect();
        // QUIT lets in-flight replies arrive; when not connected there is nothing to wait for, so drop
        // the connection (and stop reconnecting) at once.
        if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
        else redis.disconnect();
      },
    },
  };
}

/**
 * The shared limiter, or, when Redis cannot be asked (down, frozen, its breaker open), this
 * instance's own exact sliding window with the same rule: each instance then lets through at most
 * the limit on its own (N instances: N times the limit in all), never unlimited. Sign-in
 * throttling goes through here too, so it is never off. Hits counted locally during an outage are
 * not carried over to Redis when it answers again. The decision says it was local (`local`).
 */
function withLocalFallback(shared: RateLimiter, local: RateLimiter): RateLimiter {
  return {
    async hit(key, rule) {
      try {
        return await shared.hit(key, rule);
      } catch {
        return { ...(await local.hit(key, rule)), local: true };
      }
    },
  };
}
