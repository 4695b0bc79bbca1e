/**
 * The events a webhook endpoint may subscribe to (docs/webhooks.md#events). `payment_status` is
 * the spec's, and the default: an endpoint that chose nothing receives exactly what endpoints
 * received before events existed. The others carry a v2 body with an `event` field (bodies.ts).
 */
import { DomainError } from '../errors.js';

const WEBHOOK_EVENTS = ['payment_status', 'payout_status', 'refund_status', 'payout_batch_status'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['payment_status'];

const isWebhookEvent = (value: string): value is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(value);

/** The events asked for, de-duplicated in the catalogue's order; none given: the default. An empty or unknown choice is a 400. */
export function parseWebhookEvents(events: readonly string[] | null | undefined): WebhookEvent[] {
  if (events === null || events === undefined) return [...DEFAULT_WEBHOOK_EVENTS];
  const asked = events.map((event) => event.trim());
  const unknown = asked.filter((event) => !isWebhookEvent(event));
  if (unknown.length > 0) throw new DomainError('invalid_input', `unknown webhook event ${JSON.stringify(unknown[0])}: one of ${WEBHOOK_EVENTS.join(', ')}`);
  if (asked.length === 0) throw new DomainError('invalid_input', `events must name at least one of ${WEBHOOK_EVENTS.join(', ')}`);
  return WEBHOOK_EVENTS.filter((event) => asked.includes(event));
}
