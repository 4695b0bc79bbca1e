/**
 * Registers a webhook endpoint for an organisation (several allowed): URL checked (http(s), no
 * private targets unless allowed), version v2 unless v1 is asked, the events it is sent
 * (`payment_status` unless others are chosen), a new secret returned here and
 * never again (stored encrypted).
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findOrganization } from '../organizations/organizations.js';
import { MAX_WEBHOOKS_PER_ORGANIZATION, webhookScope } from './access.js';
import { checkWebhookUrl } from './addresses.js';
import { encryptWebhookSecret, generateWebhookSecret } from './secrets.js';
import { parseWebhookEvents } from './events.js';
import { webhookSettingsOf } from './settings.js';
import { countActiveWebhooks, insertWebhook, type WebhookRecord } from './store.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';

export interface CreateWebhookInput {
  /** Required for operators; a merchant's own organisation otherwise. */
  organizationId?: string | null;
  url: string;
  version?: string | null;
  /** The events to send it (events.ts); none: `payment_status` only. */
  events?: readonly string[] | null;
}

export interface IssuedWebhook {
  webhook: WebhookRecord;
  /** Shown once. */
  secret: string;
}

export async function createWebhook(ctx: GatewayContext, caller: Caller, input: CreateWebhookInput): Promise<IssuedWebhook> {
  const organizationId = webhookScope(caller, 'createWebhook', input.organizationId);
  if (!organizationId) throw new DomainError('invalid_input', 'organizationId is required');
  const version = input.version ?? 'v2';
  if (version !== 'v1' && version !== 'v2') throw new DomainError('invalid_input', 'version must be v1 or v2');
  const events = parseWebhookEvents(input.events);
  const settings = webhookSettingsOf(ctx);
  const url = await checkWebhookUrl(input.url, settings.allowPrivateUrls);
  await findOrganization(ctx.db, organizationId);
  const active = await countActiveWebhooks(ctx.db, organizationId);
  if (active >= MAX_WEBHOOKS_PER_ORGANIZATION) throw new DomainError('too_many_webhooks', String(MAX_WEBHOOKS_PER_ORGANIZATION));
  const id = randomUUID();
  const secret = generateWebhookSecret();
  const owner = organizationId;
  const webhook = await ctx.db.$transaction(async (tx) => {
    const created = await insertWebhook(tx, {
      id,
      organizationId: owner,
      url,
      version,
      encryptedSecret: encryptWebhookSecret(settings.secretKey, id, secret),
      events,
    });
    await recordAuditEvent(tx, { organizationId: owner, actor: caller, action: 'webhook.created', target: id, details: { url, version, events } });
    return created;
  });
  return { webhook, secret };
}
