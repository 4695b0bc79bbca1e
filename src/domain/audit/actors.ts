/**
 * Who did it, as the audit log stores it (recordAuditEvent's actorOf): a kind and a label. For an
 * API key the label carries its scope, for an operator its role, in words the dashboard translates
 * (issue 30: "operator (admin)" stayed English); this reads that part back in one place.
 */
const QUALIFIED_LABEL = /\(([a-zA-Z_]+)\)$/;

/** The key's scope or the operator's role recorded with the event; null for the other kinds. */
export function actorQualifierOf(actorKind: string, actorLabel: string): string | null {
  if (actorKind !== 'merchant' && actorKind !== 'operator') return null;
  return QUALIFIED_LABEL.exec(actorLabel)?.[1] ?? null;
}
