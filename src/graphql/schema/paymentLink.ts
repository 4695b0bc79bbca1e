/**
 * Payment links (issue 30): the operations of the REST v2 extension (domain/paymentLinks/), with
 * what REST leaves out (products, methods, URLs) and the link's transactions. Merchant keys and
 * dashboard users by the one access policy; operators read every organisation's.
 */
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { authorizeMerchant, authorizeRead } from '../../domain/access/auth.js';
import { toWireAmount } from '../../domain/money.js';
import { createPaymentLink, deactivatePaymentLink, getPaymentLink, PAYMENT_LINK_READS } from '../../domain/operations.js';
import { PAYMENT_LINK_STATUSES } from '../../domain/paymentLinks/listPaymentLinks.js';
import type { PaymentLinkView } from '../../domain/paymentLinks/paymentLinks.js';
import type { LinkProduct } from '../../domain/paymentLinks/store.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/pagination.js';
import { builder } from '../builder.js';
import { pageComplexity } from '../limits.js';
import { countedConnection } from './pagination.js';
import { orUndefined, organizationIdOf } from './arguments.js';
import { PaymentMethodEnum } from './enums.js';
import { TransactionPageRef } from './transaction.js';

const PaymentLinkStatusEnum = builder.enumType('PaymentLinkStatus', {
  values: PAYMENT_LINK_STATUSES,
  description: 'used: a single-use link that was paid; expired: past expiresAt; deactivated: by the merchant. Only active takes a payment.',
});

const PaymentLinkProductRef = builder.objectRef<LinkProduct>('PaymentLinkProduct').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    price: t.field({ type: 'SafeInt', description: 'Unit price, XOF', resolve: (product) => product.price }),
    quantity: t.exposeInt('quantity'),
    description: t.exposeString('description', { nullable: true }),
  }),
});

const PaymentLinkRef = builder.objectRef<PaymentLinkView>('PaymentLink').implement({
  description: 'A page on the checkout origin that makes an ordinary transaction for each customer who fills it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    organizationId: t.exposeID('organizationId'),
    name: t.exposeString('name'),
    url: t.exposeString('url', { description: 'The page to share (checkout origin).' }),
    qrCodeUrl: t.exposeString('qrCodeUrl', { description: 'An SVG QR code of url, drawn by the gateway.' }),
    status: t.field({ type: PaymentLinkStatusEnum, resolve: (link) => link.status }),
    amount: t.field({
      type: 'SafeInt',
      description: 'XOF, what each payment is for (before customer-side fees).',
      resolve: (link) => toWireAmount(link.amount),
    }),
    products: t.field({ type: [PaymentLinkProductRef], resolve: (link) => link.products }),
    methodOfPayment: t.field({ type: [PaymentMethodEnum], resolve: (link) => link.methodOfPayment }),
    singleUse: t.exposeBoolean('singleUse'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    successUrl: t.exposeString('successUrl', { nullable: true }),
    errorUrl: t.exposeString('errorUrl', { nullable: true }),
    feesCustomerSide: t.exposeBoolean('feesCustomerSide'),
    deactivatedAt: t.expose('deactivatedAt', { type: 'DateTime', nullable: true }),
    paidCount: t.exposeInt('paidCount', { description: 'Its transactions paid now (refunded ones are not counted).' }),
    paidAmount: t.field({ type: 'SafeInt', description: 'XOF, their amounts summed.', resolve: (link) => toWireAmount(link.paidAmount) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    transactions: t.field({
      type: TransactionPageRef,
      description: 'The transactions its page made, newest first (its payments among them): for callers who may read transactions.',
      authScopes: { run: 'listTransactions' },
      complexity: pageComplexity,
      args: { page: t.arg.int(), limit: t.arg.int() },
      resolve: async (link, { page, limit }, ctx) => {
        const list = await PAYMENT_LINK_READS.linkTransactions(ctx.gateway, authorizeRead(ctx.caller, 'listTransactions', link.organizationId), link.id, {
          page: orUndefined(page),
          limit: orUndefined(limit),
        });
        return { ...list, hasMore: list.page < list.totalPages };
      },
    }),
  }),
});

const PaymentLinkConnectionRef = countedConnection(PaymentLinkRef, 'PaymentLink', 'payment links');

const PaymentLinkProductInput = builder.inputType('PaymentLinkProductInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    price: t.field({ type: 'SafeInt', required: true, description: 'Unit price, XOF' }),
    quantity: t.int({ required: true }),
    description: t.string(),
  }),
});

const CreatePaymentLinkInput = builder.inputType('CreatePaymentLinkInput', {
  description: 'Give either products or amount.',
  fields: (t) => ({
    name: t.string({ required: true }),
    products: t.field({ type: [PaymentLinkProductInput] }),
    amount: t.field({ type: 'SafeInt', description: 'A fixed amount, XOF.' }),
    methodOfPayment: t.field({ type: [PaymentMethodEnum], description: 'Default: every method the organisation may use.' }),
    singleUse: t.boolean(),
    expiresAt: t.field({ type: 'DateTime' }),
    successUrl: t.string(),
    errorUrl: t.string(),
    feesCustomerSide: t.boolean(),
  }),
});

builder.queryField('paymentLink', (t) =>
  t.field({
    type: PaymentLinkRef,
    description: 'One payment link: of the caller’s organisation (scopes: checkout, read, write, readAndWrite), or of any for operators.',
    authScopes: { run: 'getPaymentLink' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => getPaymentLink(ctx.gateway, authorizeRead(ctx.caller, 'getPaymentLink'), String(id)),
  }),
);

builder.queryField('paymentLinks', (t) =>
  t.connection(
    {
      type: PaymentLinkRef,
      description:
        'Payment links, newest first, as a Relay connection: the caller’s organisation’s; operators read every organisation’s, or one with organizationId. search: the link’s name or id, or a transaction it made (order id, the customer’s phone in any writing, name, a provider’s reference).',
      authScopes: { run: 'listPaymentLinks' },
      complexity: pageComplexity,
      args: { status: t.arg({ type: PaymentLinkStatusEnum }), search: t.arg.string(), organizationId: t.arg.id() },
      resolve: async (_root, args, ctx) => {
        const access = authorizeRead(ctx.caller, 'listPaymentLinks', organizationIdOf(args.organizationId));
        let totalCount = 0;
        const connection = await resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, async ({ offset, limit }) => {
          const list = await PAYMENT_LINK_READS.listPaymentLinks(ctx.gateway, access, {
            status: orUndefined(args.status),
            search: orUndefined(args.search),
            offset,
            limit,
          });
          totalCount = list.totalCount;
          return list.items;
        });
        return { ...connection, totalCount };
      },
    },
    PaymentLinkConnectionRef,
  ),
);

builder.mutationField('createPaymentLink', (t) =>
  t.field({
    type: PaymentLinkRef,
    description:
      'Makes a payment link (scopes: checkout, write, readAndWrite; dashboard: owner, operations): products or a fixed amount, methods, single use or reusable, an optional expiry and redirect URLs. The transaction it will make is checked now, by the same rules as createTransaction.',
    authScopes: { run: 'createPaymentLink' },
    args: { input: t.arg({ type: CreatePaymentLinkInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      createPaymentLink(ctx.gateway, authorizeMerchant(ctx.caller, 'createPaymentLink'), {
        name: input.name,
        products: input.products?.map((product) => ({ ...product, description: product.description ?? null })) ?? null,
        amount: input.amount ?? null,
        methodOfPayment: input.methodOfPayment ?? null,
        singleUse: input.singleUse ?? null,
        expiresAt: input.expiresAt ?? null,
        successUrl: input.successUrl ?? null,
        errorUrl: input.errorUrl ?? null,
        feesCustomerSide: input.feesCustomerSide ?? null,
      }),
  }),
);

builder.mutationField('deactivatePaymentLink', (t) =>
  t.field({
    type: PaymentLinkRef,
    description: 'The link takes no more payments (its page answers 410); the transactions it made are untouched.',
    authScopes: { run: 'deactivatePaymentLink' },
    args: { id: t.arg.id({ required: true }) },
    // authorizeRead: a merchant's own organisation (its write refusals included), or any for an admin.
    resolve: (_root, { id }, ctx) => deactivatePaymentLink(ctx.gateway, authorizeRead(ctx.caller, 'deactivatePaymentLink'), String(id)),
  }),
);
