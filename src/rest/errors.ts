/**
 * Turns any thrown value into (status, public message). Domain errors carry their own; anything
 * else is a bug: logged with the request id, answered 500 `Internal server error`, never a stack.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ERROR_CATALOGUE, type ErrorCode } from '../domain/errors.js';
import { unavailableIfDatabaseFailed } from '../domain/providerFlow.js';

export interface PublicError {
  status: number;
  message: string;
  code: ErrorCode;
}

/** Fastify's own errors (body too large, bad content) mapped to the catalogue. */
function fromFrameworkError(error: { statusCode?: number; code?: string }): DomainError | null {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) return new DomainError('body_too_large');
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415) return new DomainError('unsupported_media_type');
  if (typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP_')) return new DomainError('invalid_request_body');
  // Any other client error fastify raises itself (bad URL encoding, bad headers...) is the
  // client's to fix, never a 500.
  if (typeof error.code === 'string' && error.code.startsWith('FST_') && error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new DomainError('invalid_request');
  }
  return null;
}

export function toPublicError(error: unknown): PublicError & { unexpected: boolean } {
  const domainError =
    error instanceof DomainError ? error : (unavailableIfDatabaseFailed(error) ?? fromFrameworkError((error ?? {}) as { statusCode?: number; code?: string }));
  if (domainError) return { status: domainError.status, message: domainError.message, code: domainError.code, unexpected: false };
  const internal = ERROR_CATALOGUE.internal;
  return { status: internal.status, message: internal.message, code: 'internal', unexpected: true };
}

/**
 * A retryable answer says when to retry: the database link failing under a request is usually
 * over within a second (the pool opens a new connection for the next request).
 */
export function retryAfterSecondsOf(publicError: PublicError): number | undefined {
  return publicError.code === 'database_unavailable' ? 1 : undefined;
}

/**
 * The public error of a request's failure, with what every surface does alike before rendering it
 * in its own shape: an unexpected error is logged (never detailed to the client), and a retryable
 * 503 gets its Retry-After and a warning line.
 */
export function publicErrorOfRequest(request: FastifyRequest, reply: FastifyReply, error: unknown): PublicError {
  const publicError = toPublicError(error);
  if (publicError.unexpected) request.log.error({ err: error, requestId: request.id }, 'unexpected error');
  const retryAfter = retryAfterSecondsOf(publicError);
  if (retryAfter !== undefined) {
    reply.header('retry-after', retryAfter);
    request.log.warn({ err: error, requestId: request.id }, 'the database link failed under the request: answered 503, to be retried');
  }
  return publicError;
}
