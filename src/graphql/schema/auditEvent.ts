/** The audit log of an organisation, newest first, by pages (owner; operators name the organisation). */
import type { AuditEventPage } from '../../domain/audit/listAuditEvents.js';
import { listAuditEvents } from '../../domain/operations.js';
import { actorQualifierOf } from '../../domain/audit/actors.js';
import { builder } from '../builder.js';
import { organizationIdOf } from './arguments.js';

type AuditEventRow = AuditEventPage['events'][number];

const AuditEventRef = builder.objectRef<AuditEventRow>('AuditEvent').implement({
  description: 'One change in an organisation: who, what, to what, when (written with the change, in its transaction).',
  fields: (t) => ({
    id: t.id({ resolve: (event) => event.id }),
    at: t.field({ type: 'DateTime', resolve: (event) => event.at }),
    action: t.string({ description: 'e.g. `member.invited`, `api_key.created`, `transaction.refunded`', resolve: (event) => event.action }),
    actorKind: t.string({
      description: '`merchantUser`, `merchant` (an API key), `operator`, `anonymous` (a failed sign-in)',
      resolve: (event) => event.actorKind,
    }),
    actorId: t.string({ nullable: true, resolve: (event) => event.actorId }),
    actorLabel: t.string({ description: 'The user’s email, the key’s scope, the operator’s role', resolve: (event) => event.actorLabel }),
    actorQualifier: t.string({
      nullable: true,
      description: 'An API key’s scope or an operator’s role (the part of actorLabel a reader translates); null for the other kinds',
      resolve: (event) => actorQualifierOf(event.actorKind, event.actorLabel),
    }),
    target: t.string({ nullable: true, description: 'What it was done to: an id, a member’s email', resolve: (event) => event.target }),
    details: t.string({
      nullable: true,
      description: 'Facts of the change, as compact JSON (never a secret)',
      resolve: (event) => (event.details == null ? null : JSON.stringify(event.details)),
    }),
  }),
});

const AuditEventEdgeRef = builder.objectRef<AuditEventRow>('AuditEventEdge').implement({
  fields: (t) => ({
    cursor: t.string({ resolve: (event) => event.cursor }),
    node: t.field({ type: AuditEventRef, resolve: (event) => event }),
  }),
});

const AuditEventPageInfoRef = builder.objectRef<AuditEventPage>('AuditEventPageInfo').implement({
  fields: (t) => ({
    hasNextPage: t.boolean({ description: 'Older events remain: ask again with `after: endCursor`', resolve: (page) => page.hasNextPage }),
    hasPreviousPage: t.boolean({ resolve: (page) => page.hasPreviousPage }),
    startCursor: t.string({ nullable: true, resolve: (page) => page.events[0]?.cursor ?? null }),
    endCursor: t.string({ nullable: true, resolve: (page) => page.events.at(-1)?.cursor ?? null }),
  }),
});

const AuditEventConnectionRef = builder.objectRef<AuditEventPage>('AuditEventConnection').implement({
  fields: (t) => ({
    edges: t.field({ type: [AuditEventEdgeRef], resolve: (page) => page.events }),
    nodes: t.field({ type: [AuditEventRef], resolve: (page) => page.events }),
    pageInfo: t.field({ type: AuditEventPageInfoRef, resolve: (page) => page }),
  }),
});

builder.queryField('auditEvents', (t) =>
  t.field({
    type: AuditEventConnectionRef,
    description:
      'The audit log (owner; operators name the organisation), newest first: `first` (default 50, at most 200) after `after`; optionally one `action`.',
    authScopes: { run: 'listAuditEvents' },
    args: { first: t.arg.int(), after: t.arg.string(), action: t.arg.string(), organizationId: t.arg.id() },
    // One page of at most 200 rows, each of a few fields.
    complexity: (args) => ({ field: 1, multiplier: Math.min(args.first ?? 50, 200) }),
    resolve: (_root, args, ctx) =>
      listAuditEvents(ctx.gateway, ctx.caller, {
        first: args.first,
        after: args.after,
        action: args.action,
        organizationId: organizationIdOf(args.organizationId),
      }),
  }),
);
