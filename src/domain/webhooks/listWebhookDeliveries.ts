/**
 * The delivery log: deliveries newest first, each with its attempts (time, status code or error,
 * duration, the start of the answer, the signature sent) and the exact body sent. Merchants see
 * their organisation's, operators anyone's (or one organisation's); filtered by webhook, order,
 * status and creation time; read by keyset slices (Relay connections).
 */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { keysetPageOf, type KeysetSlice } from '../cursors.js';
import { WEBHOOK_DELIVERY_STATUSES, isOneOf } from '../enums.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { DEFAULT_PAGE_SIZE } from '../pagination.js';
import { webhookScope } from './access.js';
import { listDeliveriesSlice, type DeliveryRecord } from './store.js';

/** Deliveries in one slice at most (above it the size is capped, as list pages are). */
export const MAX_LISTED_DELIVERIES = 100;
/** Attempts shown per delivery: 1 + WEBHOOK_MAX_RETRIES per round, a few redeliveries. */
export const MAX_LISTED_ATTEMPTS = 50;

export interface ListWebhookDeliveriesInput {
  organizationId?: string | null;
  webhookId?: string | null;
  orderId?: string | null;
  /** pending | delivered | dropped (failed: every attempt failed). */
  status?: string | null;
  /** Created at or after. */
  since?: Date | null;
  /** Default: the newest DEFAULT_PAGE_SIZE. */
  slice?: KeysetSlice;
}

export interface DeliveryLogSlice {
  items: DeliveryRecord[];
  hasMore: boolean;
  totalCount: number;
}

export async function listWebhookDeliveries(ctx: GatewayContext, caller: Caller, input: ListWebhookDeliveriesInput = {}): Promise<DeliveryLogSlice> {
  const organizationId = webhookScope(caller, 'listWebhookDeliveries', input.organizationId);
  if (input.status != null && !isOneOf(WEBHOOK_DELIVERY_STATUSES, input.status)) {
    throw new DomainError('invalid_input', `status must be one of ${WEBHOOK_DELIVERY_STATUSES.join(', ')}`);
  }
  // An id that cannot exist matches nothing.
  if ((input.webhookId && !isUuid(input.webhookId)) || (input.orderId && !isUuid(input.orderId))) return { items: [], hasMore: false, totalCount: 0 };
  const filter = { organizationId, webhookId: input.webhookId, transactionId: input.orderId, status: input.status ?? null, since: input.since ?? null };
  const asked = input.slice ?? { direction: 'forward', position: null, limit: DEFAULT_PAGE_SIZE };
  const slice = { ...asked, limit: Math.min(asked.limit, MAX_LISTED_DELIVERIES) };
  const { items, totalCount } = await listDeliveriesSlice(ctx.db, filter, slice, MAX_LISTED_ATTEMPTS);
  return { ...keysetPageOf(items, slice), totalCount };
}
