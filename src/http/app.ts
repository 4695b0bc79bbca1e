/**
 * The API origin: one fastify server hosting REST v2 (and later v1), GraphQL, health and docs.
 * Cross-cutting HTTP concerns live here: request ids, body limits, JSON errors, logging.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import type { RateLimitDecision } from '../domain/ports.js';
import { enforceRateLimit, RateLimitedError } from '../domain/rateLimit.js';
import { toPublicError, v2ErrorBody } from '../rest/errors.js';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { createV2Router, V2_DEFINITION, V2_ROOT } from '../rest/v2/router.js';
import { createYoga } from '../graphql/yoga.js';
import { registerDocs } from './docs.js';
import type { Query } from '../rest/query.js';

export interface AppOptions {
  ctx: GatewayContext;
  adminToken: string | null;
  /** Readiness of the database and the coordinator. */
  ready: () => Promise<{ database: boolean; coordinator: boolean }>;
  /** The gateway's pino logger, or false to log nothing (tests). */
  logger: FastifyBaseLogger | false;
}

/** Largest request body accepted: a transaction of 100 products is a few kB; refuse before parsing. */
export const BODY_LIMIT_BYTES = 100 * 1024;
/** An incoming X-Request-Id is kept if it looks like an id (so it can be logged safely). */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
/** Bounds on slow clients: a request must arrive within this, and idle sockets are reaped. */
const REQUEST_TIMEOUT_MS = 30_000;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_TIMEOUT_MS,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    // Errors fastify raises before routing (a malformed percent-encoding in the path...) leave
    // in the API's error shape too.
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Answers carry payment data: never cached by a browser or proxy, never content-sniffed.
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
  });

  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new DomainError('route_not_found')));

  app.get('/healthz', async () => ({ status: 'ok' }));
  registerDocs(app);
  app.get('/readyz', async (_request, reply) => {
    const checks = await options.ready();
    const ready = checks.database && checks.coordinator;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });

  await app.register(async (rest) => {
    // REST bodies stay raw text until the caller is authenticated and authorised; the handlers
    // parse them (so a bad key gets 401 before a bad body gets 400). Any content type is read as
    // JSON: clients that forget the header still get a precise answer.
    rest.removeAllContentTypeParsers();
    rest.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    const v2 = await createV2Router(options.ctx, { adminToken: options.adminToken });
    rest.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: `${V2_ROOT}/*`,
      handler: async (request, reply) => {
        const path = request.url.split('?')[0] ?? '';
        await limitRate(options.ctx, request, reply, v2.endpointOf(request.method, path));
        const response = await v2.handle({
          method: request.method,
          path,
          query: request.query as Query,
          headers: request.headers,
          body: request.body,
        });
        if (response.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(response.status).type('application/json; charset=utf-8').send(response.json);
      },
    });
    rest.get(`${V2_ROOT}/openapi.json`, async () => v2OpenApiDocument());
  });

  const yoga = createYoga({ ctx: options.ctx, adminToken: options.adminToken });
  app.route({
    url: yoga.graphqlEndpoint,
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (request, reply) => {
      await limitRate(options.ctx, request, reply, `${request.method} ${yoga.graphqlEndpoint}`);
      const response = await yoga.handleNodeRequestAndResponse(request, reply, { requestId: request.id });
      response.headers.forEach((value: string, key: string) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });

  return app;
}

/** The contract as JSON, parsed once on first request. */
let cachedDocument: Promise<unknown> | undefined;
function v2OpenApiDocument(): Promise<unknown> {
  cachedDocument ??= readFile(V2_DEFINITION, 'utf8').then((text) => parseYaml(text));
  return cachedDocument;
}

/**
 * The spec's per-IP, per-endpoint limit, with the IETF RateLimit headers on every answer. The
 * client IP is the socket's: behind a proxy, configure trust before relying on this.
 */
async function limitRate(ctx: GatewayContext, request: FastifyRequest, reply: FastifyReply, endpoint: string): Promise<void> {
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

/** Every error leaves as the spec's JSON shape; unexpected ones are logged, never detailed. */
function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const publicError = toPublicError(error);
  if (publicError.unexpected) request.log.error({ err: error, requestId: request.id }, 'unexpected error');
  return reply.code(publicError.status).send(v2ErrorBody(publicError.message));
}
