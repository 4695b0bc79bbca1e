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
 * the cost depends on the variables (a `limit: $n`). Each (document, variables) is measured once.
 */
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { GraphQLError, Kind, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Depth 10: the deepest useful shape (organisation -> transactions -> entries -> account...) is
 * below it. Breadth 100: fields (aliases included) in one selection. Complexity 25,000: a page of
 * 100 transactions with every field and relation (products, refund, attempts, deliveries and their
 * attempts, ledger entries: about 16,000, each list counted at 10 rows), not two of them.
 */
const QUERY_LIMITS = { depth: 10, breadth: 100, complexity: 25_000 } as const;

interface QueryCost {
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

interface Measured {
  depth: number;
  breadth: number;
  complexity: number;
}

/**
 * Costs already measured, per parsed document (Yoga parses a query text once and hands the same
 * DocumentNode to every request that sends it) and per operation name and variables: measuring
 * walked the whole document on every request (a fifth of a GraphQL page's CPU in the bench's
 * profile). At most 32 variants a document (page numbers, ids), the oldest forgotten first; the
 * documents themselves go with Yoga's cache. No complexity function of this schema reads the
 * context, so a cost is the same for every caller.
 */
const measuredCosts = new WeakMap<DocumentNode, Map<string, Measured | null>>();
const VARIANTS_PER_DOCUMENT = 32;

const isGraphQLError = (error: unknown): boolean => error instanceof Error && error.name === 'GraphQLError';

/** The selected operation's cost; null when its variables do not fit it (execution answers that, as GraphQL does). */
function measure(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown>): Measured | null {
  const key = `${operationName ?? ''}\u0000${JSON.stringify(variables)}`;
  let known = measuredCosts.get(document);
  const seen = known?.get(key);
  if (seen !== undefined) return seen;
  const operation = document.definitions.find(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION && (operationName == null || definition.name?.value === operationName),
  );
  let measured: Measured | null = null;
  if (operation) {
    // complexityFromQuery measures a document's first operation: hand it the selected one and the fragments.
    const selected: DocumentNode = {
      ...document,
      definitions: document.definitions.filter((definition) => definition === operation || definition.kind === Kind.FRAGMENT_DEFINITION),
    };
    try {
      measured = complexityFromQuery(selected, { schema, variables });
    } catch (error) {
      if (!isGraphQLError(error)) throw error;
    }
  }
  if (!known) {
    known = new Map();
    measuredCosts.set(document, known);
  }
  if (known.size >= VARIANTS_PER_DOCUMENT) known.delete(known.keys().next().value!);
  known.set(key, measured);
  return measured;
}

/** The Yoga plugin: refuses an operation past the bounds before it runs, and reports the cost of each one that ran. */
export function useQueryLimits(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const measured = measure(args.schema, args.document, args.operationName, (args.variableValues ?? {}) as Record<string, unknown>);
      if (!measured) return undefined;
      // The first bound broken answers (one error).
      const broken = MEASURES.find((name) => measured[name] > QUERY_LIMITS[name]);
      if (broken) {
        setResultAndStopExecution({ errors: [tooCostly(broken, measured[broken])] });
        return undefined;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (!isSingleResult(result)) return;
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
