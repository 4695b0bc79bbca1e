/**
 * kill -9 of the instance that is sending a webhook, while the merchant's receiver holds the
 * request (issue 16): the attempt was claimed in PostgreSQL and is in flight; the process dies.
 * The other instance of the deployment sends it again once the dead instance's claim runs out:
 * every event is delivered at least once, correctly signed, and the deployment answers again.
 *
 * Which instance sends is not up to the test: it finds the sender from the connection open to the
 * receiver (/proc) and kills that one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { pidConnectedTo, useCluster, type Instance } from '../support/faults/cluster.js';
import { expectAnswersAgain, expectEveryWebhookDelivered, expectMoneyInvariants } from '../support/faults/invariants.js';
import { faultMerchant, paidOn, type FaultMerchant } from '../support/faults/money.js';

/**
 * A claimed attempt is handed to another instance only after its claim's lease (the dispatcher's:
 * WEBHOOK_TIMEOUT_MS x 9 + WEBHOOK_CLAIM_MARGIN_MS, 5 s here) and the sweep (every second here,
 * for retries overdue by a second); the test waits at most REDELIVERY_MS, with room for a loaded
 * machine. (At the defaults the sweep alone took 10-20 s of the suite's wall clock.)
 */
const REDELIVERY_MS = 60_000;

const cluster = useCluster({ env: { WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_CLAIM_MARGIN_MS: '500', WEBHOOK_SWEEP_MS: '1000' } });
let a: Instance;
let b: Instance;
let receiver: WebhookReceiver;
let merchant: FaultMerchant;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
  merchant = await faultMerchant(cluster.gateway, { receiver, path: '/held' });
}, 90_000);
afterAll(async () => {
  await receiver?.close();
});

describe('kill -9 of the instance sending a webhook', () => {
  it(
    'the other instance delivers the event after the dead one’s claim runs out, signed; the deployment answers again',
    async () => {
      // The receiver holds the first request (the sender is mid-delivery), then answers at once.
      receiver.configure('/held', { behaviour: { delayMs: 30_000 } });
      const orderId = await paidOn(b, merchant.checkoutKey, 1_500);

      const first = await eventually(() => receiver.on('/held')[0], 20_000, 'the first delivery attempt');
      const port = Number(new URL(receiver.url).port);
      const senderPid = await eventually(() => pidConnectedTo(port, [a.pid, b.pid]), 2_000, 'the instance sending it');
      const [sender, other] = senderPid === a.pid ? [a, b] : [b, a];
      await cluster.kill(sender);
      receiver.configure('/held', { behaviour: { delayMs: 0 } });
      console.info(`killed ${sender.name} while it sent delivery ${String(first.headers['x-delivery-id'])}`);

      const db = cluster.gateway.ctx.db;
      const [delivery] = await db.webhookDelivery.findMany({ where: { transactionId: orderId } });
      expect(delivery).toMatchObject({ status: 'pending', attemptCount: 1 });
      // Killed mid-attempt: the attempt was claimed and never recorded.
      expect(await db.webhookAttempt.count({ where: { deliveryId: delivery!.id } })).toBe(0);

      await expectEveryWebhookDelivered(db, receiver, REDELIVERY_MS);
      const sent = receiver.on('/held').filter((request) => request.headers['x-delivery-id'] === delivery!.id);
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(sent.every((request) => request.signatureValid === true)).toBe(true);
      expect(new Set(sent.map((request) => request.headers['x-event-id'])).size).toBe(1);
      expect(JSON.parse(sent.at(-1)!.raw.toString('utf8'))).toMatchObject({ order_id: orderId, transaction_status: 'paid' });

      await expectMoneyInvariants(db);
      await expectAnswersAgain(other, merchant.checkoutKey);
      const replacement = await cluster.start(`${sender.name}-again`);
      await expectAnswersAgain(replacement, merchant.checkoutKey);
    },
    REDELIVERY_MS + 60_000,
  );
});
