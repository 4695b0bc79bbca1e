/**
 * Slow receivers with backlogs cannot starve another merchant, even when there are enough of them
 * to fill every slot (overall / per endpoint = 4 here): the other merchant's delivery is claimed
 * (slow endpoints hold only two rounds each) and takes the first slot that frees (the least busy
 * endpoint goes first). Before both rules it waited for the slow backlogs: 8 rounds, ~12 s here.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { eventually } from '../../support/webhookReceiver.js';
import { addWebhook, merchantWithWebhook, paidTransaction, useDispatching } from '../../support/webhooks.js';

const SLOW_ANSWER_MS = 1_500;
const gateway = useGateway({ webhooks: { allowPrivateUrls: true, timeoutMs: 10_000 } });
const delivering = useDispatching(gateway, { maxConcurrency: 8, perEndpointConcurrency: 2 });

describe('four slow endpoints with backlogs, every slot theirs', () => {
  it('another merchant’s delivery still goes out with the first slot that frees', async () => {
    const slowPaths = ['/slow-1', '/slow-2', '/slow-3', '/slow-4'];
    const slow = await merchantWithWebhook(gateway, delivering.receiver, slowPaths[0]!);
    for (const path of slowPaths.slice(1)) await addWebhook(gateway, delivering.receiver, slow.organization.id, path);
    for (const path of slowPaths) delivering.receiver.configure(path, { behaviour: { delayMs: SLOW_ANSWER_MS } });
    // 16 payments: 16 deliveries per slow endpoint, 8 rounds of its 2 slots.
    for (let i = 0; i < 16; i++) await paidTransaction(gateway, slow.key);
    const slowArrivals = () => slowPaths.flatMap((path) => delivering.receiver.on(path));
    await eventually(() => slowArrivals().length >= 8, 5_000, 'every slot taken by the slow endpoints');

    const other = await merchantWithWebhook(gateway, delivering.receiver, '/other-merchant');
    const started = Date.now();
    await paidTransaction(gateway, other.key);
    const [arrival] = await eventually(
      () => (delivering.receiver.on('/other-merchant').length === 1 ? delivering.receiver.on('/other-merchant') : null),
      15_000,
      'the other merchant’s delivery',
    );
    // One slow answer frees a slot (<= 1.5 s), with room for a busy machine; not 8 rounds (12 s).
    expect(arrival!.at - started).toBeLessThan(SLOW_ANSWER_MS + 2_500);
    // The slow endpoints were still busy: their backlogs were far from drained.
    expect(slowArrivals().filter((request) => request.at <= arrival!.at).length).toBeLessThan(32);
  });
});
