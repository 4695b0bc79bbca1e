/** Reading one webhook as a caller may see it. */
import type { Webhook } from '../../generated/prisma/client.js';
import type { Db } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { readWebhook } from './store.js';

/** A webhook of `organizationId` (null: any, for operators); deleted ones and others' answer not found. */
export async function findWebhook(db: Pick<Db, 'webhook'>, organizationId: string | null, webhookId: string): Promise<Webhook> {
  const webhook = isUuid(webhookId) ? await readWebhook(db, webhookId) : null;
  if (!webhook?.isActive || (organizationId && webhook.organizationId !== organizationId)) throw new DomainError('webhook_not_found');
  return webhook;
}
