/** An organisation's active webhooks (operators: any organisation's, or all), newest first. */
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { MAX_WEBHOOKS_PER_ORGANIZATION, webhookScope } from './access.js';
import { listActiveWebhooks, type WebhookRecord } from './store.js';

/** All organisations' at once (operators) is capped: a bounded answer. */
const MAX_LISTED_WEBHOOKS = 100;

export async function listWebhooks(ctx: GatewayContext, caller: Caller, organizationId?: string | null): Promise<WebhookRecord[]> {
  const scope = webhookScope(caller, 'listWebhooks', organizationId);
  return listActiveWebhooks(ctx.db, scope, scope ? MAX_WEBHOOKS_PER_ORGANIZATION : MAX_LISTED_WEBHOOKS);
}
