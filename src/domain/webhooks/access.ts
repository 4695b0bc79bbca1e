/**
 * Who manages an organisation's webhooks (the access policy's rows): operators by role, and the
 * organisation itself through an API key with the `management` scope (the spec's dashboard is
 * where merchants register webhooks; this is its API). Another organisation's webhook or delivery
 * answers like a missing one.
 */
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf, type Operation } from '../access/policy.js';

export type WebhookOperation = Extract<
  Operation,
  | 'listWebhooks'
  | 'listWebhookDeliveries'
  | 'createWebhook'
  | 'rotateWebhookSecret'
  | 'deleteWebhook'
  | 'redeliverWebhook'
  | 'sendTestWebhook'
  | 'redeliverFailedWebhooks'
>;
/** Endpoints per organisation: a bound on the fan-out of each event. */
export const MAX_WEBHOOKS_PER_ORGANIZATION = 10;

/**
 * The organisation the caller acts on, once the one access policy allows `operation`: a
 * merchant's own (naming another one is refused), or the one an operator names (null = all, for
 * reads).
 */
export function webhookScope(caller: Caller, operation: WebhookOperation, organizationId?: string | null): string | null {
  authorize(caller, operation);
  return organizationOf(caller, organizationId);
}
