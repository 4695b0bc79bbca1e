/**
 * Payouts: the same operations as REST v2's POST /payouts, GET /payouts/{order_id} and GET /payouts
 * for merchants (API keys: scope payout creates; payout or read reads); operators read every
 * organisation's, and admin or support decide the review queue (payouts above 2,000,000 XOF): approve
 * (sent) or reject (cancelled, funds returned). Rules are the domain's (domain/payouts/).
 */
import { authorizeMerchant, authorizeRead } from '../../domain/access/auth.js';
import { toWireAmount } from '../../domain/money.js';
import { approvePayout, createPayout, getPayout, listPayouts, listPendingPayouts, BATCHED_READS, rejectPayout } from '../../domain/operations.js';
import { keysetSliceOf } from '../../domain/cursors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page } from '../../domain/pagination.js';
import type { ListPayoutsInput } from '../../domain/payouts/listPayouts.js';
import { isAwaitingReview } from '../../domain/payouts/payouts.js';
import type { PayoutRecord } from '../../domain/payouts/store.js';
import { payoutStatusWebhookBodyOf } from '../../domain/webhooks/bodies.js';
import { pageComplexity } from '../limits.js';
import { orUndefined, organizationIdOf } from './arguments.js';
import { builder, type GraphQLContext } from '../builder.js';
import { announcingReplays, idempotencyKeyOf } from '../idempotency.js';
import { PaymentMethodEnum, PayoutStatusEnum } from './enums.js';
import { nodeWhere } from './node.js';
import {
  CONNECTION_DESCRIPTION,
  ORGANIZATION_BATCH,
  PageInfoRef,
  connectionOf,
  connectionsOfOrganizations,
  countedConnection,
  type ConnectionArgs,
} from './pagination.js';
import { PersonInput, PersonRef } from './transaction.js';

const PayoutRef = builder.prismaNode('Payout', {
  id: { field: 'id' },
  // node(id): the caller's read of a payout, its own organisation's only (node.ts).
  findUnique: (id, ctx) => nodeWhere(ctx, 'Payout', id),
  nullable: true,
  fields: (t) => ({
    orderId: t.exposeID('id'),
    organizationId: t.exposeID('organizationId', { description: 'The merchant organisation (useful to operators reading every organisation).' }),
    selectedPaymentMethod: t.field({ type: PaymentMethodEnum, resolve: (payout) => payout.selectedPaymentMethod }),
    amount: t.field({ type: 'SafeInt', description: 'XOF sent to the recipient.', resolve: (payout) => toWireAmount(payout.amount) }),
    fees: t.field({
      type: 'SafeInt',
      description: 'XOF kept by the gateway; main is debited by amount + fees.',
      resolve: (payout) => toWireAmount(payout.fees),
    }),
    currency: t.exposeString('currency'),
    recipient: t.field({
      type: PersonRef,
      resolve: (payout) => ({
        firstName: payout.recipientFirstName,
        lastName: payout.recipientLastName,
        phone: payout.recipientPhone,
        createdAt: payout.createdAt,
      }),
    }),
    status: t.field({ type: PayoutStatusEnum, resolve: (payout) => payout.status }),
    awaitingReview: t.boolean({
      description:
        'Pending and never sent: above 2,000,000 XOF, it waits for an operator to approve or reject it (false for a payout pending with the provider).',
      resolve: (payout) => isAwaitingReview(payout),
    }),
    reason: t.exposeString('reason'),
    providerReference: t.exposeString('providerReference'),
    failureReason: t.exposeString('failureReason', {
      nullable: true,
      description: 'Why it failed (the provider’s refusal) or was cancelled (the operator’s rejection reason).',
    }),
    sentAt: t.expose('sentAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was handed to the provider (null while awaiting review, or never sent).',
    }),
    isDeleted: t.exposeBoolean('isDeleted'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true }),
    // Built by the outbox's own builder, so `gateway listen` forwards what a real delivery carries.
    payoutStatusWebhookBody: t.string({
      nullable: true,
      description:
        'The body of a `payout_status` webhook delivery for this payout as it is now (compact JSON, byte for byte what the gateway signs and sends); null while pending. `gateway listen` forwards it.',
      resolve: (payout) => payoutStatusWebhookBodyOf(payout),
    }),
  }),
});

const PayoutPageRef = builder.objectRef<Page<PayoutRecord>>('PayoutPage').implement({
  fields: (t) => ({
    payouts: t.field({ type: [PayoutRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PageInfoRef, resolve: (page) => page }),
  }),
});

const CreatePayoutInput = builder.inputType('CreatePayoutInput', {
  fields: (t) => ({
    selectedPaymentMethod: t.field({ type: PaymentMethodEnum, required: true }),
    amount: t.field({ type: 'SafeInt', required: true, description: 'XOF, a whole number greater than 10' }),
    recipient: t.field({ type: PersonInput, required: true, description: 'phone is required' }),
    reason: t.string(),
  }),
});

const PayoutFilter = builder.inputType('PayoutFilter', {
  fields: (t) => ({
    status: t.field({ type: PayoutStatusEnum }),
    paymentMethod: t.field({ type: PaymentMethodEnum }),
    recipientPhone: t.string({ description: 'Exact match: how to find a payout after a timeout or an error.' }),
    minAmount: t.field({ type: 'SafeInt' }),
    maxAmount: t.field({ type: 'SafeInt' }),
    startDate: t.field({ type: 'DateTime' }),
    endDate: t.field({ type: 'DateTime' }),
    includeDeleted: t.boolean(),
    search: t.string({ description: 'Order id, recipient name or phone, reason.' }),
  }),
});

/** The GraphQL filter as the operation's input. */
const listInputOf = (filter: typeof PayoutFilter.$inferInput | null | undefined): ListPayoutsInput => ({
  status: orUndefined(filter?.status),
  paymentMethod: orUndefined(filter?.paymentMethod),
  recipientPhone: orUndefined(filter?.recipientPhone),
  minAmount: orUndefined(filter?.minAmount),
  maxAmount: orUndefined(filter?.maxAmount),
  startDate: orUndefined(filter?.startDate),
  endDate: orUndefined(filter?.endDate),
  includeDeleted: orUndefined(filter?.includeDeleted),
  search: orUndefined(filter?.search),
});

builder.queryField('payout', (t) =>
  t.field({
    type: PayoutRef,
    description: 'One payout: of the caller’s organisation (scopes: payout, read), or of any for operators.',
    authScopes: { run: 'getPayout' },
    args: { orderId: t.arg.id({ required: true }) },
    resolve: (_root, { orderId }, ctx) => getPayout(ctx.gateway, authorizeRead(ctx.caller, 'getPayout'), String(orderId)),
  }),
);

builder.queryField('payouts', (t) =>
  t.field({
    type: PayoutPageRef,
    description: 'Payouts, newest first: the caller’s organisation’s (scopes: payout, read); operators read every organisation’s, or one with organizationId.',
    authScopes: { run: 'listPayouts' },
    complexity: pageComplexity,
    args: { filter: t.arg({ type: PayoutFilter }), page: t.arg.int(), limit: t.arg.int(), organizationId: t.arg.id() },
    resolve: (_root, { filter, page, limit, organizationId }, ctx) =>
      listPayouts(ctx.gateway, authorizeRead(ctx.caller, 'listPayouts', organizationIdOf(organizationId)), {
        ...listInputOf(filter),
        page: orUndefined(page),
        limit: orUndefined(limit),
      }),
  }),
);

/** A connection of payouts, with how many match the filter. */
const PayoutConnectionRef = countedConnection(PayoutRef, 'Payout', 'payouts');

/** One keyset slice of an organisation's (null: every organisation's) payouts, as a connection. */
async function payoutConnection(
  ctx: GraphQLContext,
  organizationId: string | null,
  args: ConnectionArgs & { filter?: typeof PayoutFilter.$inferInput | null },
) {
  const access = authorizeRead(ctx.caller, 'listPayouts', organizationId);
  const slice = keysetSliceOf(args, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return connectionOf(await listPayouts(ctx.gateway, access, { ...listInputOf(args.filter), slice }), slice);
}

builder.queryField('payoutsConnection', (t) =>
  t.connection(
    {
      type: PayoutRef,
      description: `The list of \`payouts\` as a Relay connection, with the same filter and access. ${CONNECTION_DESCRIPTION}`,
      authScopes: { run: 'listPayouts' },
      complexity: pageComplexity,
      args: { filter: t.arg({ type: PayoutFilter }), organizationId: t.arg.id() },
      resolve: (_root, args, ctx) => payoutConnection(ctx, organizationIdOf(args.organizationId), args),
    },
    PayoutConnectionRef,
  ),
);

// Loadable: under a list of organisations, every organisation's slice is read in one statement
// (listPayoutsOfOrganizations), not two statements per organisation.
builder.prismaObjectField('Organization', 'payouts', (t) =>
  t.loadable({
    type: PayoutConnectionRef,
    description: `The organisation’s payouts. ${CONNECTION_DESCRIPTION}`,
    authScopes: { run: 'listPayouts' },
    complexity: pageComplexity,
    args: { ...t.arg.connectionArgs(), filter: t.arg({ type: PayoutFilter }) },
    byPath: true,
    loaderOptions: ORGANIZATION_BATCH,
    load: (organizationIds: string[], ctx: GraphQLContext, args) =>
      connectionsOfOrganizations(
        organizationIds,
        args,
        (id) => authorizeRead(ctx.caller, 'listPayouts', id),
        (accesses, slice) => BATCHED_READS.listPayouts(ctx.gateway, accesses, { ...listInputOf(args.filter), slice }),
      ),
    resolve: (organization) => organization.id,
  }),
);

builder.queryField('pendingPayouts', (t) =>
  t.field({
    type: PayoutPageRef,
    description:
      'Operators: the review queue, payouts above 2,000,000 XOF awaiting approval or rejection, oldest first, across organisations (or one with organizationId).',
    authScopes: { run: 'listPendingPayouts' },
    complexity: pageComplexity,
    args: { page: t.arg.int(), limit: t.arg.int(), organizationId: t.arg.id() },
    resolve: (_root, { page, limit, organizationId }, ctx) =>
      listPendingPayouts(ctx.gateway, ctx.caller, { page: orUndefined(page), limit: orUndefined(limit), organizationId: organizationIdOf(organizationId) }),
  }),
);

builder.mutationField('createPayout', (t) =>
  t.field({
    type: PayoutRef,
    description:
      'Sends money from main to a wallet (scope: payout): main is debited by amount + fees before the provider is called. Up to 2,000,000 XOF it is sent at once (completed; PAYOUT_FAILED when the provider refuses, funds returned); above, it is pending until an operator reviews it; pending also when the provider did not answer (find it with payouts(filter: {recipientPhone})). With an idempotency key (argument or Idempotency-Key header), a retry replays the first answer, as REST does.',
    authScopes: { run: 'createPayout' },
    args: { input: t.arg({ type: CreatePayoutInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, { input, idempotencyKey }, ctx) => {
      const access = authorizeMerchant(ctx.caller, 'createPayout');
      const options = { idempotencyKey: idempotencyKeyOf(ctx, idempotencyKey) };
      // The same input REST builds, so one Idempotency-Key is one request on both surfaces.
      const operationInput = {
        selectedPaymentMethod: input.selectedPaymentMethod,
        amount: input.amount,
        recipient: { firstName: input.recipient.firstName, lastName: input.recipient.lastName, phone: input.recipient.phone },
        reason: input.reason,
      };
      return announcingReplays(ctx, () => createPayout(ctx.gateway, access, operationInput, options));
    },
  }),
);

builder.mutationField('approvePayout', (t) =>
  t.field({
    type: PayoutRef,
    description:
      'Operators (admin, support): sends a payout awaiting review; answers it completed, failed (the provider refused: funds returned) or pending (no answer yet: the gateway reconciles it). PAYOUT_NOT_AWAITING_REVIEW once decided.',
    authScopes: { run: 'approvePayout' },
    args: { orderId: t.arg.id({ required: true }) },
    resolve: (_root, { orderId }, ctx) => approvePayout(ctx.gateway, ctx.caller, String(orderId)),
  }),
);

builder.mutationField('rejectPayout', (t) =>
  t.field({
    type: PayoutRef,
    description:
      'Operators (admin, support): refuses a payout awaiting review; it is cancelled, its amount and fees returned to main, nothing sent. reason (at most 1,000 characters; default "rejected by the operator") is kept as its failureReason.',
    authScopes: { run: 'rejectPayout' },
    args: { orderId: t.arg.id({ required: true }), reason: t.arg.string() },
    resolve: (_root, { orderId, reason }, ctx) => rejectPayout(ctx.gateway, ctx.caller, String(orderId), reason),
  }),
);
