/** REST v2 refund route: GET /refund/{order_id} (a write, despite its verb). */
import { refundTransaction } from '../../domain/operations.js';
import { bind } from '../pipeline.js';

export const REFUNDED_MESSAGE = 'Transaction refunded successfully';

export const refundRoutes = {
  refundTransaction: bind({
    operation: 'refundTransaction',
    handle: async (ctx, access, { params, idempotencyKey }) => {
      const { replayed } = await refundTransaction(ctx, access, params.order_id ?? '', { idempotencyKey });
      return { body: { message: REFUNDED_MESSAGE }, replayed };
    },
  }),
};
