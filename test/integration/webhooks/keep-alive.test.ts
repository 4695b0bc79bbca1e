/**
 * The dispatcher keeps its connections to a receiver alive: bursts of deliveries to one host open
 * about as many TCP connections as it has attempts in flight, once, not again at every burst.
 * (The agent used to keep 16 idle sockets per host: after each burst of 64 the other 48 were
 * closed and the next burst opened them again. In the bench, where claims wait on a busy
 * database and the dispatcher's queue runs dry between them, that was 15,134 connections for
 * 100,000 deliveries.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher, type Dispatcher } from '../../../src/webhooks/dispatcher.js';
import { useGateway } from '../../support/gateway.js';
import { eventually, signatureMatches, startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver.js';
import { addWebhook } from '../../support/webhooks.js';

const CONCURRENCY = 64;
const BURSTS = 6;
const DELIVERIES = CONCURRENCY * BURSTS;

const gateway = useGateway({ webhooks: { allowPrivateUrls: true, timeoutMs: 5_000 } });
let registrar: WebhookReceiver;
let server: Server;
let dispatcher: Dispatcher | undefined;
const seen = { connections: 0, valid: 0, invalid: 0 };
let secret = '';

beforeAll(async () => {
  // Only to register the webhook (its secret); the deliveries go to `server`, which counts connections.
  registrar = await startWebhookReceiver();
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (signatureMatches(secret, Buffer.concat(chunks), request.headers['x-signature'])) seen.valid++;
      else seen.invalid++;
      response.writeHead(200).end('ok');
    });
  });
  server.on('connection', () => seen.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await dispatcher?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await registrar?.close();
});

describe('webhook connections', () => {
  it(`sends ${BURSTS} bursts of ${CONCURRENCY} deliveries to one host over about ${CONCURRENCY} kept-alive connections`, async () => {
    const { organization } = await gateway.merchant({ scope: 'readAndWrite' });
    const issued = await addWebhook(gateway, registrar, organization.id, '/keep-alive');
    secret = issued.secret;
    const webhook = issued.webhook;
    // Pointed at the counting server (the registrar only made the row and its secret).
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keep-alive`;
    await gateway.ctx.db.$executeRaw`UPDATE "Webhook" SET url = ${url} WHERE id = ${webhook.id}::uuid`;
    dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20, maxConcurrency: CONCURRENCY, perEndpointConcurrency: CONCURRENCY });
    for (let burst = 1; burst <= BURSTS; burst++) {
      await gateway.ctx.db.$executeRaw`
        INSERT INTO "WebhookDelivery" (id, "webhookId", event, "eventId", body, "nextAttemptAt", "createdAt", "updatedAt")
        SELECT gen_random_uuid(), ${webhook.id}::uuid, 'payment_status', gen_random_uuid(), '{"order_id":"' || i || '"}', now(), now(), now()
        FROM generate_series(1, ${CONCURRENCY}::int) AS i`;
      dispatcher.wake();
      await eventually(
        async () => {
          const [row] = await gateway.ctx.db.$queryRaw<
            { n: number }[]
          >`SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "webhookId" = ${webhook.id}::uuid AND status = 'delivered'`;
          return row!.n === CONCURRENCY * burst;
        },
        10_000,
        `burst ${burst}`,
      );
    }

    expect(seen).toMatchObject({ valid: DELIVERIES, invalid: 0 });
    // Once per slot, a few spare for timing (an answer's socket freed a moment after the next attempt started).
    expect(seen.connections).toBeLessThanOrEqual(CONCURRENCY + 8);
  });
});
