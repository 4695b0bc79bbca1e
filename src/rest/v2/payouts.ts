/** REST v2 payout routes: parse the v2 shape, call the operation, render the v2 shape. */
import { createPayout, getPayout, listPayouts } from '../../domain/operations.js';
import type { CreatePayoutInput } from '../../domain/payouts/createPayout.js';
import type { ListPayoutsInput } from '../../domain/payouts/listPayouts.js';
import { DomainError } from '../../domain/errors.js';
import { parsePaymentMethod } from '../../domain/paymentMethods.js';
import { parsePayoutStatus } from '../../domain/payouts/payouts.js';
import { parseJsonObject, type JsonObject } from '../body.js';
import { bind } from '../pipeline.js';
import { queryBoolean, queryDate, queryEnum, queryInteger, queryString, type Query } from '../query.js';
import { pagination, payoutCreated, payoutRead } from './shapes.js';

const present = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * The body's SHAPE (types, required fields), every problem at once: the spec's 400 is
 * `Invalid request body` followed by the list of missing or invalid fields (and `Invalid request`
 * for a body that is not a JSON object at all). Values (method name,
 * amount > 10, phone format) are the domain's rules.
 */
function parseCreatePayoutBody(raw: unknown): CreatePayoutInput {
  const body = parseJsonObject(raw, 'invalid_request');
  const problems: string[] = [];
  const text = (object: JsonObject, key: string, path: string, required: boolean): string | undefined => {
    const value = object[key];
    if (!present(value)) {
      if (required) problems.push(`${path} is required`);
      return undefined;
    }
    if (typeof value === 'string') return value;
    problems.push(`${path} must be a string`);
    return undefined;
  };
  const method = text(body, 'selected_payment_method', 'selected_payment_method', true);
  const amount = body.amount;
  if (!present(amount)) problems.push('amount is required');
  else if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) problems.push('amount must be an integer');
  const recipient = body.recipient;
  let person: JsonObject | undefined;
  if (!present(recipient)) problems.push('recipient is required');
  else if (typeof recipient !== 'object' || Array.isArray(recipient)) problems.push('recipient must be an object');
  else person = recipient as JsonObject;
  const firstName = person && text(person, 'first_name', 'recipient.first_name', false);
  const lastName = person && text(person, 'last_name', 'recipient.last_name', false);
  const phone = person && text(person, 'phone', 'recipient.phone', true);
  const reason = text(body, 'reason', 'reason', false);
  if (problems.length) throw new DomainError('invalid_request_body', problems.join(', '));
  return { selectedPaymentMethod: method!, amount: amount as number, recipient: { firstName, lastName, phone }, reason };
}

export function parseListPayoutsQuery(query: Query): ListPayoutsInput {
  return {
    page: queryInteger(query, 'page'),
    limit: queryInteger(query, 'limit'),
    status: queryEnum(query, 'status', parsePayoutStatus),
    paymentMethod: queryEnum(query, 'payment_method', parsePaymentMethod),
    recipientPhone: queryString(query, 'recipient_phone'),
    minAmount: queryInteger(query, 'min_amount'),
    maxAmount: queryInteger(query, 'max_amount'),
    startDate: queryDate(query, 'start_date', 'start'),
    endDate: queryDate(query, 'end_date', 'end'),
    includeDeleted: queryBoolean(query, 'include_deleted'),
    search: queryString(query, 'search'),
  };
}

export const payoutRoutes = {
  createPayout: bind({
    operation: 'createPayout',
    handle: async (ctx, access, { body, idempotencyKey }) => {
      const { value, replayed } = await createPayout(ctx, access, parseCreatePayoutBody(body), { idempotencyKey });
      return { body: payoutCreated(value), replayed };
    },
  }),

  getPayout: bind({
    operation: 'getPayout',
    handle: async (ctx, access, { params }) => ({ body: payoutRead(await getPayout(ctx, access, params.order_id ?? '')) }),
  }),

  listPayouts: bind({
    operation: 'listPayouts',
    handle: async (ctx, access, { query }) => {
      const page = await listPayouts(ctx, access, parseListPayoutsQuery(query));
      return { body: { payouts: page.items.map(payoutRead), pagination: pagination(page) } };
    },
  }),
};
