/**
 * Payout batches (docs/payouts.md#batch-payouts): the same operations as REST v2's
 * /payout-batches, plus a CSV file's text (createPayoutBatchFromCsv: the header
 * `method,amount,phone,first_name,last_name,reason,reference`; the dashboard uploads its files to
 * POST /dashboard/uploads/payout-batch instead, past GraphQL's 100 kB bodies), and a batch's live
 * progress (payoutBatchProgress). Rules are the domain's (domain/payoutBatches/).
 */
import { authorizeMerchant, authorizeRead } from '../../domain/access/auth.js';
import { cancelPayoutBatch, createPayoutBatch, getPayoutBatch, listPayoutBatchItems, payoutBatchProgress, startPayoutBatch } from '../../domain/operations.js';
import { payoutBatchStatusWebhookBodyOf, type BatchView } from '../../domain/payoutBatches/batches.js';
import { MAX_BATCH_ITEMS, MAX_CSV_BYTES, MAX_CSV_LINE_LENGTH, type BatchLineError } from '../../domain/payoutBatches/rules.js';
import type { BatchItemRow } from '../../domain/payoutBatches/store.js';
import type { Page } from '../../domain/pagination.js';
import { builder } from '../builder.js';
import { announcingReplays, idempotencyKeyOf } from '../idempotency.js';
import { PayoutBatchStatusEnum } from './enums.js';
import { PageInfoRef } from './pagination.js';

const LineErrorRef = builder.objectRef<BatchLineError>('PayoutBatchLineError').implement({
  description: 'A refused line: its number (1 = the first item; 0 = the batch as a whole, e.g. the balance), the field and why.',
  fields: (t) => ({ line: t.exposeInt('line'), field: t.exposeString('field'), error: t.exposeString('error') }),
});

const CountsRef = builder.objectRef<BatchView['counts']>('PayoutBatchCounts').implement({
  description: 'How many items are in each status (the payout’s, or queued / pending / failed / cancelled before it has one).',
  fields: (t) => ({
    queued: t.exposeInt('queued'),
    pending: t.exposeInt('pending'),
    completed: t.exposeInt('completed'),
    failed: t.exposeInt('failed'),
    cancelled: t.exposeInt('cancelled'),
  }),
});

const ItemRef = builder.objectRef<BatchItemRow>('PayoutBatchItem').implement({
  fields: (t) => ({
    line: t.exposeInt('line'),
    orderId: t.exposeID('payoutId', { nullable: true, description: 'Its payout (null until it has one)' }),
    status: t.exposeString('payoutStatus', { description: 'queued, pending, completed, failed or cancelled' }),
    amount: t.field({ type: 'SafeInt', resolve: (item) => Number(item.amount) }),
    fees: t.field({ type: 'SafeInt', resolve: (item) => Number(item.fee) }),
    recipientFirstName: t.exposeString('recipientFirstName', { nullable: true }),
    recipientLastName: t.exposeString('recipientLastName', { nullable: true }),
    recipientPhone: t.exposeString('recipientPhone'),
    reason: t.exposeString('reason'),
    reference: t.exposeString('reference', { nullable: true }),
    failureReason: t.exposeString('reasonFailed', { nullable: true }),
  }),
});

const ItemPageRef = builder.objectRef<Page<BatchItemRow>>('PayoutBatchItemPage').implement({
  fields: (t) => ({
    items: t.field({ type: [ItemRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PageInfoRef, resolve: (page) => page }),
  }),
});

const PayoutBatchRef = builder.objectRef<BatchView>('PayoutBatch').implement({
  description: `Up to ${MAX_BATCH_ITEMS} payouts submitted at once: a draft (refused lines in errors), then run item by item, each an ordinary payout.`,
  fields: (t) => ({
    id: t.id({ resolve: ({ batch }) => batch.id }),
    status: t.field({ type: PayoutBatchStatusEnum, resolve: ({ batch }) => batch.status }),
    itemCount: t.int({ resolve: ({ batch }) => batch.itemCount }),
    validCount: t.int({ resolve: ({ batch }) => batch.validCount }),
    totalAmount: t.field({ type: 'SafeInt', resolve: ({ batch }) => Number(batch.totalAmount) }),
    totalFees: t.field({ type: 'SafeInt', resolve: ({ batch }) => Number(batch.totalFees) }),
    errors: t.field({ type: [LineErrorRef], resolve: ({ batch }) => batch.errors as unknown as BatchLineError[] }),
    counts: t.field({ type: CountsRef, resolve: ({ counts }) => counts }),
    createdAt: t.field({ type: 'DateTime', resolve: ({ batch }) => batch.createdAt }),
    startedAt: t.field({ type: 'DateTime', nullable: true, resolve: ({ batch }) => batch.startedAt }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: ({ batch }) => batch.finishedAt }),
    // Built by the outbox's own builder, so `gateway listen` forwards what a real delivery carries.
    payoutBatchStatusWebhookBody: t.string({
      nullable: true,
      description:
        'The body of a `payout_batch_status` webhook delivery for this batch as it is now (compact JSON, byte for byte what the gateway signs and sends); null until it has ended. `gateway listen` forwards it.',
      resolve: (view) => payoutBatchStatusWebhookBodyOf(view),
    }),
    items: t.field({
      type: ItemPageRef,
      description: 'Its items by line (a page); `status` filters.',
      authScopes: { run: 'listPayoutBatchItems' },
      args: { page: t.arg.int(), limit: t.arg.int(), status: t.arg.string() },
      resolve: ({ batch }, args, ctx) =>
        listPayoutBatchItems(ctx.gateway, authorizeRead(ctx.caller, 'listPayoutBatchItems'), batch.id, {
          page: args.page ?? undefined,
          limit: args.limit ?? undefined,
          status: args.status ?? undefined,
        }),
    }),
  }),
});

const BatchLineInputRef = builder.inputType('PayoutBatchLineInput', {
  fields: (t) => ({
    selectedPaymentMethod: t.string({ required: true, description: 'wave or orange_money (another value is a refused line)' }),
    amount: t.field({ type: 'SafeInt', required: true }),
    recipient: t.field({
      type: builder.inputType('PayoutBatchRecipientInput', {
        fields: (r) => ({ firstName: r.string(), lastName: r.string(), phone: r.string({ required: true }) }),
      }),
      required: true,
    }),
    reason: t.string(),
    reference: t.string(),
  }),
});

builder.queryField('payoutBatch', (t) =>
  t.field({
    type: PayoutBatchRef,
    description: 'One payout batch of the caller’s organisation (scopes: payout, read), or of any for operators.',
    authScopes: { run: 'getPayoutBatch' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => getPayoutBatch(ctx.gateway, authorizeRead(ctx.caller, 'getPayoutBatch'), String(id)),
  }),
);

builder.mutationField('createPayoutBatch', (t) =>
  t.field({
    type: PayoutBatchRef,
    description: `Validates up to ${MAX_BATCH_ITEMS} payouts into a draft (nothing is sent): refused lines are named in errors. Start or cancel it.`,
    authScopes: { run: 'createPayoutBatch' },
    args: { items: t.arg({ type: [BatchLineInputRef], required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, { items, idempotencyKey }, ctx) => {
      const access = authorizeMerchant(ctx.caller, 'createPayoutBatch');
      const lines = items.map((item) => ({ ...item, recipient: { ...item.recipient } }));
      return announcingReplays(ctx, () => createPayoutBatch(ctx.gateway, access, { items: lines }, { idempotencyKey: idempotencyKeyOf(ctx, idempotencyKey) }));
    },
  }),
);

builder.mutationField('createPayoutBatchFromCsv', (t) =>
  t.field({
    type: PayoutBatchRef,
    description: `The same from a CSV file: header \`method,amount,phone,first_name,last_name,reason,reference\`, at most ${MAX_BATCH_ITEMS} lines of ${MAX_CSV_LINE_LENGTH} characters, ${MAX_CSV_BYTES} bytes (and the API's 100 kB request body: ~1,000 lines; larger batches go through REST v2's POST /api/v2/payout-batches, or the dashboard's upload).`,
    authScopes: { run: 'createPayoutBatch' },
    args: { csv: t.arg.string({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, { csv, idempotencyKey }, ctx) => {
      const access = authorizeMerchant(ctx.caller, 'createPayoutBatch');
      return announcingReplays(ctx, () => createPayoutBatch(ctx.gateway, access, { csv }, { idempotencyKey: idempotencyKeyOf(ctx, idempotencyKey) }));
    },
  }),
);

builder.mutationField('startPayoutBatch', (t) =>
  t.field({
    type: PayoutBatchRef,
    description:
      'Starts a draft: its items are sent one at a time. Refused with refused lines unless skipInvalidLines; PAYOUT_IN_PROGRESS while another payout runs.',
    authScopes: { run: 'startPayoutBatch' },
    args: { id: t.arg.id({ required: true }), skipInvalidLines: t.arg.boolean() },
    resolve: (_root, { id, skipInvalidLines }, ctx) =>
      startPayoutBatch(ctx.gateway, authorizeMerchant(ctx.caller, 'startPayoutBatch'), String(id), { skipInvalidLines: skipInvalidLines ?? false }),
  }),
);

builder.mutationField('cancelPayoutBatch', (t) =>
  t.field({
    type: PayoutBatchRef,
    description: 'Discards a draft, or stops a running batch: items not yet started are cancelled; nothing is sent twice.',
    authScopes: { run: 'cancelPayoutBatch' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => cancelPayoutBatch(ctx.gateway, authorizeMerchant(ctx.caller, 'cancelPayoutBatch'), String(id)),
  }),
);

builder.subscriptionField('payoutBatchProgress', (t) =>
  t.field({
    type: PayoutBatchRef,
    description:
      'One payout batch as it moves (scopes: payout, read): the batch at once, then again after each change (started, an item answered, ended; at most 5 times a second); the stream completes once the batch has ended. Best effort: when the stream ends early, read payoutBatch.',
    authScopes: { run: 'payoutBatchProgress' },
    args: { id: t.arg.id({ required: true }) },
    subscribe: (_root, { id }, ctx) => payoutBatchProgress(ctx.gateway, authorizeRead(ctx.caller, 'payoutBatchProgress'), String(id)),
    resolve: (view) => view,
  }),
);
