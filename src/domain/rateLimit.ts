/**
 * The spec's rate limit: at most RATE_LIMIT_MAX requests per sliding window (100 per 60 s) from
 * one client IP to one endpoint. Counted by the coordination port, so every instance sharing
 * Redis shares the budget.
 */
import type { GatewayContext } from './context.js';
import { DomainError } from './errors.js';
import type { RateLimitDecision, RateLimitRule } from './ports.js';

export class RateLimitedError extends DomainError {
  constructor(readonly decision: RateLimitDecision) {
    super('rate_limited');
  }
}

/**
 * While the coordinator fails, the limiter warns at most this often: an outage under load would
 * otherwise write one warning per request. Each warning says how many requests were limited by
 * this instance alone (or, with a coordinator that cannot fall back, let through) since.
 */
const OUTAGE_WARNING_INTERVAL_MS = 60_000;

/** An ongoing coordinator failure, as the limiter saw it. */
interface Outage {
  since: number;
  lastWarnedAt: number;
  /** Requests decided without the shared coordinator since the outage began. */
  requests: number;
}
/**
 * Per coordinator object, not per process: two gateways in one process (tests), or a coordinator
 * swapped in at run time, each have their own outage. Weak: a dropped coordinator takes its entry along.
 */
const outages = new WeakMap<object, Outage>();

/**
 * Counts one request of `clientIp` to `endpoint` (method + route template, so every order id
 * shares one budget) and throws 429 when over the limit. With Redis unreachable the coordinator
 * decides with this instance's own exact window instead (`decision.local`): still a limit, the
 * same one per instance. Only a coordinator that throws (none of ours does for an outage) lets the
 * request through: the limit protects fairness, not money, and must not stop payments. The outage
 * is logged once when it begins, then at most once per OUTAGE_WARNING_INTERVAL_MS, and its end once.
 */
export async function enforceRateLimit(ctx: GatewayContext, clientIp: string, endpoint: string): Promise<RateLimitDecision | null> {
  // Switched off by the operator (RATE_LIMIT_ENABLED=false): a proxy in front enforces it.
  if (ctx.settings.apiRateLimit === false) return null;
  let decision: RateLimitDecision;
  try {
    decision = await ctx.coordination.rateLimiter.hit(`rl:${endpoint}:${clientIp}`);
  } catch (error) {
    duringOutage(ctx, endpoint, 'open', error);
    return null;
  }
  if (decision.local) duringOutage(ctx, endpoint, 'local');
  else recovered(ctx);
  if (!decision.allowed) throw new RateLimitedError(decision);
  return decision;
}

function recovered(ctx: GatewayContext): void {
  const outage = outages.get(ctx.coordination);
  if (!outage) return;
  outages.delete(ctx.coordination);
  ctx.log.info(
    { coordinator: ctx.coordination.kind, outageMs: ctx.clock.now().getTime() - outage.since, requestsDecidedAlone: outage.requests },
    'rate limiter recovered: the coordinator answers again, requests are counted across instances',
  );
}

function duringOutage(ctx: GatewayContext, endpoint: string, mode: 'local' | 'open', error?: unknown): void {
  const now = ctx.clock.now().getTime();
  let outage = outages.get(ctx.coordination);
  if (!outage) {
    outage = { since: now, lastWarnedAt: Number.NEGATIVE_INFINITY, requests: 0 };
    outages.set(ctx.coordination, outage);
  }
  outage.requests += 1;
  if (now - outage.lastWarnedAt < OUTAGE_WARNING_INTERVAL_MS) return;
  outage.lastWarnedAt = now;
  const coordinator = `the coordinator${ctx.coordination.kind === 'redis' ? ' (Redis)' : ''} is unreachable`;
  ctx.log.warn(
    {
      ...(error !== undefined && { err: error }),
      endpoint,
      coordinator: ctx.coordination.kind,
      reason:
        mode === 'local'
          ? `${coordinator}, so each instance limits requests with its own window (the same limit per instance)`
          : `failing open: ${coordinator}, so requests are let through without a rate limit`,
      outageSince: new Date(outage.since).toISOString(),
      requestsDecidedAlone: outage.requests,
      nextWarningInMs: OUTAGE_WARNING_INTERVAL_MS,
    },
    mode === 'local' ? 'rate limiter: coordinator unavailable, limiting per instance' : 'rate limiter unavailable: request let through',
  );
}

/**
 * A throttle of its own (sign-in, a payment link's form): one hit of `key` under `rule`. When the
 * coordinator cannot be asked the attempt goes on, logged under `throttle`: an outage must not
 * lock customers or merchants out, and the throttle bounds abuse, not money.
 */
export async function hitThrottle(ctx: GatewayContext, throttle: string, key: string, rule: RateLimitRule): Promise<RateLimitDecision | null> {
  try {
    return await ctx.coordination.rateLimiter.hit(key, rule);
  } catch (error) {
    ctx.log.warn({ err: error, throttle }, 'throttle unavailable: attempt let through');
    return null;
  }
}

/** How long to wait (ms) before the longest of the refused hits lets one through; null: none refused. */
export function retryAfterOfRefused(decisions: (RateLimitDecision | null)[]): number | null {
  const refused = decisions.filter((decision): decision is RateLimitDecision => decision !== null && !decision.allowed);
  return refused.length ? Math.max(...refused.map((decision) => decision.retryAfterMs)) : null;
}
