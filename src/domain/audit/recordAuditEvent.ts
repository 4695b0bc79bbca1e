/**
 * Records one change in its organisation's audit log. Call it with the database transaction that
 * makes the change (`tx`), so the row commits with the change and rolls back with it: the log never
 * shows what did not happen, and never misses what did.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import type { Principal } from '../access/policy.js';
import type { Db, DbTransaction } from '../ports.js';
import type { AuditAction } from './actions.js';
import { auditEventCte, insertAuditEvent, type NewAuditEvent } from './store.js';

/** Someone not signed in (a failed sign-in names the account tried in `target`, never the password). */
interface AnonymousActor {
  kind: 'anonymous';
}
type AuditActor = Principal | AnonymousActor;

export interface AuditEventInput {
  organizationId: string;
  actor: AuditActor;
  action: AuditAction;
  /** What it was done to: an id, or a member's email. */
  target?: string | null;
  /** Small facts a reader needs (a new role, a webhook's URL); never a secret. */
  details?: Prisma.InputJsonObject | null;
  /** When; the database's clock when omitted. */
  at?: Date;
}

/** Who did it, as the log shows them: a kind, an id when there is one, and a label a person recognises. */
function actorOf(actor: AuditActor): { actorKind: string; actorId: string | null; actorLabel: string } {
  switch (actor.kind) {
    case 'merchantUser':
      return { actorKind: actor.kind, actorId: actor.userId, actorLabel: actor.email };
    case 'merchant':
      return { actorKind: actor.kind, actorId: actor.apiKeyId, actorLabel: `API key (${actor.scope})` };
    case 'operator':
      return { actorKind: actor.kind, actorId: actor.tokenId, actorLabel: `operator (${actor.role})` };
    case 'customer':
      return { actorKind: actor.kind, actorId: null, actorLabel: 'customer' };
    case 'anonymous':
      return { actorKind: actor.kind, actorId: null, actorLabel: 'not signed in' };
  }
}

const auditRowOf = (event: AuditEventInput): NewAuditEvent => ({
  organizationId: event.organizationId,
  ...actorOf(event.actor),
  action: event.action,
  target: event.target ?? null,
  details: event.details ?? null,
  at: event.at ?? new Date(),
});

export async function recordAuditEvent(db: Db | DbTransaction, event: AuditEventInput): Promise<void> {
  await insertAuditEvent(db, auditRowOf(event));
}

/**
 * The same entry as a CTE `name` of a change's own single statement, written once per row of its
 * earlier CTE `source` (so only when the change is): for a change made in one statement outside
 * any transaction (a payout's or a refund's phase 1), where a separate insert would need a
 * transaction of its own, holding the statement's row locks until its commit.
 */
export function auditEventStatementPart(name: string, source: string, event: AuditEventInput, detailsFromSource?: Prisma.Sql) {
  return auditEventCte(name, source, auditRowOf(event), detailsFromSource);
}
