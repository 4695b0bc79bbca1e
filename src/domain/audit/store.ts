/** The audit log's SQL: one insert, one keyset read (newest first, by the (organization, at, id) index). */
import type { AuditEvent } from '../../generated/prisma/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { KeysetSlice } from '../cursors.js';
import type { Db, DbTransaction } from '../ports.js';

export interface NewAuditEvent {
  organizationId: string;
  actorKind: string;
  actorId: string | null;
  actorLabel: string;
  action: string;
  target: string | null;
  details: Prisma.InputJsonValue | null;
  at: Date;
}

export async function insertAuditEvent(db: Db | DbTransaction, event: NewAuditEvent): Promise<void> {
  await db.auditEvent.create({ data: { ...event, details: event.details ?? Prisma.DbNull } });
}

/**
 * The entry as a CTE (`name`) of the caller's single statement: written once per row of the
 * earlier CTE `source` (none when it is empty), so it commits exactly with the change that
 * statement makes (a payout's or a refund's phase 1). Every value is a parameter: the text is the
 * same for every call (the statement may be prepared by name). `detailsFromSource`, when given,
 * builds the details from the source's row (`s`) instead (values only the statement knows).
 */
export function auditEventCte(name: string, source: string, event: NewAuditEvent, detailsFromSource?: Prisma.Sql): Prisma.Sql {
  const cte = Prisma.raw(`"${name.replace(/"/g, '')}"`);
  const from = Prisma.raw(`"${source.replace(/"/g, '')}"`);
  return Prisma.sql`
    ${cte} AS (
      INSERT INTO "AuditEvent" (id, "organizationId", "actorKind", "actorId", "actorLabel", action, target, details, at)
      SELECT gen_random_uuid(), ${event.organizationId}::uuid, ${event.actorKind}::text, ${event.actorId}::text, ${event.actorLabel}::text,
        ${event.action}::text, ${event.target}::text, ${detailsFromSource ?? Prisma.sql`${event.details === null ? null : JSON.stringify(event.details)}::jsonb`}, ${event.at}::timestamptz
      FROM ${from} s)`;
}

/** One slice plus one row (to know whether more lie beyond), nearest the cursor first. */
export function readAuditEvents(db: Db, organizationId: string, action: string | null, slice: KeysetSlice): Promise<AuditEvent[]> {
  const forward = slice.direction === 'forward';
  const position = slice.position;
  const beyond = position
    ? forward
      ? { OR: [{ at: { lt: position.createdAt } }, { at: position.createdAt, id: { lt: position.id } }] }
      : { OR: [{ at: { gt: position.createdAt } }, { at: position.createdAt, id: { gt: position.id } }] }
    : {};
  return db.auditEvent.findMany({
    where: { organizationId, ...(action && { action }), ...beyond },
    orderBy: forward ? [{ at: 'desc' }, { id: 'desc' }] : [{ at: 'asc' }, { id: 'asc' }],
    take: slice.limit + 1,
  });
}
