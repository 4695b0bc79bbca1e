/**
 * The embedded default (PGlite, in-process scheduler) delivers and retries like PostgreSQL + Redis,
 * and a slow receiver holds only its own endpoint's slots: another merchant's delivery goes out
 * while it hangs.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { eventually } from '../../support/webhookReceiver.js';
import { deliveredDeliveries, merchantWithWebhook, paidTransaction, useDispatching } from '../../support/webhooks.js';

const gateway = useGateway({ embedded: true, webhooks: { allowPrivateUrls: true, retryDelayMs: 100, maxRetries: 2, timeoutMs: 10_000 } });
const delivering = useDispatching(gateway, { maxConcurrency: 8, perEndpointConcurrency: 2 });

describe('webhooks on the embedded database', () => {
  it('delivers, retrying a failure through the in-process scheduler', async () => {
    const { key } = await merchantWithWebhook(gateway, delivering.receiver, '/embedded');
    delivering.receiver.configure('/embedded', { behaviour: { statuses: [500, 200] } });
    const paid = await paidTransaction(gateway, key);
    const [delivery] = await deliveredDeliveries(gateway, paid.id);
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
    expect(delivering.receiver.on('/embedded').every((request) => request.signatureValid)).toBe(true);
  });

  it('lets a slow delivering.receiver hold only its own slots: another merchant is served meanwhile', async () => {
    const slow = await merchantWithWebhook(gateway, delivering.receiver, '/slow-merchant');
    delivering.receiver.configure('/slow-merchant', { behaviour: { delayMs: 8_000 } });
    await Promise.all(Array.from({ length: 6 }, () => paidTransaction(gateway, slow.key)));
    await eventually(() => delivering.receiver.on('/slow-merchant').length >= 2);

    const fast = await merchantWithWebhook(gateway, delivering.receiver, '/fast-merchant');
    const started = Date.now();
    await paidTransaction(gateway, fast.key);
    const [fastArrival] = await eventually(
      () => (delivering.receiver.on('/fast-merchant').length === 1 ? delivering.receiver.on('/fast-merchant') : null),
      5_000,
      'the other merchant’s delivery',
    );
    expect(fastArrival!.at - started).toBeLessThan(3_000);
    // Two at a time for the slow endpoint, never more: none of its first two had been answered.
    expect(delivering.receiver.on('/slow-merchant').filter((request) => request.at <= fastArrival!.at)).toHaveLength(2);
  });
});
