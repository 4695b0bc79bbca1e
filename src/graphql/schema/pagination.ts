import { encodeCursor, keysetSliceOf, type KeysetPosition, type KeysetSlice } from '../../domain/cursors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page } from '../../domain/pagination.js';
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';

/** The schema types of this builder, which its refs carry. */
type Types = typeof builder.$inferSchemaTypes;

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

/** A keyset slice as a list answers it: items in list order, whether more lie beyond, the total matching. */
export interface SliceList<T extends KeysetPosition> {
  items: T[];
  hasMore: boolean;
  totalCount: number;
}

/** A Relay connection with its total, as connectionOf builds it. */
export interface CountedConnection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

/** A keyset slice (items in list order, hasMore beyond it) as a Relay connection with its total. */
export function connectionOf<T extends KeysetPosition>(list: SliceList<T>, slice: KeysetSlice): CountedConnection<T> {
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

/**
 * The same connection (same arguments) of each of several organisations, read together: what a
 * loadable field (plugin-dataloader, `byPath`: one batch per place in the query) hands its batch
 * of organisation ids. Each organisation is authorised on its own (a refusal is that one's error,
 * as the field's resolver would have thrown it); the allowed ones are read by `listAll` at once,
 * one list per access in their order. Arguments that are no slice (a bad cursor) refuse them all.
 */
export async function connectionsOfOrganizations<Access, T extends KeysetPosition>(
  organizationIds: readonly string[],
  args: ConnectionArgs,
  authorize: (organizationId: string) => Access,
  listAll: (accesses: Access[], slice: KeysetSlice) => Promise<SliceList<T>[]>,
): Promise<(CountedConnection<T> | Error)[]> {
  const slice = keysetSliceOf(args, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const accesses = organizationIds.map((id): { access: Access } | { refused: Error } => {
    try {
      return { access: authorize(id) };
    } catch (error) {
      return { refused: error instanceof Error ? error : new Error(String(error)) };
    }
  });
  const allowed = accesses.flatMap((entry) => ('refused' in entry ? [] : [entry.access]));
  const lists = allowed.length ? await listAll(allowed, slice) : [];
  let next = 0;
  return accesses.map((entry) => ('refused' in entry ? entry.refused : connectionOf(lists[next++]!, slice)));
}

/**
 * Batches of a loadable connection under a list of organisations: one page of them at most (a
 * page holds up to MAX_PAGE_SIZE), so one statement never names more than that many.
 */
export const ORGANIZATION_BATCH = { maxBatchSize: MAX_PAGE_SIZE } as const;

/** `<Name>Connection` of `type` (edges `<Name>Edge`) with `totalCount`: how many rows match the filter. */
export function countedConnection<Shape>(type: ObjectRef<Types, Shape>, name: string, noun: string) {
  return builder.connectionObject(
    {
      type,
      name: `${name}Connection`,
      fields: (t) => ({
        totalCount: t.int({
          description: `How many ${noun} match the filter`,
          resolve: (connection) => (connection as unknown as { totalCount: number }).totalCount,
        }),
      }),
    },
    { name: `${name}Edge` },
  );
}
