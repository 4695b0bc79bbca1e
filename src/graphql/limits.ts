/**
 * What one GraphQL operation may cost, measured before it runs, and what it cost, in every answer.
 *
 * The cost model is the complexity plugin's (src/graphql/builder.ts): 1 per field, a list field
 * multiplied by 10; a paged field (pageComplexity) multiplies its selection so that its list
 * counts the rows its page asks for. An operation past a
 * bound is refused BEFORE any resolver runs (a mutation past the bounds changes nothing), with a
 * client error naming the measure, its value and the bound. Every executed answer carries its
 * cost in `extensions.cost`, as Shopify's Admin API does, so a tool can see how close it is:
 * `{ requestedQueryCost, maximumQueryCost, depth, maximumDepth, breadth, maximumBreadth }`.
 *
 * Measured at execution rather than as a validation rule: Yoga caches validation by document, and
 * the cost depends on the variables (a `limit: $n`).
 */
import { createComplexityRule } from '@pothos/plugin-complexity';
import { GraphQLError, validate, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Depth 10: the deepest useful shape (organisation -> transactions -> entries -> account...) is
 * below it. Breadth 100: fields (aliases included) in one selection. Complexity 25,000: a page of
 * 100 transactions with every field and relation (products, refund, attempts, deliveries and their
 * attempts, ledger entries: about 16,000, each list counted at 10 rows), not two of them.
 */
export const QUERY_LIMITS = { depth: 10, breadth: 100, complexity: 25_000 } as const;

export interface QueryCost {
  requestedQueryCost: number;
  maximumQueryCost: number;
  depth: number;
  maximumDepth: number;
  breadth: number;
  maximumBreadth: number;
}

/** Page sizes as the lists apply them (default 20, at most 100), and the plugin's default list multiplier. */
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const DEFAULT_LIST_MULTIPLIER = 10;

/**
 * A paged field's cost: what it selects, multiplied so that its list counts the rows the page
 * asked for (limit, first or last; default 20, at most 100) rather than the plugin's flat 10.
 */
export function pageComplexity(args: { limit?: number | null; first?: number | null; last?: number | null }): { field: number; multiplier: number } {
  const asked = args.limit ?? args.first ?? args.last ?? DEFAULT_PAGE_SIZE;
  const rows = Math.min(Math.max(asked, 1), MAX_PAGE_SIZE);
  return { field: 1, multiplier: Math.ceil(rows / DEFAULT_LIST_MULTIPLIER) };
}

type Measure = 'depth' | 'breadth' | 'complexity';
const MEASURES: readonly Measure[] = ['depth', 'breadth', 'complexity'];

/** The refusal of an operation past one bound: the client's to fix (400), never a masked 500. */
const tooCostly = (measure: Measure, value: number): GraphQLError =>
  new GraphQLError(`Query exceeds maximum ${measure} (${measure}: ${value}, max: ${QUERY_LIMITS[measure]})`, {
    extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 },
  });

const isSingleResult = (result: unknown): result is ExecutionResult => typeof result === 'object' && result !== null && !(Symbol.asyncIterator in result);

/** The Yoga plugin: refuses an operation past the bounds before it runs, and reports the cost of each one that ran. */
export function useQueryLimits(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      let measured: { depth: number; breadth: number; complexity: number } | undefined;
      const rule = createComplexityRule({
        context: args.contextValue as object,
        variableValues: (args.variableValues ?? {}) as Record<string, unknown>,
        operationName: args.operationName ?? undefined,
        validate: (state, report) => {
          for (const measure of MEASURES) if (state[measure] > QUERY_LIMITS[measure]) report(tooCostly(measure, state[measure]));
        },
        onResult: (state) => {
          measured = state;
        },
      });
      // The first bound broken answers (one error). Anything else the rule reports (a variable
      // of the wrong type) is left to execution, which answers it as GraphQL does (400 and its code).
      const refusals = validate(args.schema, args.document, [rule]).filter((error) => error.extensions?.code === 'QUERY_TOO_COMPLEX');
      if (refusals.length > 0) {
        setResultAndStopExecution({ errors: refusals.slice(0, 1) });
        return undefined;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (!measured || !isSingleResult(result)) return;
          const cost: QueryCost = {
            requestedQueryCost: measured.complexity,
            maximumQueryCost: QUERY_LIMITS.complexity,
            depth: measured.depth,
            maximumDepth: QUERY_LIMITS.depth,
            breadth: measured.breadth,
            maximumBreadth: QUERY_LIMITS.breadth,
          };
          setResult({ ...result, extensions: { ...result.extensions, cost } });
        },
      };
    },
  };
}
