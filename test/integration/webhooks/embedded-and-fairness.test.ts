/**
 * The embedded default (PGlite, in-process scheduler) delivers and retries like PostgreSQL + Redis,
 * and a slow receiver holds only its own endpoint's slots: another merchant's delivery goes out
 * while it hangs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher, type Dispatcher } from '../../../src/webhooks/dispatcher.js';
import { useGateway } from '../../support/gateway.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver.js';
import { deliveriesOf, merchantWithWebhook, paidTransaction } from './helpers.js';

const gateway = useGateway({ embedded: true, webhooks: { allowPrivateUrls: true, retryDelayMs: 100, maxRetries: 2, timeoutMs: 10_000 } });
let receiver: WebhookReceiver;
let dispatcher: Dispatcher;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20, maxConcurrency: 8, perEndpointConcurrency: 2 });
});
afterAll(async () => {
  // The receiver first: its hanging answers end at once instead of holding the dispatcher's stop.
  await receiver?.close();
  await dispatcher?.stop();
});

describe('webhooks on the embedded database', () => {
  it('delivers, retrying a failure through the in-process scheduler', async () => {
    const { key } = await merchantWithWebhook(gateway, receiver, '/embedded');
    receiver.configure('/embedded', { behaviour: { statuses: [500, 200] } });
    const paid = await paidTransaction(gateway, key);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(gateway, paid.id);
      return rows[0]?.status === 'delivered' ? rows : null;
    });
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
    expect(receiver.on('/embedded').every((request) => request.signatureValid)).toBe(true);
  });

  it('lets a slow receiver hold only its own slots: another merchant is served meanwhile', async () => {
    const slow = await merchantWithWebhook(gateway, receiver, '/slow-merchant');
    receiver.configure('/slow-merchant', { behaviour: { delayMs: 8_000 } });
    await Promise.all(Array.from({ length: 6 }, () => paidTransaction(gateway, slow.key)));
    await eventually(() => receiver.on('/slow-merchant').length >= 2);

    const fast = await merchantWithWebhook(gateway, receiver, '/fast-merchant');
    const started = Date.now();
    await paidTransaction(gateway, fast.key);
    const [fastArrival] = await eventually(() => (receiver.on('/fast-merchant').length === 1 ? receiver.on('/fast-merchant') : null), 5_000, 'the other merchant’s delivery');
    expect(fastArrival!.at - started).toBeLessThan(3_000);
    // Two at a time for the slow endpoint, never more: none of its first two had been answered.
    expect(receiver.on('/slow-merchant').filter((request) => request.at <= fastArrival!.at)).toHaveLength(2);
  });
});
