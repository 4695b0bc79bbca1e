/**
 * Live updates (docs/graphql.md#live-updates): `transactionStatusChanged`, `payoutStatusChanged` and
 * `payoutBatchStatusChanged` (a batch's progress, `payoutBatchProgress`, is beside its type), over
 * Server-Sent Events at /graphql (`Accept: text/event-stream`). Authorised like the list queries:
 * a merchant watches its own organisation (naming another is refused), an operator every one or
 * the one it names. Delivery is best effort (domain/liveUpdates/events.ts): webhooks stay the
 * durable channel.
 */
import { authorizeRead } from '../../domain/access/auth.js';
import type { PayoutBatchStatusChange, PayoutStatusChange, TransactionStatusChange } from '../../domain/liveUpdates/events.js';
import { payoutBatchStatusChanged, payoutStatusChanged, transactionStatusChanged } from '../../domain/operations.js';
import { organizationIdOf } from './arguments.js';
import { builder } from '../builder.js';
import { PayoutBatchStatusEnum, PayoutStatusEnum, TransactionStatusEnum } from './enums.js';

const TransactionStatusChangeRef = builder.objectRef<TransactionStatusChange>('TransactionStatusChange').implement({
  description: 'A transaction whose status changed (paid, paid_and_blocked, cancelled, refunded, escrow released to paid).',
  fields: (t) => ({
    orderId: t.exposeID('orderId'),
    organizationId: t.exposeID('organizationId'),
    status: t.field({ type: TransactionStatusEnum, resolve: (change) => change.status }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'When the change was committed (announced right after).' }),
  }),
});

const PayoutStatusChangeRef = builder.objectRef<PayoutStatusChange>('PayoutStatusChange').implement({
  description: 'A payout whose status changed (completed, failed, cancelled).',
  fields: (t) => ({
    orderId: t.exposeID('orderId'),
    organizationId: t.exposeID('organizationId'),
    status: t.field({ type: PayoutStatusEnum, resolve: (change) => change.status }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'When the change was committed (announced right after).' }),
  }),
});

const PayoutBatchStatusChangeRef = builder.objectRef<PayoutBatchStatusChange>('PayoutBatchStatusChange').implement({
  description: 'A payout batch whose status changed (running once started; completed, completed_with_failures or cancelled once ended).',
  fields: (t) => ({
    batchId: t.exposeID('orderId'),
    organizationId: t.exposeID('organizationId'),
    status: t.field({ type: PayoutBatchStatusEnum, resolve: (change) => change.status }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'When the change was committed (announced right after).' }),
  }),
});

builder.subscriptionType({});

builder.subscriptionField('transactionStatusChanged', (t) =>
  t.field({
    type: TransactionStatusChangeRef,
    description:
      'Each status change of the caller’s transactions from now on (scopes: checkout, read, readAndWrite); operators watch every organisation’s, or one with organizationId. Best effort: webhooks are the durable channel.',
    authScopes: { run: 'transactionStatusChanged' },
    args: { organizationId: t.arg.id() },
    subscribe: (_root, { organizationId }, ctx) =>
      transactionStatusChanged(ctx.gateway, authorizeRead(ctx.caller, 'transactionStatusChanged', organizationIdOf(organizationId))),
    resolve: (change) => change,
  }),
);

builder.subscriptionField('payoutStatusChanged', (t) =>
  t.field({
    type: PayoutStatusChangeRef,
    description:
      'Each status change of the caller’s payouts from now on (scopes: payout, read); operators watch every organisation’s, or one with organizationId. Best effort: webhooks are the durable channel.',
    authScopes: { run: 'payoutStatusChanged' },
    args: { organizationId: t.arg.id() },
    subscribe: (_root, { organizationId }, ctx) =>
      payoutStatusChanged(ctx.gateway, authorizeRead(ctx.caller, 'payoutStatusChanged', organizationIdOf(organizationId))),
    resolve: (change) => change,
  }),
);

builder.subscriptionField('payoutBatchStatusChanged', (t) =>
  t.field({
    type: PayoutBatchStatusChangeRef,
    description:
      'Each status change of the caller’s payout batches from now on (scopes: payout, read); operators watch every organisation’s, or one with organizationId. Best effort: webhooks are the durable channel.',
    authScopes: { run: 'payoutBatchStatusChanged' },
    args: { organizationId: t.arg.id() },
    subscribe: (_root, { organizationId }, ctx) =>
      payoutBatchStatusChanged(ctx.gateway, authorizeRead(ctx.caller, 'payoutBatchStatusChanged', organizationIdOf(organizationId))),
    resolve: (change) => change,
  }),
);
