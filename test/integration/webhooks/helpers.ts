/** Steps shared by the webhook tests (not a test file itself). */
import { expect } from 'vitest';
import type { Caller } from '../../../src/domain/auth.js';
import { createWebhook, payTransaction } from '../../../src/domain/operations/index.js';
import type { TestGateway } from '../../support/gateway.js';
import type { WebhookReceiver } from '../../support/webhookReceiver.js';
import { pendingTransaction, type CreateOptions } from '../accounts/helpers.js';

/** A merchant (escrow allowed) and a webhook of `version` on `path` of the receiver, its secret known to the receiver. */
export async function merchantWithWebhook(gateway: TestGateway, receiver: WebhookReceiver, path: string, version: 'v1' | 'v2' = 'v2') {
  const { organization, key } = await gateway.merchant({ scope: 'readAndWrite', escrowEnabled: true, verified: true });
  const webhook = await addWebhook(gateway, receiver, organization.id, path, version);
  return { organization, key, webhook };
}

export async function addWebhook(gateway: TestGateway, receiver: WebhookReceiver, organizationId: string, path: string, version: 'v1' | 'v2' = 'v2', caller: Caller = gateway.operator) {
  const issued = await createWebhook(gateway.ctx, caller, { organizationId, url: `${receiver.url}${path}`, version });
  receiver.configure(path, { secret: issued.secret });
  return issued;
}

/** A transaction created through REST v2 and paid through the real checkout operation (as the customer). */
export async function paidTransaction(gateway: TestGateway, key: string, options: CreateOptions = {}) {
  const orderId = await pendingTransaction(gateway, key, options);
  const paid = await payTransaction(gateway.ctx, { kind: 'customer' }, orderId, { method: 'wave', phone: '+221770000001' });
  expect(paid.outcome).toBe('paid');
  return paid.transaction;
}

export const deliveriesOf = (gateway: TestGateway, transactionId: string) =>
  gateway.ctx.db.webhookDelivery.findMany({ where: { transactionId }, include: { attempts: { orderBy: { number: 'asc' } } }, orderBy: { createdAt: 'asc' } });
