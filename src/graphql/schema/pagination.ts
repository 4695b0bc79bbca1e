import { encodeCursor, type KeysetPosition, type KeysetSlice } from '../../domain/cursors.js';
import type { Page } from '../../domain/pagination.js';
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';

export const PageInfoRef = builder.objectRef<Page<unknown>>('Pagination').implement({
  fields: (t) => ({
    page: t.exposeInt('page'),
    limit: t.exposeInt('limit'),
    totalCount: t.exposeInt('totalCount'),
    totalPages: t.exposeInt('totalPages'),
  }),
});

/** Relay connection arguments beside a list's filters (plugin-relay adds first, after, last, before). */
export const CONNECTION_DESCRIPTION =
  'Newest first, by keyset cursors: first/after pages forward, last/before backward (default 20, above 100 capped at 100). A cursor stays valid while rows are added.';

/** A keyset slice (items in list order, hasMore beyond it) as a Relay connection with its total. */
export function connectionOf<T extends KeysetPosition>(
  list: { items: T[]; hasMore: boolean; totalCount: number },
  slice: KeysetSlice,
): { edges: { cursor: string; node: T }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }; totalCount: number } {
  const edges = list.items.map((node) => ({ cursor: encodeCursor(node), node }));
  const forward = slice.direction === 'forward';
  return {
    edges,
    pageInfo: {
      // Past the cursor there may be more; before it, there is something whenever a cursor was given.
      hasNextPage: forward ? list.hasMore : slice.position !== null,
      hasPreviousPage: forward ? slice.position !== null : list.hasMore,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: list.totalCount,
  };
}

/** The Relay arguments of a connection field. */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** `<Name>Connection` of `type` (edges `<Name>Edge`) with `totalCount`: how many rows match the filter. */
export function countedConnection<Shape>(type: ObjectRef<any, Shape>, name: string, noun: string) {
  return builder.connectionObject(
    {
      type,
      name: `${name}Connection`,
      fields: (t) => ({ totalCount: t.int({ description: `How many ${noun} match the filter`, resolve: (connection) => (connection as unknown as { totalCount: number }).totalCount }) }),
    },
    { name: `${name}Edge` },
  );
}
