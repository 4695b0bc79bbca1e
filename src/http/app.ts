/**
 * The API origin: one fastify server hosting the REST surfaces (v2, deprecated v1), GraphQL, health
 * and docs. Cross-cutting HTTP concerns live here: request ids, body limits, JSON errors, logging.
 */
import { providerStatuses } from '../domain/providerCalls/providerHealth.js';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { GatewayContext } from '../domain/context.js';
import { DomainError, ERROR_CATALOGUE } from '../domain/errors.js';
import { RateLimitedError } from '../domain/rateLimit.js';
import { requestJsonProblem } from '../domain/text.js';
import { publicErrorOfRequest, type PublicError } from '../rest/errors.js';
import { readContract } from '../rest/contract.js';
import { registerRestSurface, type RestSurface } from '../rest/pipeline.js';
import { V1_ROOT, v1Surface } from '../rest/v1/surface.js';
import { V2_ROOT, v2Surface } from '../rest/v2/surface.js';
import { graphqlErrorBody } from '../graphql/errorBody.js';
import type { createYoga } from '../graphql/yoga.js';
import { endLiveStreams } from '../domain/liveUpdates/events.js';
import { registerDocs } from './docs.js';
import { registerDashboard } from '../dashboard/app.js';
import { registerDashboardAuth } from '../dashboard/auth/routes.js';
import { registerDashboardUploads } from '../dashboard/uploads.js';
import { registerMetrics, type MetricsOptions } from './metrics.js';
import { registerWebhookMetrics } from '../webhooks/metrics.js';
import { enforceRateLimitOn } from '../edge/rateLimit.js';
import { registerExports } from '../rest/exports/routes.js';
import { registerProviderNotificationRoutes } from './providerNotifications.js';
import { loadOnce } from '../domain/loadOnce.js';

export interface AppOptions {
  ctx: GatewayContext;
  adminToken: string | null;
  /** Readiness of the database and the coordinator. */
  ready: () => Promise<{ database: boolean; coordinator: boolean }>;
  /** The gateway's pino logger, or false to log nothing (tests). */
  logger: FastifyBaseLogger | false;
  /** Prometheus metrics at /metrics, or false for none (most tests: many gateways in one process). */
  metrics?: MetricsOptions | false;
  /** TRUSTED_PROXIES: whose X-Forwarded-For gives request.ip (rate limit, logs); none by default. */
  trustedProxies?: string[];
  /** GRAPHQL_PRELOAD: load the GraphQL API before listening (the default), or on its first request. */
  graphqlPreload?: boolean;
}

/** Largest request body accepted: a transaction of 100 products is a few kB; refuse before parsing. */
const BODY_LIMIT_BYTES = 100 * 1024;
/**
 * An incoming X-Request-Id is kept only in a shape that cannot be one of our credentials: a UUID
 * (8-4-4-4-12 hex digits, any case) or 8 to 64 hex digits (nginx's $request_id is 32). API keys,
 * operator tokens and webhook secrets carry a `gw_sk_`, `gw_op_` or `whsec_` prefix and base64url
 * text, so they never match; the one credential that could be hex, a GATEWAY_ADMIN_TOKEN chosen
 * as such, is refused by name. Decimal digits alone are hex too, and are a phone number's shape
 * (`771234567`, `221771234567`): refused, as no generator of request ids makes them. Anything else
 * is replaced by a fresh UUID, and neither logged nor echoed back (a client that sent its key or
 * its phone as the request id must not find it in the logs).
 */
const REQUEST_ID_SHAPE = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{8,64})$/i;

export function acceptedRequestId(incoming: unknown, adminToken: string | null): string | null {
  if (typeof incoming !== 'string' || !REQUEST_ID_SHAPE.test(incoming) || /^\d+$/.test(incoming)) return null;
  return adminToken !== null && incoming.toLowerCase() === adminToken.toLowerCase() ? null : incoming;
}
/** Bounds on slow clients: a request must arrive within this, and idle sockets are reaped. */
const REQUEST_TIMEOUT_MS = 30_000;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // The client is the right-most X-Forwarded-For address that is not a trusted proxy.
    trustProxy: options.trustedProxies?.length ? options.trustedProxies : false,
    genReqId: (req) => acceptedRequestId(req.headers['x-request-id'], options.adminToken) ?? randomUUID(),
    // Errors fastify raises before routing (a malformed percent-encoding in the path...) leave
    // in the API's error shape too.
    frameworkErrors: (error, request, reply) => {
      // Answered before routing, so before the onRequest hook below: its headers too.
      reply.header('x-request-id', request.id).header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
      logCompletion(request, reply);
      return sendError(request, reply, error);
    },
    // And so do requests node's HTTP parser refuses (a bad Content-Length, oversized headers, a
    // slow client), instead of fastify's `{"error","message","statusCode"}`.
    clientErrorHandler: answerClientError,
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
  // Up; and each method's wallet provider, healthy or not (why: GraphQL providerStatus, operators only).
  app.get('/healthz', async () => ({
    status: 'ok',
    providers: providerStatuses(options.ctx).map(({ method, provider, healthy }) => ({ method, provider, healthy })),
  }));
  registerDocs(app);
  registerDashboard(app);
  registerDashboardAuth(app, options.ctx);
  await registerDashboardUploads(app, options.ctx);
  app.get('/readyz', async (_request, reply) => {
    const checks = await options.ready();
    const ready = checks.database && checks.coordinator;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });

  for (const surface of REST_SURFACES) await registerSurfaceWithContract(app, options, surface);
  registerExports(app, options.ctx, { adminToken: options.adminToken });
  await registerProviderNotificationRoutes(app, options.ctx);

  const yoga = graphqlServer(options);
  // Loaded before the server listens by default, not after: loading it is ~1 s of synchronous
  // module evaluation, and a gateway that already answered /healthz then held every request that
  // long (a payout past its provider deadline answered in 2.5 s instead of 1.2; a provider's
  // callback timed out). Start-up pays for it instead (docs/operations.md, "Start-up time and
  // memory"). GRAPHQL_PRELOAD=false leaves it to the first /graphql request: for instances that
  // serve REST only, and the test suite's gateway processes (those that ask GraphQL load it then).
  if (options.graphqlPreload ?? true) await yoga();
  // Live updates' SSE responses never finish by themselves: complete them when the server closes.
  app.addHook('preClose', async () => endLiveStreams(options.ctx));
  await app.register(async (scope) => {
    // GraphQL reads its own bodies: raw text whatever the content type, then parsed and checked
    // here (JSON only, the text rule of domain/text.ts), so that every refusal, the body limit's
    // included, answers in GraphQL's shape rather than fastify's or Yoga's.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error, request, reply) => sendError(request, reply, error));
    scope.route({
      url: GRAPHQL_PATH,
      method: ['GET', 'POST', 'OPTIONS'],
      handler: async (request, reply) => {
        try {
          await enforceRateLimitOn(options.ctx, request, reply, `${request.method} ${GRAPHQL_PATH}`);
        } catch (error) {
          // GraphQL renders its own refusals: a GraphQL error with extensions.code, status 429.
          if (error instanceof RateLimitedError) return reply.code(error.status).type('application/json; charset=utf-8').send(graphqlErrorBody(error));
          throw error;
        }
        checkGraphQLRequest(request);
        const responseHeaders = new Map<string, string>();
        const response = await (await yoga()).handleNodeRequestAndResponse(request, reply, {
          requestId: request.id,
          responseHeaders,
          rawHeaders: request.raw.rawHeaders,
        });
        response.headers.forEach((value: string, key: string) => {
          reply.header(key, value);
        });
        for (const [name, value] of responseHeaders) reply.header(name, value);
        reply.status(response.status);
        // A subscription's event stream (SSE) is never complete: streamed as Yoga writes it, with
        // back-pressure (a reader that stalls stops the stream's pulls; domain/liveUpdates bounds
        // what waits behind it). Closing the connection cancels the stream and ends the subscription.
        if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
          // Yoga's body on Node (@whatwg-node's ReadableStream) wraps a Node Readable: sent as it is,
          // one layer of streams and promises fewer per event (the live-updates bench's CPU profile);
          // any other body is adapted.
          // The connection ends with the stream (not kept alive idle): a closing server waits for
          // no keep-alive timeout, and a long-lived stream's connection is not reused anyway.
          reply.header('connection', 'close');
          const { readable } = response.body as { readable?: unknown };
          return reply.send(readable instanceof Readable ? readable : Readable.from(response.body as AsyncIterable<Uint8Array>, { objectMode: false }));
        }
        // The whole answer at once, with a Content-Length: sent as yoga's stream it left in a
        // chunked encoding, several writes per answer (the GraphQL page's profile was a quarter writev).
        reply.send(Buffer.from(await response.arrayBuffer()));
        return reply;
      },
    });
  });

  return app;
}

type GraphQLServer = ReturnType<typeof createYoga>;

/**
 * GraphQL's server: Yoga, Pothos and the schema are ~600 modules, ~1.1 s of CPU to load and build
 * (docs/operations.md, "Start-up time and memory"), imported here rather than at the top of the
 * module so that processes that never build an app (the CLI's shared code, scripts) do not pay it.
 * One instance per app, made once.
 */
function graphqlServer(options: AppOptions): () => Promise<GraphQLServer> {
  return loadOnce(() => import('../graphql/yoga.js').then(({ createYoga }) => createYoga({ ctx: options.ctx, adminToken: options.adminToken })));
}

/** A REST surface's routes, and its contract as JSON at `<root>/openapi.json` (with the surface's headers). */
async function registerSurfaceWithContract(app: FastifyInstance, options: AppOptions, surface: RestSurface): Promise<void> {
  app.get(`${surface.root}/openapi.json`, async (_request, reply) => {
    if (surface.headers) reply.headers(surface.headers);
    return readContract(surface.definition);
  });
  await registerRestSurface(app, options.ctx, surface, { adminToken: options.adminToken });
}

const REST_SURFACES = [v2Surface, v1Surface];

/** The REST surface a path is in (its root or below), for errors raised before its routes run. */
const surfaceAt = (url: string): RestSurface | undefined =>
  REST_SURFACES.find((surface) => url === surface.root || url.startsWith(`${surface.root}/`) || url.startsWith(`${surface.root}?`));

const GRAPHQL_PATH = '/graphql';
const isGraphQLPath = (url: string): boolean => url === GRAPHQL_PATH || url.startsWith(`${GRAPHQL_PATH}?`) || url.startsWith(`${GRAPHQL_PATH}/`);

/** Media types a GraphQL POST may carry: JSON (Yoga would also take others; this API does not). */
const GRAPHQL_BODY_TYPES = new Set(['application/json', 'application/graphql+json']);

/**
 * A GraphQL request's body, before Yoga sees it: a POST carries a JSON object (415 otherwise, 400
 * when it is not one) that meets the text rule; a GET's `variables` and `extensions` meet it too.
 * The parsed object replaces the raw text, so Yoga never parses it again.
 */
function checkGraphQLRequest(request: FastifyRequest): void {
  if (request.method === 'GET') {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const refused = (problem: string) => new DomainError('invalid_request', '', { message: `Invalid request: ${problem}` });
    for (const name of ['variables', 'extensions']) {
      if (query[name] !== undefined && parseJsonOrNull(query[name]) === null) throw refused(`${name} must be a JSON object`);
    }
    const problem = requestJsonProblem({ ...query, variables: parseJsonOrNull(query.variables), extensions: parseJsonOrNull(query.extensions) });
    if (problem) throw refused(problem);
    return;
  }
  if (request.method !== 'POST') return;
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!GRAPHQL_BODY_TYPES.has(mediaType)) throw new DomainError('unsupported_media_type');
  const raw = typeof request.body === 'string' ? request.body : '';
  const parsed = parseJsonOrNull(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new DomainError('invalid_request_body');
  // Yoga reads the raw stream again when handed an empty object; there is no query to run anyway.
  if (Object.keys(parsed).length === 0) throw new DomainError('invalid_request_body', 'query is required');
  const problem = requestJsonProblem(parsed);
  if (problem) throw new DomainError('invalid_request_body', problem);
  request.body = parsed;
}

function parseJsonOrNull(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

/** A public error in GraphQL's shape: `{"errors": [{message, extensions: {code, status}}]}`. */
const graphqlBodyOf = (publicError: PublicError): string => graphqlErrorBody(new DomainError(publicError.code, '', { message: publicError.message }));

/** The error body for a path: its REST surface's shape, GraphQL's, or the API's general `{"error"}`. */
function errorBodyFor(url: string, publicError: PublicError): { body: unknown; headers?: Record<string, string> } {
  if (isGraphQLPath(url)) return { body: graphqlBodyOf(publicError), headers: { 'content-type': 'application/json; charset=utf-8' } };
  const surface = surfaceAt(url);
  return surface ? { body: surface.errorBody(publicError.message), headers: surface.headers } : { body: { error: publicError.message } };
}

/**
 * Errors outside the REST surfaces' routes: under a surface's root (its bare root, a path fastify
 * refused before routing, such as a malformed percent-encoding) in that surface's shape and with its
 * headers; at /graphql (its body refused: too large, not JSON...) in GraphQL's; elsewhere (health,
 * docs, unknown paths) as `{"error": "..."}`, the API's general shape. Unexpected ones are logged,
 * never detailed.
 */
function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const publicError = publicErrorOfRequest(request, reply, error);
  const { body, headers } = errorBodyFor(request.url, publicError);
  if (headers) reply.headers(headers);
  return reply.code(publicError.status).send(body);
}

/** What node's HTTP parser refuses, by its error code: status and public wording. */
function clientErrorOf(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'Request timeout' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'Request headers too large' };
  return { status: 400, message: ERROR_CATALOGUE.invalid_request.message };
}

/**
 * A request node could not parse (bad Content-Length, bad chunking, oversized headers, too slow):
 * answered in the shape of the surface its request line names, when it can be read, then closed.
 */
function answerClientError(this: FastifyInstance, error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = clientErrorOf(error.code);
  // Typed by fastify as a serialised Buffer; node hands the Buffer itself.
  const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
  const path = packet?.toString('latin1', 0, 2048).split('\r\n', 1)[0]?.split(' ')[1] ?? '';
  const { body, headers = {} } = errorBodyFor(path, { status, message, code: 'invalid_request' });
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  // Every answer has an id a merchant can quote to support, this one too (fastify made none: no
  // request exists). A fresh one: the client's X-Request-Id is among the headers node refused.
  const requestId = randomUUID();
  const extra = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'content-type')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n${extra}Connection: close\r\n\r\n${text}`,
    );
    // No request object exists for it: logged here, its path redacted as every URL is.
    this.log.info({ reqId: requestId, req: { url: path }, res: { statusCode: status }, reason: error.code }, 'request completed');
  }
  socket.destroy();
}

/**
 * fastify logs "request completed" from its routing only: a request it answered before routing
 * (a path that does not decode, a parameter too long) is logged here, like every other answer.
 */
function logCompletion(request: FastifyRequest, reply: FastifyReply): void {
  const started = performance.now();
  reply.raw.once('finish', () => request.log.info({ res: reply, responseTime: performance.now() - started }, 'request completed'));
}
