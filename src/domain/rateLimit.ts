/**
 * The spec's rate limit: at most RATE_LIMIT_MAX requests per sliding window (100 per 60 s) from
 * one client IP to one endpoint. Counted by the coordination port, so every instance sharing
 * Redis shares the budget.
 */
import type { GatewayContext } from './context.js';
import { DomainError } from './errors.js';
import type { RateLimitDecision } from './ports.js';

export class RateLimitedError extends DomainError {
  constructor(readonly decision: RateLimitDecision) {
    super('rate_limited');
  }
}

/**
 * While the coordinator fails, the limiter warns at most this often: an outage under load would
 * otherwise write one warning per request. Each warning says how many requests went unlimited since.
 */
const FAILING_OPEN_WARNING_INTERVAL_MS = 60_000;

/** An ongoing coordinator failure, as the limiter saw it. */
interface Outage {
  since: number;
  lastWarnedAt: number;
  /** Requests let through unlimited since the outage began. */
  letThrough: number;
}
/**
 * Per coordinator object, not per process: two gateways in one process (tests), or a coordinator
 * swapped in at run time, each have their own outage. Weak: a dropped coordinator takes its entry along.
 */
const outages = new WeakMap<object, Outage>();

/**
 * Counts one request of `clientIp` to `endpoint` (method + route template, so every order id
 * shares one budget) and throws 429 when over the limit. When the coordinator itself fails the
 * request goes through: the limit protects the service's fairness, not money, and a Redis outage
 * must not stop payments. The coordinator bounds the wait (Redis: a short deadline and a circuit
 * breaker, so an outage costs microseconds per request). The failure is logged once when it begins,
 * then at most once per FAILING_OPEN_WARNING_INTERVAL_MS, and its end once.
 */
export async function enforceRateLimit(ctx: GatewayContext, clientIp: string, endpoint: string): Promise<RateLimitDecision | null> {
  let decision: RateLimitDecision;
  try {
    decision = await ctx.coordination.rateLimiter.hit(`rl:${endpoint}:${clientIp}`);
  } catch (error) {
    failingOpen(ctx, endpoint, error);
    return null;
  }
  const outage = outages.get(ctx.coordination);
  if (outage) {
    outages.delete(ctx.coordination);
    ctx.log.info(
      { coordinator: ctx.coordination.kind, failedOpenForMs: ctx.clock.now().getTime() - outage.since, requestsLetThrough: outage.letThrough },
      'rate limiter recovered: the coordinator answers again, requests are counted',
    );
  }
  if (!decision.allowed) throw new RateLimitedError(decision);
  return decision;
}

function failingOpen(ctx: GatewayContext, endpoint: string, error: unknown): void {
  const now = ctx.clock.now().getTime();
  let outage = outages.get(ctx.coordination);
  if (!outage) {
    outage = { since: now, lastWarnedAt: Number.NEGATIVE_INFINITY, letThrough: 0 };
    outages.set(ctx.coordination, outage);
  }
  outage.letThrough += 1;
  if (now - outage.lastWarnedAt < FAILING_OPEN_WARNING_INTERVAL_MS) return;
  outage.lastWarnedAt = now;
  ctx.log.warn(
    {
      err: error,
      endpoint,
      coordinator: ctx.coordination.kind,
      reason: `failing open: the coordinator${ctx.coordination.kind === 'redis' ? ' (Redis)' : ''} is unreachable, so requests are let through without a rate limit`,
      failingOpenSince: new Date(outage.since).toISOString(),
      requestsLetThrough: outage.letThrough,
      nextWarningInMs: FAILING_OPEN_WARNING_INTERVAL_MS,
    },
    'rate limiter unavailable: request let through',
  );
}
