/**
 * The webhook metrics on /metrics (src/webhooks/metrics.ts): the backlog gauge counts a due
 * delivery no dispatcher has taken yet, then attempts are counted by outcome (delivered, failed
 * with a retry scheduled, dropped after the last one) and timed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher, type Dispatcher } from '../../../src/webhooks/dispatcher.js';
import { useGateway } from '../../support/gateway.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver.js';
import { deliveriesOf, merchantWithWebhook, paidTransaction } from '../../support/webhooks.js';

const gateway = useGateway({ metrics: true, webhooks: { allowPrivateUrls: true, retryDelayMs: 100, maxRetries: 1, timeoutMs: 2_000 } });
let receiver: WebhookReceiver;
let dispatcher: Dispatcher | undefined;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
});

async function metrics(): Promise<string> {
  const response = await fetch(`${gateway.url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one series (name with its labels, as printed), or undefined when absent. */
const seriesValue = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('webhook metrics on /metrics', () => {
  it('shows the backlog, then attempts by outcome and their duration', async () => {
    const ok = await merchantWithWebhook(gateway, receiver, '/metrics/ok');
    const failing = await merchantWithWebhook(gateway, receiver, '/metrics/failing');
    receiver.configure('/metrics/failing', { behaviour: { statuses: [500] } });

    const before = await metrics();
    expect(seriesValue(before, 'webhook_deliveries_due')).toBe(0);
    for (const outcome of ['delivered', 'failed', 'dropped', 'superseded'])
      expect(seriesValue(before, `webhook_delivery_attempts_total{outcome="${outcome}"}`)).toBe(0);
    expect(seriesValue(before, 'webhook_delivery_duration_seconds_count')).toBe(0);

    // No dispatcher yet: both payments' deliveries wait in the outbox.
    const delivered = await paidTransaction(gateway, ok.key);
    const dropped = await paidTransaction(gateway, failing.key);
    expect(seriesValue(await metrics(), 'webhook_deliveries_due')).toBe(2);

    dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20 });
    await eventually(async () => (await deliveriesOf(gateway, delivered.id))[0]?.status === 'delivered', 10_000, 'the delivery');
    // 500, then the one retry (maxRetries: 1) answers 500 too: dropped.
    await eventually(async () => (await deliveriesOf(gateway, dropped.id))[0]?.status === 'dropped', 10_000, 'the drop');

    const after = await eventually(async () => {
      const text = await metrics();
      return seriesValue(text, 'webhook_delivery_attempts_total{outcome="dropped"}') === 1 ? text : null;
    });
    expect(seriesValue(after, 'webhook_delivery_attempts_total{outcome="delivered"}')).toBe(1);
    expect(seriesValue(after, 'webhook_delivery_attempts_total{outcome="failed"}')).toBe(1);
    expect(seriesValue(after, 'webhook_delivery_attempts_total{outcome="dropped"}')).toBe(1);
    expect(seriesValue(after, 'webhook_delivery_attempts_total{outcome="superseded"}')).toBe(0);
    // Three HTTP exchanges, each well under the 2 s timeout on 127.0.0.1.
    expect(seriesValue(after, 'webhook_delivery_duration_seconds_count')).toBe(3);
    expect(seriesValue(after, 'webhook_delivery_duration_seconds_bucket{le="2.5"}')).toBe(3);
    expect(seriesValue(after, 'webhook_deliveries_due')).toBe(0);
    expect(after).toMatch(/# TYPE webhook_deliveries_due gauge/);
    expect(after).toMatch(/# TYPE webhook_delivery_duration_seconds histogram/);
  });
});
