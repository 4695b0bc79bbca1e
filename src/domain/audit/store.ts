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
