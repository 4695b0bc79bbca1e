/**
 * The audit log of one organisation, newest first, by keyset pages (Relay `first`/`after`): its
 * owner reads its own; operators name the organisation. Optionally one action only.
 */
import type { AuditEvent } from '../../generated/prisma/client.js';
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { encodeCursor, keysetPageOf, keysetSliceOf } from '../cursors.js';
import { DomainError } from '../errors.js';
import { AUDIT_ACTIONS } from './actions.js';
import { readAuditEvents } from './store.js';

const DEFAULT_AUDIT_PAGE = 50;
/** A page is read in one index range scan; a bigger one is a report, not a page (ask again with `after`). */
const MAX_AUDIT_PAGE = 200;

export interface AuditEventPage {
  events: (AuditEvent & { cursor: string })[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

export interface ListAuditEventsInput {
  organizationId?: string | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  action?: string | null;
}

export async function listAuditEvents(ctx: GatewayContext, caller: Caller, input: ListAuditEventsInput = {}): Promise<AuditEventPage> {
  authorize(caller, 'listAuditEvents');
  const organizationId = organizationOf(caller, input.organizationId);
  // An operator reads one organisation's log at a time: the log is per organisation.
  if (!organizationId) throw new DomainError('invalid_input', 'organizationId is required');
  if (input.action != null && !(AUDIT_ACTIONS as readonly string[]).includes(input.action)) {
    throw new DomainError('invalid_input', `action must be one of ${AUDIT_ACTIONS.join(', ')}`);
  }
  const slice = keysetSliceOf(input, DEFAULT_AUDIT_PAGE, MAX_AUDIT_PAGE);
  const rows = await readAuditEvents(ctx.db, organizationId, input.action ?? null, slice);
  const { items, hasMore } = keysetPageOf(
    rows.map((row) => ({ ...row, createdAt: row.at })),
    slice,
  );
  const events = items.map(({ createdAt, ...row }) => ({ ...row, cursor: encodeCursor({ createdAt, id: row.id }) }));
  const forward = slice.direction === 'forward';
  return { events, hasNextPage: forward ? hasMore : slice.position != null, hasPreviousPage: forward ? slice.position != null : hasMore };
}
