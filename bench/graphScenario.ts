/**
 * The graph's scenario (issue 19): a Relay connection of 20 transactions with their products,
 * after a keyset cursor in the middle of the list's month (the same filters as the list scenarios),
 * over GraphQL. A keyset slice costs what the first one does however deep the cursor, where the
 * REST page at the same depth pays its OFFSET: compared with the deep list page's floor (count +
 * page at OFFSET 9,980), it should stay within the given ratio of it.
 */
import { encodeCursor } from '../src/domain/cursors.js';
import type { Baseline, BenchData, RequestFactory, Scenario, Target } from './shapes.js';

const CONNECTION = `query Slice($filter: TransactionFilter, $after: String) {
  transactionsConnection(first: 20, after: $after, filter: $filter) {
    totalCount
    edges { cursor node { orderId amount status products { name price quantity } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** The slice after the middle of the filtered month: about half of its matching rows lie before it. */
const connectionAfterMidMonth = (data: BenchData): RequestFactory => {
  const middle = new Date((Date.parse(data.list.startDate) + Date.parse(data.list.endDate)) / 2);
  // The greatest id at that instant: the slice starts just before it, whichever rows share the millisecond.
  const after = encodeCursor({ createdAt: middle, id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' });
  const body = JSON.stringify({ query: CONNECTION, variables: { filter: data.list, after } });
  return () => ({ method: 'POST', path: '/graphql', body });
};

export function graphScenario(options: { name: string; baseline: Baseline; target: Target }): Scenario {
  return { name: options.name, request: connectionAfterMidMonth, baseline: options.baseline, target: options.target };
}
