/**
 * The Pothos schema builder, and nothing else: each GraphQL type lives in its own file under
 * schema/ (the Pothos docs' app layout). Rules are the domain's; resolvers only call operations.
 */
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { Caller } from '../domain/access/auth.js';
import { decodeNodeId } from './schema/node.js';
import { authorize, type Operation } from '../domain/access/policy.js';
import type { GatewayContext } from '../domain/context.js';

export interface GraphQLContext {
  gateway: GatewayContext;
  caller: Caller;
  /** The HTTP request's id (X-Request-Id), for logs. */
  requestId: string;
  /** The Idempotency-Key header, if sent (a mutation's `idempotencyKey` argument may give it instead). */
  idempotencyKey: string | undefined;
  /** Headers for the HTTP answer (Idempotent-Replayed), set by resolvers. */
  responseHeaders: Map<string, string>;
}

/** The policy's refusal (a DomainError) behind a failed `run` scope, re-thrown as the field's error. */
function policyRefusalOf(failure: AuthFailure): unknown {
  if ('error' in failure && failure.error) return failure.error;
  if (failure.kind === AuthScopeFailureType.AnyAuthScopes || failure.kind === AuthScopeFailureType.AllAuthScopes) {
    for (const child of failure.failures) {
      const found = policyRefusalOf(child);
      if (found) return found;
    }
  }
  return undefined;
}

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  /**
   * One scope: `run: '<operation>'` on a field (or type) means the caller may run that operation
   * by the one access policy (src/domain/access/policy.ts). Every field names the operation it
   * belongs to, so the policy table alone decides who may read or do what, field by field.
   */
  AuthScopes: { run: Operation };
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    /** Integers up to 2^53: money in XOF. */
    SafeInt: { Input: number; Output: number };
  };
}>({
  defaultFieldNullability: false,
  // Scope auth first, as its docs ask: it wraps the resolvers the other plugins build.
  plugins: [ScopeAuthPlugin, ComplexityPlugin, RelayPlugin, PrismaPlugin, DataloaderPlugin],
  scopeAuth: {
    // The policy throws the exact refusal (permission_denied, operator_forbidden, organization_*):
    // caught here as "unauthorised" and re-thrown by unauthorizedError below.
    treatErrorsAsUnauthorized: true,
    // A subscription is authorised once, when it is made, not again on each event it delivers.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      run: (operation: Operation) => {
        authorize(ctx.caller, operation);
        return true;
      },
    }),
    unauthorizedError: (_parent, _ctx, _info, result) => {
      const refusal = policyRefusalOf(result.failure);
      if (refusal instanceof Error) return refusal;
      return new Error(result.message);
    },
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // The Node interface's global id is `nodeId`: `id` already means the row's UUID on
    // Organization, Account and Webhook (today's clients and the CLI rely on it).
    idFieldName: 'nodeId',
    // A malformed global id is a clear input error, not Pothos's validation error (a 500).
    decodeGlobalID: (globalID) => decodeNodeId(globalID),
    nodeQueryOptions: { description: 'Any object by its global id (`nodeId`): null when it does not exist or is not the caller’s to read.' },
    // One object at a time: `node` is enough, and each object is authorised as its type's read.
    nodesQueryOptions: false,
  },
  // The cost model (1 per field, lists x their page size); the bounds are enforced, and each
  // answer's cost reported, by src/graphql/limits.ts before execution.
  complexity: {},
  prisma: {
    client: (ctx) => ctx.gateway.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({});
builder.mutationType({});
