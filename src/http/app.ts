/**
 * The API origin: one fastify server hosting the REST surfaces (v2, deprecated v1), GraphQL, health
 * and docs. Cross-cutting HTTP concerns live here: request ids, body limits, JSON errors, logging.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { RateLimitedError } from '../domain/rateLimit.js';
import { toPublicError } from '../rest/errors.js';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { registerRestSurface, type RestSurface } from '../rest/pipeline.js';
import { V1_ROOT, v1Surface } from '../rest/v1/surface.js';
import { V2_ROOT, v2Surface } from '../rest/v2/surface.js';
import { createYoga, graphqlErrorBody } from '../graphql/yoga.js';
import { registerDocs } from './docs.js';
import { registerMetrics, type MetricsOptions } from './metrics.js';
import { registerWebhookMetrics } from '../webhooks/metrics.js';
import { enforceRateLimitOn } from './rateLimit.js';

export interface AppOptions {
  ctx: GatewayContext;
  adminToken: string | null;
  /** Readiness of the database and the coordinator. */
  ready: () => Promise<{ database: boolean; coordinator: boolean }>;
  /** The gateway's pino logger, or false to log nothing (tests). */
  logger: FastifyBaseLogger | false;
  /** Prometheus metrics at /metrics, or false for none (most tests: many gateways in one process). */
  metrics?: MetricsOptions | false;
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

  if (options.metrics) registerWebhookMetrics(registerMetrics(app, options.metrics), options.ctx);
  app.get('/', async () => ({
    message: 'XOF Gateway API. REST v2 is under /api/v2 (reference: /docs); GraphQL is at /graphql. REST v1 is deprecated (reference: /docs/v1).',
    rest_v2: V2_ROOT,
    rest_v1: V1_ROOT,
    docs: '/docs',
    docs_v1: '/docs/v1',
    graphql: '/graphql',
    health: '/healthz',
  }));
  app.get('/healthz', async () => ({ status: 'ok' }));
  registerDocs(app);
  app.get('/readyz', async (_request, reply) => {
    const checks = await options.ready();
    const ready = checks.database && checks.coordinator;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });

  for (const surface of REST_SURFACES) await registerSurfaceWithContract(app, options, surface);

  const yoga = createYoga({ ctx: options.ctx, adminToken: options.adminToken });
  app.route({
    url: yoga.graphqlEndpoint,
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (request, reply) => {
      try {
        await enforceRateLimitOn(options.ctx, request, reply, `${request.method} ${yoga.graphqlEndpoint}`);
      } catch (error) {
        // GraphQL renders its own refusals: a GraphQL error with extensions.code, status 429.
        if (error instanceof RateLimitedError) return reply.code(error.status).type('application/json; charset=utf-8').send(graphqlErrorBody(error));
        throw error;
      }
      const responseHeaders = new Map<string, string>();
      const response = await yoga.handleNodeRequestAndResponse(request, reply, { requestId: request.id, responseHeaders });
      response.headers.forEach((value: string, key: string) => {
        reply.header(key, value);
      });
      for (const [name, value] of responseHeaders) reply.header(name, value);
      reply.status(response.status);
      // The whole answer at once, with a Content-Length: sent as yoga's stream it left in a
      // chunked encoding, several writes per answer (the GraphQL page's profile was a quarter writev).
      reply.send(Buffer.from(await response.arrayBuffer()));
      return reply;
    },
  });

  return app;
}

/** A REST surface's routes, and its contract as JSON at `<root>/openapi.json` (with the surface's headers). */
async function registerSurfaceWithContract(app: FastifyInstance, options: AppOptions, surface: RestSurface): Promise<void> {
  app.get(`${surface.root}/openapi.json`, async (_request, reply) => {
    if (surface.headers) reply.headers(surface.headers);
    return openApiDocument(surface.definition);
  });
  await registerRestSurface(app, options.ctx, surface, { adminToken: options.adminToken });
}

/** Each contract as JSON, parsed once on first request. */
const cachedDocuments = new Map<string, Promise<unknown>>();
function openApiDocument(definition: string): Promise<unknown> {
  let document = cachedDocuments.get(definition);
  if (!document) {
    document = readFile(definition, 'utf8').then((text) => parseYaml(text));
    cachedDocuments.set(definition, document);
  }
  return document;
}

const REST_SURFACES = [v2Surface, v1Surface];

/** The REST surface a path is in (its root or below), for errors raised before its routes run. */
const surfaceAt = (url: string): RestSurface | undefined =>
  REST_SURFACES.find((surface) => url === surface.root || url.startsWith(`${surface.root}/`) || url.startsWith(`${surface.root}?`));

/**
 * Errors outside the REST surfaces' routes: under a surface's root (its bare root, a path fastify
 * refused before routing, such as a malformed percent-encoding) in that surface's shape and with its
 * headers; elsewhere (health, docs, unknown paths) as `{"error": "..."}`, the API's general shape.
 * Unexpected ones are logged, never detailed.
 */
function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const publicError = toPublicError(error);
  if (publicError.unexpected) request.log.error({ err: error, requestId: request.id }, 'unexpected error');
  const surface = surfaceAt(request.url);
  if (surface?.headers) reply.headers(surface.headers);
  return reply.code(publicError.status).send(surface ? surface.errorBody(publicError.message) : { error: publicError.message });
}
