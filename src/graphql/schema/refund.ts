/**
 * Refunds: the same operation as REST v2's GET /refund/{order_id}, for merchants (API keys with
 * scope checkout, write, readAndWrite or management). Answers the refunded transaction.
 */
import { authorizeMerchant } from '../../domain/access/auth.js';
import { toWireAmount } from '../../domain/money.js';
import { refundTransaction } from '../../domain/operations.js';
import { RefundStatus } from '../../generated/prisma/enums.js';
import { builder } from '../builder.js';
import { announcingReplays, idempotencyKeyOf } from '../idempotency.js';
import { PaymentMethodEnum } from './enums.js';
import { TransactionRef } from './transaction.js';

builder.mutationField('refundTransaction', (t) =>
  t.field({
    type: TransactionRef,
    description:
      'Refunds a paid transaction in full through the method the customer used (scopes: checkout, write, readAndWrite, management); main is debited by the amount, fees are not returned. With an idempotency key (argument or Idempotency-Key header), a retry replays the first answer, as REST does. After REFUND_FAILED or REFUND_UNCONFIRMED, read the transaction before trying again.',
    authScopes: { run: 'refundTransaction' },
    args: { orderId: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, { orderId, idempotencyKey }, ctx) => {
      const access = authorizeMerchant(ctx.caller, 'refundTransaction');
      const options = { idempotencyKey: idempotencyKeyOf(ctx, idempotencyKey) };
      return announcingReplays(ctx, () => refundTransaction(ctx.gateway, access, String(orderId), options));
    },
  }),
);

const RefundStatusEnum = builder.enumType('RefundStatus', { values: Object.values(RefundStatus) });

builder.prismaObject('Refund', {
  description: 'The refund of a transaction (one at most, in full): what was sent back, through which method, and how it went.',
  fields: (t) => ({
    id: t.exposeID('id'),
    amount: t.field({ type: 'SafeInt', description: 'XOF returned to the customer', resolve: (refund) => toWireAmount(refund.amount) }),
    method: t.field({ type: PaymentMethodEnum, resolve: (refund) => refund.method }),
    status: t.field({ type: RefundStatusEnum, resolve: (refund) => refund.status }),
    failureReason: t.exposeString('failureReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

// A transaction's refund is part of reading the transaction.
builder.prismaObjectField('Transaction', 'refund', (t) =>
  t.relation('refund', { nullable: true, description: 'Its refund, once one was asked for.', authScopes: { run: 'getTransaction' } }),
);
