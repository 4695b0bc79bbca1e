/** Steps shared by the webhook tests (not a test file itself). */
import { afterAll, beforeAll, expect } from 'vitest';
import type { Caller } from '../../src/domain/access/auth.js';
import { createWebhook, payTransaction } from '../../src/domain/operations.js';
import type { TestGateway } from './gateway.js';
import { startWebhookDispatcher, type Dispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from './webhookReceiver.js';
import { pendingTransaction, type CreateOptions } from './accounts.js';

/** A merchant (escrow allowed) and a webhook of `version` on `path` of the receiver, its secret known to the receiver. */
export async function merchantWithWebhook(gateway: TestGateway, receiver: WebhookReceiver, path: string, version: 'v1' | 'v2' = 'v2') {
  const { organization, key } = await gateway.merchant({ scope: 'readAndWrite', escrowEnabled: true, verified: true });
  const webhook = await addWebhook(gateway, receiver, organization.id, path, version);
  return { organization, key, webhook };
}

export async function addWebhook(
  gateway: TestGateway,
  receiver: WebhookReceiver,
  organizationId: string,
  path: string,
  version: 'v1' | 'v2' = 'v2',
  caller: Caller = gateway.operator,
) {
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

/**
 * A real receiver on 127.0.0.1 and the gateway's dispatcher, for one test file. Stopped receiver
 * first: its hanging answers then end at once instead of holding the dispatcher's stop.
 */
export function useDispatching(gateway: TestGateway, options: DispatcherOptions = {}) {
  let receiver: WebhookReceiver | undefined;
  let dispatcher: Dispatcher | undefined;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20, ...options });
  });
  afterAll(async () => {
    await receiver?.close();
    await dispatcher?.stop();
  });
  return {
    get receiver(): WebhookReceiver {
      return receiver!;
    },
    get dispatcher(): Dispatcher {
      return dispatcher!;
    },
  };
}

/** The transaction's deliveries once all of them are delivered (waits, bounded). */
export const deliveredDeliveries = (gateway: TestGateway, transactionId: string) =>
  eventually(async () => {
    const rows = await deliveriesOf(gateway, transactionId);
    return rows.length > 0 && rows.every((row) => row.status === 'delivered') ? rows : null;
  });
