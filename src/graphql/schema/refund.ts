/**
 * Refunds: the same operation as REST v2's GET /refund/{order_id}, for merchants (API keys with
 * scope checkout, write, readAndWrite or management). Answers the refunded transaction.
 */
import { authorizeMerchant } from '../../domain/access/auth.js';
import { refundTransaction } from '../../domain/operations.js';
import { builder } from '../builder.js';
import { announcingReplays, idempotencyKeyOf } from '../idempotency.js';
import { TransactionRef } from './transaction.js';

builder.mutationField('refundTransaction', (t) =>
  t.field({
    type: TransactionRef,
    description:
      'Refunds a paid transaction in full through the method the customer used (scopes: checkout, write, readAndWrite, management); main is debited by the amount, fees are not returned. With an idempotency key (argument or Idempotency-Key header), a retry replays the first answer, as REST does. After REFUND_FAILED or REFUND_UNCONFIRMED, read the transaction before trying again.',
    args: { orderId: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, { orderId, idempotencyKey }, ctx) => {
      const access = authorizeMerchant(ctx.caller, 'refundTransaction');
      const options = { idempotencyKey: idempotencyKeyOf(ctx, idempotencyKey) };
      return announcingReplays(ctx, () => refundTransaction(ctx.gateway, access, String(orderId), options));
    },
  }),
);
