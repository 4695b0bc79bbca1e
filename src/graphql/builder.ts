/**
 * The Pothos schema builder, and nothing else: each GraphQL type lives in its own file under
 * schema/ (the Pothos docs' app layout). Rules are the domain's; resolvers only call operations.
 */
import SchemaBuilder from '@pothos/core';
import { GraphQLError } from 'graphql';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { Caller } from '../domain/access/auth.js';
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

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    /** Integers up to 2^53: money in XOF. */
    SafeInt: { Input: number; Output: number };
  };
}>({
  defaultFieldNullability: false,
  plugins: [ComplexityPlugin, PrismaPlugin],
  // Bounds on what one query may ask for, so an analyst's query cannot take the database down:
  // 10 levels covers every real shape of this schema; cost counts 1 per field, lists x their size.
  complexity: {
    limit: { depth: 10, breadth: 100, complexity: 2_000 },
    // A query past the bounds is the client's to fix: a 400-class error, never a masked 500.
    complexityError: (kind, result, info) => {
      const measure = kind.toLowerCase() as 'depth' | 'breadth' | 'complexity';
      const max = result[`max${kind}` as 'maxDepth' | 'maxBreadth' | 'maxComplexity'];
      return new GraphQLError(`Query exceeds maximum ${measure} (${measure}: ${result[measure]}, max: ${max})`, {
        nodes: info.fieldNodes,
        extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 },
      });
    },
  },
  prisma: {
    client: (ctx) => ctx.gateway.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({});
builder.mutationType({});
