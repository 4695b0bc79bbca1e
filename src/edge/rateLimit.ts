/**
 * The spec's per-IP, per-endpoint limit at the HTTP edge, with the IETF RateLimit headers on
 * every answer. The client IP is the socket's: behind a proxy, configure trust before relying on
 * this. The rule itself (what counts, failing open) is the domain's (domain/rateLimit.ts); each
 * surface renders a refusal in its own shape.
 *
 * Shared by the surfaces (the REST pipeline, GraphQL), so it sits below them, not in their host
 * (src/http mounts them: a surface importing from its host would be an upward arrow).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../domain/context.js';
import type { RateLimitDecision } from '../domain/ports.js';
import { enforceRateLimit, RateLimitedError } from '../domain/rateLimit.js';

/** Counts the request against `endpoint` (method + route template); throws RateLimitedError past the limit. */
export async function enforceRateLimitOn(ctx: GatewayContext, request: FastifyRequest, reply: FastifyReply, endpoint: string): Promise<void> {
  try {
    const decision = await enforceRateLimit(ctx, request.ip, endpoint);
    if (decision) setRateLimitHeaders(reply, decision);
  } catch (error) {
    if (error instanceof RateLimitedError) {
      setRateLimitHeaders(reply, error.decision);
      reply.header('retry-after', Math.max(1, Math.ceil(error.decision.retryAfterMs / 1000)));
    }
    throw error;
  }
}

function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  reply.header('ratelimit-limit', decision.limit);
  reply.header('ratelimit-remaining', decision.remaining);
  reply.header('ratelimit-reset', Math.ceil(decision.resetMs / 1000));
}
