/**
 * Keyset cursors for lists ordered newest first by (createdAt, id): a cursor names the last row a
 * client saw, so the next slice starts right after it whatever was inserted meanwhile (an OFFSET
 * would shift by every new row). The cursor is opaque to clients: base64url of `<ms>:<uuid>`.
 */
import { DomainError } from './errors.js';
import { isUuid } from './ids.js';

export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

/** Which slice of a list, relative to a position: the Relay connection arguments, resolved. */
export interface KeysetSlice {
  /** Forward: older than `after` (or from the newest); backward: newer than `before` (or from the oldest). */
  direction: 'forward' | 'backward';
  position: KeysetPosition | null;
  limit: number;
}

/** Longest cursor we decode (a timestamp and a UUID are about 70 characters). */
const MAX_CURSOR_LENGTH = 128;

export const encodeCursor = (row: KeysetPosition): string => Buffer.from(`${row.createdAt.getTime()}:${row.id}`, 'utf8').toString('base64url');

/** The position a cursor names; a clear 400 (`invalid_query`) for anything that is not one of ours. */
function decodeCursor(name: string, cursor: string): KeysetPosition {
  const refuse = (): never => {
    throw new DomainError('invalid_query', `${name} is not a cursor of this list`);
  };
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return refuse();
  const [millis, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (rest.length || !millis || !/^\d{1,15}$/.test(millis) || !id || !isUuid(id)) return refuse();
  return { createdAt: new Date(Number(millis)), id };
}

/** The Relay arguments as one slice: `first`/`after` forward, or `last`/`before` backward (not both). */
export function keysetSliceOf(
  args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null },
  defaultLimit: number,
  maxLimit: number,
): KeysetSlice {
  const backward = args.last != null || args.before != null;
  if (backward && (args.first != null || args.after != null))
    throw new DomainError('invalid_query', 'page forward (first, after) or backward (last, before), not both');
  const requested = (backward ? args.last : args.first) ?? defaultLimit;
  if (!Number.isInteger(requested) || requested < 1) throw new DomainError('invalid_query', `${backward ? 'last' : 'first'} must be a positive integer`);
  const cursor = backward ? args.before : args.after;
  return {
    direction: backward ? 'backward' : 'forward',
    position: cursor == null ? null : decodeCursor(backward ? 'before' : 'after', cursor),
    // Above the maximum the size is capped, not refused, as list pages are (docs/architecture.md#lists).
    limit: Math.min(requested, maxLimit),
  };
}

/** A slice read with one row more than asked: the rows in list order (newest first), and whether more lie beyond. */
export function keysetPageOf<T extends KeysetPosition>(rows: T[], slice: KeysetSlice): { items: T[]; hasMore: boolean } {
  const hasMore = rows.length > slice.limit;
  const items = rows.slice(0, slice.limit);
  // Backward slices are read oldest first (nearest the cursor first): shown newest first like the list.
  return { items: slice.direction === 'backward' ? items.reverse() : items, hasMore };
}
