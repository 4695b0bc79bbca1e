/**
 * GraphQL at /graphql (Yoga). Every request is authenticated (API key or operator token, or a
 * merchant dashboard session: its cookie with the session's X-CSRF-Token on every request, queries
 * too), even `{ __typename }`; only the GraphiQL page itself is served without a token. Domain errors keep
 * their public message and carry the catalogue's code in `extensions.code`; anything else is
 * logged and masked as `Internal server error`.
 */
import { GraphQLError } from 'graphql';
import { createYoga as createYogaServer, useErrorHandler } from 'graphql-yoga';
import { authenticate, singleAuthorizationHeader } from '../domain/access/auth.js';
import { sessionCaller } from '../edge/sessionCaller.js';
import { sessionTokenOf } from '../edge/sessionCookie.js';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { unavailableIfDatabaseFailed } from '../domain/providerFlow.js';
import type { GraphQLContext } from './builder.js';
import { graphiqlOptions, graphiqlRenderer } from './graphiql.js';
import { useQueryLimits } from './limits.js';
import { schema } from './schema/index.js';

export interface YogaOptions {
  ctx: GatewayContext;
  adminToken: string | null;
}

function toGraphQLError(error: DomainError, source?: GraphQLError, atAuthentication = false): GraphQLError {
  const unauthenticated = error.graphqlCode === 'UNAUTHENTICATED';
  return new GraphQLError(error.message, {
    nodes: source?.nodes,
    path: source?.path,
    // Only authentication changes the HTTP status (a client must see 401, or a session's CSRF
    // refusal 403, at once); other errors are per field, as GraphQL intends, with the REST status
    // alongside for parity.
    extensions: { code: error.graphqlCode, status: error.status, ...((unauthenticated || atAuthentication) && { http: { status: error.status } }) },
  });
}

/** Whether the request names any Authorization header (a bearer token then decides, never a cookie). */
const sendsAuthorization = (rawHeaders: readonly string[]): boolean =>
  rawHeaders.some((value, index) => index % 2 === 0 && value.toLowerCase() === 'authorization');

/**
 * Recognised by shape, not `instanceof`: a second copy of graphql (its ESM and CJS builds) must
 * never turn a domain error into a 500.
 */
const isGraphQLError = (value: unknown): value is GraphQLError => value instanceof Error && value.name === 'GraphQLError';

/** True for what the masking below would hide: neither a domain error nor a public GraphQL one. */
function isUnexpected(error: unknown): boolean {
  const original = (error as { originalError?: unknown }).originalError;
  if (original instanceof DomainError || unavailableIfDatabaseFailed(original)) return false;
  return !(isGraphQLError(error) && (original === undefined || isGraphQLError(original)));
}

/** A public GraphQL error as it leaves: with an `extensions.code`, BAD_USER_INPUT when it had none. */
function withCode(error: GraphQLError): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
  });
}

/** What the HTTP host hands Yoga with each request: its id, for logs, and a sink for headers. */
export interface YogaServerContext {
  requestId: string;
  responseHeaders: Map<string, string>;
  /** The raw header list (Node keeps only the first of two Authorization headers; this has both). */
  rawHeaders: readonly string[];
}

export function createYoga({ ctx, adminToken }: YogaOptions) {
  return createYogaServer<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    renderGraphiQL: graphiqlRenderer(schema, '/graphql'),
    // Options per page view: the analyst tab's example quarter ends today.
    graphiql: () => graphiqlOptions(ctx.clock.now()),
    // Logging goes through the gateway's pino logger, not Yoga's console one.
    logging: false,
    landingPage: false,
    context: async ({ request, requestId, responseHeaders, rawHeaders }) => {
      try {
        const sessionToken = sendsAuthorization(rawHeaders) ? undefined : sessionTokenOf(request.headers.get('cookie') ?? undefined);
        const caller = sessionToken
          ? await sessionCaller(ctx, sessionToken, {
              origin: request.headers.get('origin') ?? undefined,
              csrfToken: request.headers.get('x-csrf-token') ?? undefined,
            })
          : await authenticate(ctx, singleAuthorizationHeader(rawHeaders), { adminToken, allowOperators: true });
        return { gateway: ctx, caller, requestId, responseHeaders, idempotencyKey: request.headers.get('idempotency-key') ?? undefined };
      } catch (error) {
        if (error instanceof DomainError) throw toGraphQLError(error, undefined, true);
        const unavailable = unavailableIfDatabaseFailed(error);
        if (unavailable) throw toGraphQLError(unavailable, undefined, true);
        throw error;
      }
    },
    // Unexpected errors are logged here, where the request id is known; the mask hides them.
    plugins: [
      useQueryLimits(),
      useErrorHandler(({ errors, context, phase }) => {
        // During execution Envelop hands over the execution arguments, whose contextValue is ours.
        const graphqlContext = (phase === 'execution' ? context.contextValue : context) as Partial<GraphQLContext> | undefined;
        for (const error of errors.filter(isUnexpected)) {
          ctx.log.error(
            { err: (error as { originalError?: unknown }).originalError ?? error, requestId: graphqlContext?.requestId },
            'unexpected GraphQL error',
          );
        }
      }),
    ],
    maskedErrors: {
      maskError: (error) => {
        // Yoga hands us a GraphQLError wrapping whatever the resolver threw.
        const original = (error as { originalError?: unknown }).originalError;
        if (original instanceof DomainError) return toGraphQLError(original, error as GraphQLError);
        // The database link failed under the field: retryable, as the REST surfaces answer it.
        const unavailable = unavailableIfDatabaseFailed(original);
        if (unavailable) return toGraphQLError(unavailable, error as GraphQLError);
        // Parse, validation and variable errors, and GraphQL errors thrown on purpose (complexity
        // bounds) are already public. Keep the outer error, whose message names the variable or field,
        // with a code: one graphql-js leaves without (a variable of the wrong type) is the client's input.
        if (!isUnexpected(error)) return withCode(error as GraphQLError);
        return new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } });
      },
    },
  });
}
