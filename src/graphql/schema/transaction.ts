/**
 * Transactions: the same four operations as REST v2 for merchants (API keys); operators read
 * every organisation's.
 */
import { authorizeMerchant, authorizeRead } from '../../domain/access/auth.js';
import { actingForOrganization } from '../../domain/organizations/ownOrganization.js';
import { toWireAmount } from '../../domain/money.js';
import { cancelTransaction, createTransaction, getTransaction, listTransactions, BATCHED_READS } from '../../domain/operations.js';
import { keysetSliceOf } from '../../domain/cursors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/pagination.js';
import type { CreatedTransaction } from '../../domain/transactions/createTransaction.js';
import { paymentStatusWebhookBodyAs, paymentStatusWebhookBodyOf, refundStatusWebhookBodyOf } from '../../domain/webhooks/bodies.js';
import type { ListTransactionsInput } from '../../domain/transactions/listTransactions.js';
import { pageComplexity } from '../limits.js';
import { orUndefined, organizationIdOf } from './arguments.js';
import { builder, type GraphQLContext } from '../builder.js';
import { announcingReplays, idempotencyKeyOf } from '../idempotency.js';
import { PaymentMethodEnum, TransactionStatusEnum } from './enums.js';
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

const ProductRef = builder.prismaObject('TransactionProduct', {
  name: 'Product',
  fields: (t) => ({
    name: t.exposeString('name'),
    price: t.field({ type: 'SafeInt', resolve: (product) => toWireAmount(product.price) }),
    quantity: t.exposeInt('quantity'),
    description: t.exposeString('description', { nullable: true }),
  }),
});

export const PersonRef = builder.objectRef<{ firstName: string | null; lastName: string | null; phone: string | null; createdAt: Date }>('Person').implement({
  fields: (t) => ({
    firstName: t.exposeString('firstName', { nullable: true }),
    lastName: t.exposeString('lastName', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const TransactionRef = builder.prismaNode('Transaction', {
  id: { field: 'id' },
  // node(id): the caller's read of a transaction, its own organisation's only (node.ts).
  findUnique: (id, ctx) => nodeWhere(ctx, 'Transaction', id),
  nullable: true,
  // Always with its products, as the operations return it (TransactionRecord).
  include: { products: { orderBy: { position: 'asc' } } },
  fields: (t) => ({
    orderId: t.exposeID('id'),
    organizationId: t.exposeID('organizationId', { description: 'The merchant organisation (useful to operators reading every organisation).' }),
    amount: t.field({ type: 'SafeInt', resolve: (transaction) => toWireAmount(transaction.amount) }),
    fees: t.field({ type: 'SafeInt', resolve: (transaction) => toWireAmount(transaction.fees) }),
    methodOfPayment: t.field({ type: [PaymentMethodEnum], resolve: (transaction) => transaction.methodOfPayment }),
    selectedPaymentMethod: t.field({ type: PaymentMethodEnum, nullable: true, resolve: (transaction) => transaction.selectedPaymentMethod }),
    currency: t.exposeString('currency'),
    status: t.field({ type: TransactionStatusEnum, resolve: (transaction) => transaction.status }),
    customer: t.field({
      type: PersonRef,
      resolve: (transaction) => ({
        firstName: transaction.customerFirstName,
        lastName: transaction.customerLastName,
        phone: transaction.customerPhone,
        createdAt: transaction.createdAt,
      }),
    }),
    // Read from the parent: operations return transactions with their products (TransactionRecord),
    // and the plugin loads them with every transaction (the type's include), in the same query.
    products: t.field({ type: [ProductRef], resolve: (transaction) => transaction.products }),
    isEscrow: t.exposeBoolean('isEscrow'),
    isMerchant: t.exposeBoolean('isMerchant'),
    feesCustomerSide: t.exposeBoolean('feesCustomerSide'),
    successUrl: t.exposeString('successUrl', { nullable: true }),
    errorUrl: t.exposeString('errorUrl', { nullable: true }),
    isDeleted: t.exposeBoolean('isDeleted'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true }),
    paymentLinkId: t.exposeID('paymentLinkId', { nullable: true, description: 'The payment link whose page made this transaction; null for any other.' }),
    // Built by the outbox's own builder, so `gateway listen` forwards what a real delivery carries.
    paymentStatusWebhookBody: t.string({
      nullable: true,
      description:
        'The body of a v2 `payment_status` webhook delivery for this transaction as it is now (compact JSON, byte for byte what the gateway signs and sends); null while its status sends none (pending, cancelled, refunded). `gateway listen` forwards it. `asStatus`: the body of the delivery written when it became that status, for a change read after the next one (paid, then refunded at once): the status is that one, every other field as it is now; null for a status the transaction cannot have had (a pending one asked as paid).',
      args: { asStatus: t.arg({ type: TransactionStatusEnum, required: false }) },
      // The transaction itself, projected: whoever reads the transaction reads its body.
      authScopes: { run: 'getTransaction' },
      resolve: (transaction, { asStatus }) => (asStatus ? paymentStatusWebhookBodyAs(transaction, asStatus) : paymentStatusWebhookBodyOf(transaction)),
    }),
    refundStatusWebhookBody: t.string({
      nullable: true,
      description:
        'The body of a `refund_status` webhook delivery for this transaction as it is now (compact JSON, byte for byte what the gateway signs and sends); null unless refunded. `gateway listen` forwards it.',
      resolve: (transaction) => refundStatusWebhookBodyOf(transaction),
    }),
  }),
});

const CreatedTransactionRef = builder.objectRef<CreatedTransaction>('CreatedTransaction').implement({
  fields: (t) => ({
    transaction: t.field({ type: TransactionRef, resolve: (created) => created.transaction }),
    checkoutUrl: t.exposeString('checkoutUrl'),
  }),
});

export const TransactionPageRef = builder.objectRef<Awaited<ReturnType<typeof listTransactions>>>('TransactionPage').implement({
  fields: (t) => ({
    transactions: t.field({ type: [TransactionRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PageInfoRef, resolve: (page) => page }),
  }),
});

const ProductInput = builder.inputType('ProductInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    price: t.field({ type: 'SafeInt', required: true, description: 'Unit price, XOF' }),
    quantity: t.int({ required: true }),
    description: t.string(),
  }),
});

export const PersonInput = builder.inputType('PersonInput', {
  fields: (t) => ({ firstName: t.string(), lastName: t.string(), phone: t.string() }),
});

const CreateTransactionInput = builder.inputType('CreateTransactionInput', {
  fields: (t) => ({
    methodOfPayment: t.field({ type: [PaymentMethodEnum], required: true }),
    products: t.field({ type: [ProductInput], required: true }),
    customer: t.field({ type: PersonInput }),
    successUrl: t.string(),
    errorUrl: t.string(),
    feesCustomerSide: t.boolean(),
    isEscrow: t.boolean(),
    isMerchant: t.boolean(),
  }),
});

const TransactionFilter = builder.inputType('TransactionFilter', {
  fields: (t) => ({
    status: t.field({ type: TransactionStatusEnum }),
    paymentMethod: t.field({ type: PaymentMethodEnum }),
    customerPhone: t.string(),
    minAmount: t.field({ type: 'SafeInt' }),
    maxAmount: t.field({ type: 'SafeInt' }),
    startDate: t.field({ type: 'DateTime' }),
    endDate: t.field({ type: 'DateTime' }),
    isEscrow: t.boolean(),
    isMerchant: t.boolean(),
    includeDeleted: t.boolean(),
    search: t.string(),
  }),
});

builder.queryField('transaction', (t) =>
  t.field({
    type: TransactionRef,
    description: 'One transaction: of the caller’s organisation (scopes: checkout, read, readAndWrite), or of any for operators.',
    authScopes: { run: 'getTransaction' },
    args: { orderId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => getTransaction(ctx.gateway, authorizeRead(ctx.caller, 'getTransaction'), String(args.orderId)),
  }),
);

/** The GraphQL filter as the operation's input. */
const listInputOf = (filter: typeof TransactionFilter.$inferInput | null | undefined): ListTransactionsInput => ({
  status: orUndefined(filter?.status),
  paymentMethod: orUndefined(filter?.paymentMethod),
  customerPhone: orUndefined(filter?.customerPhone),
  minAmount: orUndefined(filter?.minAmount),
  maxAmount: orUndefined(filter?.maxAmount),
  startDate: orUndefined(filter?.startDate),
  endDate: orUndefined(filter?.endDate),
  isEscrow: orUndefined(filter?.isEscrow),
  isMerchant: orUndefined(filter?.isMerchant),
  includeDeleted: orUndefined(filter?.includeDeleted),
  search: orUndefined(filter?.search),
});

builder.queryField('transactions', (t) =>
  t.field({
    type: TransactionPageRef,
    description:
      'Transactions, newest first: the caller’s organisation’s (scopes: checkout, read, readAndWrite); operators read every organisation’s, or one with organizationId.',
    authScopes: { run: 'listTransactions' },
    complexity: pageComplexity,
    args: { filter: t.arg({ type: TransactionFilter }), page: t.arg.int(), limit: t.arg.int(), organizationId: t.arg.id() },
    resolve: (_root, { filter, page, limit, organizationId }, ctx) =>
      listTransactions(ctx.gateway, authorizeRead(ctx.caller, 'listTransactions', organizationIdOf(organizationId)), {
        ...listInputOf(filter),
        page: orUndefined(page),
        limit: orUndefined(limit),
      }),
  }),
);

/** A connection of transactions, with how many match the filter. */
const TransactionConnectionRef = countedConnection(TransactionRef, 'Transaction', 'transactions');

/** One keyset slice of an organisation's (null: every organisation's) transactions, as a connection. */
async function transactionConnection(
  ctx: GraphQLContext,
  organizationId: string | null,
  args: ConnectionArgs & { filter?: typeof TransactionFilter.$inferInput | null },
) {
  const access = authorizeRead(ctx.caller, 'listTransactions', organizationId);
  const slice = keysetSliceOf(args, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return connectionOf(await listTransactions(ctx.gateway, access, { ...listInputOf(args.filter), slice }), slice);
}

builder.queryField('transactionsConnection', (t) =>
  t.connection(
    {
      type: TransactionRef,
      description: `The list of \`transactions\` as a Relay connection, with the same filter and access. ${CONNECTION_DESCRIPTION}`,
      authScopes: { run: 'listTransactions' },
      complexity: pageComplexity,
      args: { filter: t.arg({ type: TransactionFilter }), organizationId: t.arg.id() },
      resolve: (_root, args, ctx) => transactionConnection(ctx, organizationIdOf(args.organizationId), args),
    },
    TransactionConnectionRef,
  ),
);

// Loadable: under a list of organisations, every organisation's slice is read in one statement
// (listTransactionsOfOrganizations), not two statements per organisation.
builder.prismaObjectField('Organization', 'transactions', (t) =>
  t.loadable({
    type: TransactionConnectionRef,
    description: `The organisation’s transactions. ${CONNECTION_DESCRIPTION}`,
    authScopes: { run: 'listTransactions' },
    complexity: pageComplexity,
    args: { ...t.arg.connectionArgs(), filter: t.arg({ type: TransactionFilter }) },
    byPath: true,
    loaderOptions: ORGANIZATION_BATCH,
    load: (organizationIds: string[], ctx: GraphQLContext, args) =>
      connectionsOfOrganizations(
        organizationIds,
        args,
        (id) => authorizeRead(ctx.caller, 'listTransactions', id),
        (accesses, slice) => BATCHED_READS.listTransactions(ctx.gateway, accesses, { ...listInputOf(args.filter), slice }),
      ),
    resolve: (organization) => organization.id,
  }),
);

builder.mutationField('createTransaction', (t) =>
  t.field({
    type: CreatedTransactionRef,
    description:
      'Creates a pending transaction (scopes: checkout, write, readAndWrite; operators: admin, naming the organisation, to try an integration end to end with sandboxPay). With an idempotency key (argument or Idempotency-Key header), a retry replays the first answer, as REST does.',
    authScopes: { run: 'createTransaction' },
    args: {
      input: t.arg({ type: CreateTransactionInput, required: true }),
      idempotencyKey: t.arg.string(),
      organizationId: t.arg.id({ description: 'Operators: the organisation (required). A merchant may name only its own.' }),
    },
    resolve: async (_root, { input, idempotencyKey, organizationId }, ctx) => {
      const access = await actingForOrganization(ctx.gateway, ctx.caller, 'createTransaction', organizationIdOf(organizationId));
      const options = { idempotencyKey: idempotencyKeyOf(ctx, idempotencyKey) };
      const operationInput = {
        methodOfPayment: input.methodOfPayment,
        products: input.products,
        customer: input.customer,
        successUrl: input.successUrl,
        errorUrl: input.errorUrl,
        feesCustomerSide: input.feesCustomerSide,
        isEscrow: input.isEscrow,
        isMerchant: input.isMerchant,
      };
      return announcingReplays(ctx, () => createTransaction(ctx.gateway, access, operationInput, options));
    },
  }),
);

builder.mutationField('cancelTransaction', (t) =>
  t.field({
    type: TransactionRef,
    description: 'Cancels an unpaid transaction (scopes: checkout, write, readAndWrite).',
    authScopes: { run: 'cancelTransaction' },
    args: { orderId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => cancelTransaction(ctx.gateway, authorizeMerchant(ctx.caller, 'cancelTransaction'), String(args.orderId)),
  }),
);
