/**
 * The headers of a webhook delivery, in one place: the dispatcher sends them with every attempt,
 * and `gateway listen` (src/cli/listen.ts) forwards events to a developer's machine with the very
 * same ones, so a receiver tested against `listen` reads a real delivery the same way.
 */
import { signWebhookBody } from './secrets.js';

const WEBHOOK_USER_AGENT = 'xof-gateway-webhooks/1';

export interface DeliveryHeaderValues {
  /** The signing secret: X-Signature is computed here, over exactly `body`. */
  secret: string;
  /** The exact bytes sent. */
  body: Buffer;
  /** The same for every endpoint of one event and for its redeliveries (receivers de-duplicate by it). */
  eventId: string;
  /** `payment_status`, or `test` (sendTestWebhook). */
  event: string;
  eventAt: Date;
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
}

export function deliveryHeaders({ secret, body, eventId, event, eventAt, deliveryId, attempt }: DeliveryHeaderValues): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-signature': signWebhookBody(secret, body),
    'x-event-id': eventId,
    'x-event-type': event,
    'x-event-timestamp': eventAt.toISOString(),
    'x-delivery-id': deliveryId,
    'x-delivery-attempt': String(attempt),
  };
}
