/**
 * REST v2: openapi/v2.yaml routes each request to its operationId; a handler per operation
 * parses the v2 shape, calls the domain and renders the v2 shape. Request validation is the
 * domain's (so GraphQL and v1 get the same rules and wordings), not the YAML's.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import { authenticate, authorizeMerchant } from '../../domain/auth.js';
import type { GatewayContext } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { canonicalJson, runIdempotently } from '../../domain/idempotency.js';
import { MERCHANT_OPERATIONS, isIdempotent, type MerchantOperation } from '../../domain/scopes.js';
import { v2ErrorBody } from '../errors.js';
import type { Query } from '../query.js';
import { transactionHandlers, type RestRequest } from './transactions.js';

export const V2_ROOT = '/api/v2';
export const V2_DEFINITION = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../openapi/v2.yaml');

export interface RestResponse {
  status: number;
  /** The JSON body, serialised (a replay sends the stored bytes as they were). */
  json: string;
  /** True when an Idempotency-Key replayed a stored answer. */
  replayed: boolean;
}

export interface IncomingRestRequest {
  method: string;
  path: string;
  query: Query;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

type Handler = (request: RestRequest) => Promise<unknown>;

function idempotencyKeyOf(headers: IncomingRestRequest['headers']): string | undefined {
  const key = headers['idempotency-key'];
  if (Array.isArray(key)) throw new DomainError('invalid_idempotency_key');
  return key;
}

/** The request as the client meant it: same operation, path and body (key order aside). */
function fingerprintOf(operationId: string, incoming: IncomingRestRequest): string {
  let body = typeof incoming.body === 'string' ? incoming.body : '';
  try {
    body = canonicalJson(JSON.parse(body));
  } catch {
    // Not JSON: the raw text is the request (and will be refused the same way each time).
  }
  return `v2 ${operationId} ${incoming.path}\n${body}`;
}

export async function createV2Router(ctx: GatewayContext, options: { adminToken: string | null }) {
  const handlers: Partial<Record<MerchantOperation, Handler>> = { ...transactionHandlers(ctx) };
  const api = new OpenAPIBackend({ definition: V2_DEFINITION, apiRoot: V2_ROOT, validate: false });

  for (const operationId of Object.keys(MERCHANT_OPERATIONS) as MerchantOperation[]) {
    api.register(operationId, async (c: Context, incoming: IncomingRestRequest): Promise<RestResponse> => {
      const authorization = incoming.headers.authorization;
      const caller = await authenticate(ctx, Array.isArray(authorization) ? undefined : authorization, {
        adminToken: options.adminToken,
        allowOperators: false,
      });
      // Authorise before reading the body: a key without the scope learns nothing about its input.
      const organization = authorizeMerchant(caller, operationId);
      const handler = handlers[operationId];
      if (!handler) throw new DomainError('route_not_found');
      const request = { caller, params: c.request.params as Record<string, string>, query: incoming.query, body: incoming.body };
      if (!isIdempotent(operationId)) return { status: 200, json: JSON.stringify(await handler(request)), replayed: false };

      // Refusals (4xx) are answers too: rendered here so that a retry replays them.
      const execute = async () => {
        try {
          return { status: 200, body: JSON.stringify(await handler(request)) };
        } catch (error) {
          if (error instanceof DomainError && error.status < 500) return { status: error.status, body: JSON.stringify(v2ErrorBody(error.message)) };
          throw error;
        }
      };
      const answer = await runIdempotently(ctx, { organizationId: organization.id, key: idempotencyKeyOf(incoming.headers), fingerprint: fingerprintOf(operationId, incoming) }, execute);
      return { status: answer.status, json: answer.body, replayed: answer.replayed };
    });
  }
  // Authentication is the domain's (above), so the YAML's bearerAuth scheme only documents it.
  api.registerSecurityHandler('bearerAuth', () => true);
  api.register('notFound', async () => {
    throw new DomainError('route_not_found');
  });
  api.register('methodNotAllowed', async () => {
    throw new DomainError('http_method_not_allowed');
  });
  await api.init();

  return {
    handle: (incoming: IncomingRestRequest): Promise<RestResponse> =>
      api.handleRequest(
        { method: incoming.method, path: incoming.path, query: {}, headers: incoming.headers as Record<string, string>, body: undefined },
        incoming,
      ),
    /** The route template a request falls under ("GET /transactions/{order_id}"), for rate limits. */
    endpointOf: (method: string, path: string): string => {
      const operation = api.router.matchOperation({ method, path, headers: {} });
      return operation ? `${operation.method.toUpperCase()} ${V2_ROOT}${operation.path}` : `${method} ${V2_ROOT}/(unknown)`;
    },
  };
}
