/**
 * One REST pipeline, parameterised per surface (v2 and v1). For each request, in order:
 *
 *   match the route (once: fastify's router, from a table built at start out of the surface's
 *   OpenAPI file) -> rate limit -> authenticate -> authorise (once) -> the route's binding
 *   (parse the surface's input -> domain operation, with the Idempotency-Key -> render the
 *   surface's output) -> send, with the surface's headers; errors in the surface's shape.
 *
 * A surface is data: its root, its contract, its error renderer, its extra headers and its map
 * from route (operationId) to binding. Adding one is a folder of converters plus one
 * registration; nothing here knows v2 from v1.
 */
import { contractRoutes } from './contract.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, authorizeMerchant, singleAuthorizationHeader, type MerchantAccess } from '../domain/access/auth.js';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import type { Operation } from '../domain/access/policy.js';
import { MERCHANT_OPERATIONS, type MerchantOperation } from '../domain/access/scopes.js';
import { publicErrorOfRequest } from './errors.js';
import type { Query } from './query.js';
import { enforceRateLimitOn } from '../edge/rateLimit.js';

/** What a binding reads of the request, already matched and authorised. */
interface RestRequest {
  params: Record<string, string>;
  query: Query;
  /** The raw body text: parsed by the binding, after authorisation. */
  body: unknown;
  /** The Idempotency-Key header, for operations that honour one. */
  idempotencyKey: string | undefined;
}

interface RestAnswer {
  body: unknown;
  /** 200 unless told. */
  status?: number;
  /** True when an Idempotency-Key replayed a stored answer. */
  replayed?: boolean;
}

/**
 * A route of a surface: which operation's access rule authorises it, and how the surface's
 * request becomes that operation's call and its result the surface's answer. Several routes may
 * bind one operation (v1's two cashout routes).
 */
export interface RouteBinding<Op extends Operation = Operation> {
  operation: Op;
  /** The largest body this route takes, when not the server's default (100 kB): a payout batch's 5,000 items. */
  bodyLimit?: number;
  handle(ctx: GatewayContext, access: MerchantAccess<Op>, request: RestRequest): Promise<RestAnswer>;
}

/** Binds a route with its operation's type carried through (access is for that operation only). */
export const bind = <Op extends Operation>(binding: RouteBinding<Op>): RouteBinding => binding as unknown as RouteBinding;

export interface RestSurface {
  /** Path prefix, e.g. /api/v2. */
  root: string;
  /** The surface's OpenAPI file: the source of its route table (and its published contract). */
  definition: string;
  /** operationId -> binding. A contract route without a binding authenticates, authorises, then answers 404. */
  routes: Partial<Record<string, RouteBinding>>;
  /** The surface's error body, e.g. v2 {error}, v1 {Detail}. */
  errorBody(message: string): unknown;
  /** Headers on every answer of the surface (v1: Deprecation, Sunset, Link). */
  headers?: Record<string, string>;
}

/** `/transactions/{order_id}` -> `/transactions/:order_id` (fastify's syntax). */
const toFastifyPath = (template: string): string => template.replace(/\{([^}]+)\}/g, ':$1');
/** `/transactions/{order_id}` -> a pattern that says whether a concrete path is that route (for 405s). */
const toPattern = (template: string): RegExp => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export async function registerRestSurface(
  app: FastifyInstance,
  ctx: GatewayContext,
  surface: RestSurface,
  options: { adminToken: string | null },
): Promise<void> {
  const routes = await contractRoutes(surface.definition);
  const templates = [...new Set(routes.map((route) => route.path))].map(toPattern);

  await app.register(async (scope) => {
    // Bodies stay raw text until the caller is authenticated and authorised; bindings parse them
    // (so a bad key gets 401 before a bad body gets 400). Any content type is read as JSON:
    // clients that forget the header still get a precise answer.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error, request, reply) => sendError(surface, request, reply, error));
    scope.addHook('onRequest', async (_request, reply) => {
      if (surface.headers) reply.headers(surface.headers);
    });

    for (const route of routes) {
      const endpoint = `${route.method} ${surface.root}${route.path}`;
      const binding = surface.routes[route.operationId];
      const operation = binding?.operation ?? merchantOperationNamed(route.operationId);
      scope.route({
        method: route.method,
        url: `${surface.root}${toFastifyPath(route.path)}`,
        exposeHeadRoute: false,
        ...(binding?.bodyLimit && { bodyLimit: binding.bodyLimit }),
        handler: async (request, reply) => {
          await enforceRateLimitOn(ctx, request, reply, endpoint);
          const access = await authorize(ctx, request, operation, options.adminToken);
          if (!binding) throw new DomainError('route_not_found');
          const answer = await binding.handle(ctx, access, {
            params: request.params as Record<string, string>,
            query: request.query as Query,
            body: request.body,
            idempotencyKey: idempotencyKeyOf(request),
          });
          if (answer.replayed) reply.header('idempotent-replayed', 'true');
          return sendJson(reply, answer.status ?? 200, answer.body);
        },
      });
    }

    // Below the root, anything the table does not hold: a known path with another verb is 405.
    scope.route({
      method: [...HTTP_METHODS],
      url: `${surface.root}/*`,
      exposeHeadRoute: false,
      handler: async (request, reply) => {
        await enforceRateLimitOn(ctx, request, reply, `${request.method} ${surface.root}/(unknown)`);
        const path = (request.url.split('?')[0] ?? '').slice(surface.root.length);
        throw new DomainError(templates.some((pattern) => pattern.test(path)) ? 'http_method_not_allowed' : 'route_not_found');
      },
    });
  });
}

/** Authentication, then the operation's access rule: the one authorisation of the request. */
async function authorize(ctx: GatewayContext, request: FastifyRequest, operation: Operation, adminToken: string | null): Promise<MerchantAccess<Operation>> {
  const caller = await authenticate(ctx, singleAuthorizationHeader(request.raw.rawHeaders), { adminToken, allowOperators: false });
  return authorizeMerchant(caller, operation);
}

/** A contract route nobody bound yet must still name an operation whose access rule applies. */
function merchantOperationNamed(operationId: string): MerchantOperation {
  if (!Object.hasOwn(MERCHANT_OPERATIONS, operationId)) throw new Error(`contract route ${operationId} has no binding and names no merchant operation`);
  return operationId as MerchantOperation;
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (Array.isArray(key)) throw new DomainError('invalid_idempotency_key');
  return key;
}

const sendJson = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));

/** Every error leaves in the surface's shape; unexpected ones are logged, never detailed. */
function sendError(surface: RestSurface, request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const publicError = publicErrorOfRequest(request, reply, error);
  if (error instanceof DomainError && error.replayed) reply.header('idempotent-replayed', 'true');
  return sendJson(reply, publicError.status, surface.errorBody(publicError.message));
}
