/**
 * The delivery log: deliveries newest first, each with its attempts (time, status code or error,
 * duration, the start of the answer). Merchants see their organisation's, operators anyone's;
 * filtered by webhook and/or transaction (order id).
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { webhookScope } from './access.js';
import { listDeliveries, type DeliveryRecord } from './store.js';

export const MAX_LISTED_DELIVERIES = 100;
/** Attempts shown per delivery: 1 + WEBHOOK_MAX_RETRIES per round, a few redeliveries. */
export const MAX_LISTED_ATTEMPTS = 50;

export interface ListWebhookDeliveriesInput {
  organizationId?: string | null;
  webhookId?: string | null;
  orderId?: string | null;
  limit?: number | null;
}

export async function listWebhookDeliveries(ctx: GatewayContext, caller: Caller, input: ListWebhookDeliveriesInput = {}): Promise<DeliveryRecord[]> {
  const organizationId = webhookScope(caller, 'listWebhookDeliveries', input.organizationId);
  const limit = input.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1) throw new DomainError('invalid_input', 'limit must be a positive integer');
  // An id that cannot exist matches nothing.
  if ((input.webhookId && !isUuid(input.webhookId)) || (input.orderId && !isUuid(input.orderId))) return [];
  const filter = { organizationId, webhookId: input.webhookId, transactionId: input.orderId };
  return listDeliveries(ctx.db, filter, Math.min(limit, MAX_LISTED_DELIVERIES), MAX_LISTED_ATTEMPTS);
}
