/** REST v2 payout batch routes (an extension: docs/payouts.md#batch-payouts): parse the v2 shape, call the operation, render it. */
import { cancelPayoutBatch, createPayoutBatch, getPayoutBatch, listPayoutBatchItems, startPayoutBatch } from '../../domain/operations.js';
import { DomainError } from '../../domain/errors.js';
import { toWireAmount } from '../../domain/money.js';
import { wireBatch } from '../../domain/payoutBatches/batches.js';
import type { BatchLineInput } from '../../domain/payoutBatches/rules.js';
import type { BatchItemRow } from '../../domain/payoutBatches/store.js';
import { parseJsonObject, type JsonObject } from '../body.js';
import { bind } from '../pipeline.js';
import { queryInteger, queryString } from '../query.js';
import { pagination } from './shapes.js';

/** 5,000 items of ~250 bytes each, with room: the one route allowed past the server's 100 kB. */
const MAX_BATCH_BODY_BYTES = 2 * 1024 * 1024;

/** The body's shape (an object with an array of objects); each line's values are the domain's rules, refused per line. */
function parseItems(raw: unknown): BatchLineInput[] {
  const body = parseJsonObject(raw, 'invalid_request');
  if (!Array.isArray(body.items)) throw new DomainError('invalid_request_body', 'items must be an array of payouts');
  return body.items.map((value: unknown): BatchLineInput => {
    const item = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as JsonObject;
    const recipient = (item.recipient && typeof item.recipient === 'object' ? item.recipient : {}) as JsonObject;
    return {
      selectedPaymentMethod: item.selected_payment_method,
      amount: item.amount,
      recipient: { firstName: recipient.first_name, lastName: recipient.last_name, phone: recipient.phone },
      reason: item.reason,
      reference: item.reference,
    };
  });
}

function wireBatchItem(item: BatchItemRow) {
  return {
    line: item.line,
    order_id: item.payoutId,
    payout_status: item.payoutStatus,
    amount: toWireAmount(item.amount),
    fees: toWireAmount(item.fee),
    recipient: { first_name: item.recipientFirstName ?? '', last_name: item.recipientLastName ?? '', phone: item.recipientPhone },
    reason: item.reason,
    reference: item.reference,
    failure_reason: item.reasonFailed,
  };
}

export const payoutBatchRoutes = {
  createPayoutBatch: bind({
    operation: 'createPayoutBatch',
    bodyLimit: MAX_BATCH_BODY_BYTES,
    handle: async (ctx, access, { body, idempotencyKey }) => {
      const { value, replayed } = await createPayoutBatch(ctx, access, { items: parseItems(body) }, { idempotencyKey });
      return { body: wireBatch(value), replayed };
    },
  }),
  getPayoutBatch: bind({
    operation: 'getPayoutBatch',
    handle: async (ctx, access, { params }) => ({ body: wireBatch(await getPayoutBatch(ctx, access, params.id ?? '')) }),
  }),
  startPayoutBatch: bind({
    operation: 'startPayoutBatch',
    handle: async (ctx, access, { params, body }) => {
      const options = body === undefined || body === null || body === '' ? {} : parseJsonObject(body);
      if (options.skip_invalid_lines !== undefined && typeof options.skip_invalid_lines !== 'boolean')
        throw new DomainError('invalid_request_body', 'skip_invalid_lines must be a boolean');
      return { body: wireBatch(await startPayoutBatch(ctx, access, params.id ?? '', { skipInvalidLines: options.skip_invalid_lines === true })) };
    },
  }),
  cancelPayoutBatch: bind({
    operation: 'cancelPayoutBatch',
    handle: async (ctx, access, { params }) => ({ body: wireBatch(await cancelPayoutBatch(ctx, access, params.id ?? '')) }),
  }),
  listPayoutBatchItems: bind({
    operation: 'listPayoutBatchItems',
    handle: async (ctx, access, { params, query }) => {
      const page = await listPayoutBatchItems(ctx, access, params.id ?? '', {
        page: queryInteger(query, 'page'),
        limit: queryInteger(query, 'limit'),
        status: queryString(query, 'status'),
      });
      return { body: { items: page.items.map(wireBatchItem), pagination: pagination(page) } };
    },
  }),
};
