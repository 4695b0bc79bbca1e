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
 * Counts one request of `clientIp` to `endpoint` (method + route template, so every order id
 * shares one budget) and throws 429 when over the limit. When the coordinator itself fails the
 * request goes through: the limit protects the service's fairness, not money, and a Redis outage
 * must not stop payments. The failure is logged.
 */
export async function enforceRateLimit(ctx: GatewayContext, clientIp: string, endpoint: string): Promise<RateLimitDecision | null> {
  let decision: RateLimitDecision;
  try {
    decision = await ctx.coordination.rateLimiter.hit(`rl:${endpoint}:${clientIp}`);
  } catch (error) {
    ctx.log.warn({ err: error, endpoint }, 'rate limiter unavailable: request let through');
    return null;
  }
  if (!decision.allowed) throw new RateLimitedError(decision);
  return decision;
}
