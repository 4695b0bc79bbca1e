/**
 * Webhooks: endpoints (the secret appears once, in createWebhook and rotateWebhookSecret), the
 * delivery log with every attempt, and redelivery. Operators (admin to change, support to redeliver), or the
 * organisation itself with a `management` API key.
 */
import { keysetSliceOf } from '../../domain/cursors.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverFailedWebhooks,
  redeliverWebhook,
  rotateWebhookSecret,
  sendTestWebhook,
} from '../../domain/operations.js';
import { DEFAULT_PAGE_SIZE } from '../../domain/pagination.js';
import { MAX_FAILED_REDELIVERIES } from '../../domain/webhooks/redeliverFailedWebhooks.js';
import type { IssuedWebhook } from '../../domain/webhooks/createWebhook.js';
import { MAX_LISTED_ATTEMPTS, MAX_LISTED_DELIVERIES } from '../../domain/webhooks/listWebhookDeliveries.js';
import type { WebhookRecord } from '../../domain/webhooks/store.js';
import type { WebhookEvent } from '../../domain/webhooks/events.js';
import { MAX_WEBHOOKS_PER_ORGANIZATION } from '../../domain/webhooks/access.js';
import { builder } from '../builder.js';
import { pageComplexity } from '../limits.js';
import { organizationIdOf } from './arguments.js';
import { nodeWhere } from './node.js';
import { CONNECTION_DESCRIPTION, connectionOf, countedConnection } from './pagination.js';

const WebhookVersionEnum = builder.enumType('WebhookVersion', {
  values: { v1: { description: 'The legacy small body' }, v2: { description: 'The full body (default)' } } as const,
});
const WebhookDeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  values: {
    pending: { description: 'Waiting for its next attempt (or being sent)' },
    delivered: { description: 'A 2xx answer was received' },
    dropped: { description: 'Every attempt failed (or the webhook was deleted): nothing more is sent' },
  } as const,
});

const WebhookEventEnum = builder.enumType('WebhookEvent', {
  values: {
    payment_status: { description: 'A payment settled or escrow released (the spec’s event; the default)' },
    payout_status: { description: 'A payout completed, failed or was cancelled (body: the payout as GET /payouts/{order_id} reads it, plus `event`)' },
    refund_status: { description: 'A refund succeeded (body: the transaction as GET /transactions/{id} reads it, plus `event`)' },
    payout_batch_status: { description: 'A payout batch finished or was cancelled (body: the batch, plus `event`)' },
  } as const satisfies Record<WebhookEvent, { description: string }>,
});

// Selected without the secret (and typed so): this type cannot reach it, whatever it is handed,
// and the plugin never loads it.
const WebhookRef = builder.prismaNode('Webhook', {
  id: { field: 'id' },
  // node(id): the webhook reads' rule (a management key, or operators), its own organisation's only (node.ts).
  findUnique: (id, ctx) => nodeWhere(ctx, 'Webhook', id),
  nullable: true,
  select: { id: true, organizationId: true, url: true, version: true, isActive: true, events: true, createdAt: true, updatedAt: true } satisfies Record<
    keyof WebhookRecord,
    true
  >,
  description: 'A webhook endpoint of one organisation. Its secret is shown once, by createWebhook or rotateWebhookSecret.',
  fields: (t) => ({
    id: t.exposeID('id'),
    organizationId: t.exposeID('organizationId'),
    url: t.exposeString('url'),
    version: t.field({ type: WebhookVersionEnum, resolve: (webhook) => webhook.version }),
    active: t.boolean({ description: 'False once deleted', resolve: (webhook) => webhook.isActive }),
    events: t.field({
      type: [WebhookEventEnum],
      description: 'The events sent to it (`payment_status` unless others were chosen at registration)',
      resolve: (webhook) => webhook.events as WebhookEvent[],
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const IssuedWebhookRef = builder.objectRef<IssuedWebhook>('IssuedWebhook').implement({
  fields: (t) => ({
    webhook: t.field({ type: WebhookRef, resolve: (issued) => issued.webhook }),
    secret: t.string({
      description: 'The signing secret (HMAC-SHA256 key: its UTF-8 bytes). Shown only here: store it now.',
      resolve: (issued) => issued.secret,
    }),
  }),
});

const WebhookAttemptRef = builder.prismaObject('WebhookAttempt', {
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'From 1 (each redelivery is a new delivery, numbered from 1 again)' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'The receiver’s HTTP status; null when none arrived' }),
    error: t.exposeString('error', { nullable: true, description: 'Why there was no status (timeout, refused, private address...)' }),
    durationMs: t.exposeInt('durationMs'),
    response: t.exposeString('response', { nullable: true, description: 'The start of the receiver’s answer (1 kB at most)' }),
    signature: t.exposeString('signature', {
      nullable: true,
      description:
        'The X-Signature header sent with this attempt: lowercase hex HMAC-SHA256 of `body` under the secret of that moment. Null when nothing was sent.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the attempt started' }),
  }),
});

const WebhookDeliveryRef = builder.prismaObject('WebhookDelivery', {
  // Always with its first attempts, as the operations return it (DeliveryRecord).
  include: { attempts: { orderBy: { number: 'asc' }, take: MAX_LISTED_ATTEMPTS } },
  description: 'One event sent to one webhook: its body exactly as sent, its state and its attempts.',
  fields: (t) => ({
    id: t.exposeID('id'),
    webhookId: t.exposeID('webhookId'),
    event: t.exposeString('event', { description: 'The event (X-Event-Type): a WebhookEvent, or `test` (sendTestWebhook)' }),
    eventId: t.exposeID('eventId', { description: 'Sent as X-Event-Id: the same for every endpoint of the event and for redeliveries' }),
    orderId: t.exposeID('transactionId', { nullable: true }),
    redeliveryOf: t.exposeID('redeliveryOf', { nullable: true, description: 'The delivery this one re-sends' }),
    body: t.exposeString('body', { description: 'The exact bytes sent (compact JSON)' }),
    status: t.field({ type: WebhookDeliveryStatusEnum, resolve: (delivery) => delivery.status }),
    attemptCount: t.exposeInt('attemptCount'),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    attempts: t.field({ type: [WebhookAttemptRef], description: `Oldest first, at most ${MAX_LISTED_ATTEMPTS}`, resolve: (delivery) => delivery.attempts }),
  }),
});

builder.queryField('webhooks', (t) =>
  t.field({
    type: [WebhookRef],
    description: 'The active webhooks of an organisation (a merchant: its own; operators: the one named, or all), newest first.',
    authScopes: { run: 'listWebhooks' },
    args: { organizationId: t.arg.id() },
    resolve: (_root, args, ctx) => listWebhooks(ctx.gateway, ctx.caller, args.organizationId ? String(args.organizationId) : null),
  }),
);

const WebhookDeliveryFilter = builder.inputType('WebhookDeliveryFilter', {
  fields: (t) => ({
    webhookId: t.id({ description: 'One endpoint’s deliveries' }),
    orderId: t.id({ description: 'The deliveries about one transaction' }),
    status: t.field({ type: WebhookDeliveryStatusEnum, description: '`dropped`: failed (every attempt failed)' }),
    since: t.field({ type: 'DateTime', description: 'Created at or after' }),
  }),
});

const WebhookDeliveryConnectionRef = countedConnection(WebhookDeliveryRef, 'WebhookDelivery', 'deliveries');

builder.queryField('webhookDeliveries', (t) =>
  t.connection(
    {
      type: WebhookDeliveryRef,
      description: `The delivery log, each delivery with its attempts and the exact body sent: a merchant’s own organisation’s, or (operators) the one named or all. ${CONNECTION_DESCRIPTION} At most ${MAX_LISTED_DELIVERIES} per slice.`,
      authScopes: { run: 'listWebhookDeliveries' },
      complexity: pageComplexity,
      args: { filter: t.arg({ type: WebhookDeliveryFilter }), organizationId: t.arg.id({ description: 'Operators: one organisation' }) },
      resolve: async (_root, args, ctx) => {
        const slice = keysetSliceOf(args, DEFAULT_PAGE_SIZE, MAX_LISTED_DELIVERIES);
        const filter = args.filter ?? {};
        const log = await listWebhookDeliveries(ctx.gateway, ctx.caller, {
          organizationId: organizationIdOf(args.organizationId),
          webhookId: filter.webhookId == null ? null : String(filter.webhookId),
          orderId: filter.orderId == null ? null : String(filter.orderId),
          status: filter.status ?? null,
          since: filter.since ?? null,
          slice,
        });
        return connectionOf(log, slice);
      },
    },
    WebhookDeliveryConnectionRef,
  ),
);

builder.mutationField('sendTestWebhook', (t) =>
  t.field({
    type: WebhookDeliveryRef,
    description:
      'Sends a signed `test` event to the webhook (X-Event-Type: test; the body has the endpoint version’s shape with an order id that names no transaction, status pending, amount 0). ' +
      'It is delivered, retried and logged like any event: follow it in webhookDeliveries.',
    authScopes: { run: 'sendTestWebhook' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => sendTestWebhook(ctx.gateway, ctx.caller, String(args.id)),
  }),
);

builder.mutationField('redeliverFailedWebhooks', (t) =>
  t.int({
    description:
      `Sends again every failed event (latest delivery dropped, none pending or delivered) created since \`since\`, of one webhook or all; answers how many were queued. ` +
      `At most ${MAX_FAILED_REDELIVERIES} per call, oldest first (a bounded statement and burst to the receiver): call again while it answers ${MAX_FAILED_REDELIVERIES}.`,
    authScopes: { run: 'redeliverFailedWebhooks' },
    args: {
      since: t.arg({ type: 'DateTime', required: true }),
      webhookId: t.arg.id(),
      organizationId: t.arg.id({ description: 'Operators: one organisation (omitted: all)' }),
    },
    resolve: (_root, args, ctx) =>
      redeliverFailedWebhooks(ctx.gateway, ctx.caller, {
        since: args.since,
        webhookId: args.webhookId == null ? null : String(args.webhookId),
        organizationId: organizationIdOf(args.organizationId),
      }),
  }),
);

builder.mutationField('createWebhook', (t) =>
  t.field({
    type: IssuedWebhookRef,
    description: 'Registers a webhook endpoint (http(s); private addresses refused unless allowed). Operators name the organisation.',
    authScopes: { run: 'createWebhook' },
    args: {
      organizationId: t.arg.id(),
      url: t.arg.string({ required: true }),
      version: t.arg({ type: WebhookVersionEnum }),
      events: t.arg({ type: [WebhookEventEnum], description: 'The events to send it; omitted: payment_status only' }),
    },
    resolve: (_root, args, ctx) =>
      createWebhook(ctx.gateway, ctx.caller, {
        organizationId: args.organizationId ? String(args.organizationId) : null,
        url: args.url,
        version: args.version ?? null,
        events: args.events ?? null,
      }),
  }),
);

builder.mutationField('rotateWebhookSecret', (t) =>
  t.field({
    type: IssuedWebhookRef,
    description: 'Replaces a webhook’s secret; the new one is returned here only.',
    authScopes: { run: 'rotateWebhookSecret' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => rotateWebhookSecret(ctx.gateway, ctx.caller, String(args.id)),
  }),
);

builder.mutationField('deleteWebhook', (t) =>
  t.field({
    type: WebhookRef,
    description: 'Deletes a webhook: nothing more is sent to it; its delivery log stays.',
    authScopes: { run: 'deleteWebhook' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteWebhook(ctx.gateway, ctx.caller, String(args.id)),
  }),
);

builder.mutationField('redeliverWebhook', (t) =>
  t.field({
    type: WebhookDeliveryRef,
    description: 'Sends a delivery again: the same body and event id, signed with the current secret, as a new delivery.',
    authScopes: { run: 'redeliverWebhook' },
    args: { deliveryId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => redeliverWebhook(ctx.gateway, ctx.caller, String(args.deliveryId)),
  }),
);

// A relation, so a list of organisations reads every one's webhooks in one batched statement.
builder.prismaObjectField('Organization', 'webhooks', (t) =>
  t.relation('webhooks', {
    description: `The organisation’s active webhooks, newest first (at most ${MAX_WEBHOOKS_PER_ORGANIZATION}).`,
    authScopes: { run: 'listWebhooks' },
    query: { where: { isActive: true }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: MAX_WEBHOOKS_PER_ORGANIZATION },
  }),
);

builder.prismaObjectField('Transaction', 'webhookDeliveries', (t) =>
  t.relation('webhookDeliveries', {
    description: `The events sent about it, newest first (at most ${MAX_LISTED_DELIVERIES}), with their attempts.`,
    authScopes: { run: 'listWebhookDeliveries' },
    query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: MAX_LISTED_DELIVERIES },
  }),
);

builder.prismaObjectField('Webhook', 'deliveries', (t) =>
  t.relation('deliveries', {
    description: `Its delivery log, newest first (at most ${MAX_LISTED_DELIVERIES}), with each delivery’s attempts.`,
    authScopes: { run: 'listWebhookDeliveries' },
    query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: MAX_LISTED_DELIVERIES },
  }),
);
