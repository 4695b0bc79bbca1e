/**
 * `gateway listen` and `gateway trigger`, end to end: a real gateway (its webhook dispatcher
 * running), a real local receiver, the CLI in this process (its `main`, stopped by an abort
 * signal). `trigger` makes a sandbox payment; `listen` forwards its payment_status event to the
 * receiver, which checks X-Signature with the secret `listen` printed, over the exact bytes, and
 * finds them equal to the real delivery the gateway sent to the organisation's registered webhook.
 * One test starts `bin/gateway.js listen` as a process: Ctrl-C (SIGINT) must end it cleanly, and
 * only a process can be sent one.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { endLiveStreams } from '../../src/domain/liveUpdates/events.js';
import { adjustAccount, createWebhook } from '../../src/domain/operations.js';
import { runPayoutBatches } from '../../src/domain/payoutBatches/runPayoutBatches.js';
import { startWebhookDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.js';
import { BIN, gatewayEnv, runCliInProcess } from '../support/cli.js';
import { transactionBody, useGateway } from '../support/gateway.js';
import { paidTransaction, refund } from '../support/refunds.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });
let receiver: WebhookReceiver;
let dispatcher: Dispatcher;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20 });
});
afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
});

/** `gateway listen ...args` running in this process until `stop()`: the JSON lines it printed so far. */
function startListening(args: string[]) {
  const lines: any[] = [];
  const abort = new AbortController();
  let partial = '';
  const done = main(['listen', ...args], gatewayEnv(gateway), {
    signal: abort.signal,
    write: (text) => {
      partial += text;
      const complete = partial.split('\n');
      partial = complete.pop()!;
      for (const line of complete) lines.push(JSON.parse(line));
    },
  });
  return {
    lines,
    /** The first printed line that matches, waiting for it. */
    line: (match: (line: any) => boolean, what: string) => eventually(() => lines.find(match), 20_000, what),
    stop: async () => {
      abort.abort();
      return done;
    },
    done,
  };
}

const trigger = (organizationId: string) => runCliInProcess(['trigger', 'payment_status', '--org', organizationId], gatewayEnv(gateway));

describe('gateway trigger payment_status', () => {
  it('pays a sandbox transaction in the organisation (no API key), printing it', async () => {
    const organization = await gateway.createOrganization({ allowedMethods: ['orange_money'], update: { minTransactionAmount: 2_500 } });
    const { code, json } = await trigger(organization.id);
    expect(code).toBe(0);
    // Within the organisation's limits and methods.
    expect(json).toMatchObject({
      organizationId: organization.id,
      status: 'paid',
      amount: 2_500,
      methodOfPayment: ['orange_money'],
      selectedPaymentMethod: 'orange_money',
    });
    expect(
      (await gateway.rest('GET', `/api/v2/transactions/${json.orderId}`, { key: await gateway.createKey(organization.id, 'read') })).body.transaction_status,
    ).toBe('paid');
  });

  it('refuses an unknown event, an unknown organisation and a missing --org, creating nothing', async () => {
    const organization = await gateway.createOrganization();
    const [event, unknownOrg, noOrg] = await Promise.all([
      runCliInProcess(['trigger', 'refund', '--org', organization.id], gatewayEnv(gateway)),
      runCliInProcess(['trigger', 'payment_status', '--org', '00000000-0000-4000-8000-000000000000'], gatewayEnv(gateway)),
      runCliInProcess(['trigger', 'payment_status'], gatewayEnv(gateway)),
    ]);
    expect(event).toMatchObject({
      code: 1,
      json: { error: "EVENT must be one of payment_status (got 'refund') (usage: gateway trigger payment_status --org ID)" },
    });
    expect(unknownOrg).toMatchObject({ code: 1, json: { error: 'Organization not found' } });
    expect(noOrg).toMatchObject({ code: 1, json: { error: '--org is required (usage: gateway trigger payment_status --org ID)' } });
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});

describe('gateway listen', () => {
  it('forwards a triggered payment_status exactly as the real delivery, signed with the secret it printed', async () => {
    const organization = await gateway.createOrganization();
    const real = await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: `${receiver.url}/real`, version: 'v2' });
    receiver.configure('/real', { secret: real.secret });
    const listening = startListening(['--org', organization.id, '--forward-to', `${receiver.url}/local`]);
    try {
      const first = await listening.line((line) => line.listening, 'the listening line');
      expect(listening.lines[0]).toBe(first);
      expect(first).toEqual({
        listening: true,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
        organizationId: organization.id,
        events: ['payment_status', 'payout_status', 'refund_status', 'payout_batch_status'],
        forwardTo: `${receiver.url}/local`,
        gateway: gateway.url,
      });
      expect(first.secret).not.toBe(real.secret);
      receiver.configure('/local', { secret: first.secret });

      const paid = await trigger(organization.id);
      expect(paid.code).toBe(0);
      const local = await eventually(() => receiver.on('/local')[0], 20_000, 'the forwarded event');
      const delivered = await eventually(() => receiver.on('/real')[0], 20_000, 'the real delivery');
      // The receiver checked X-Signature over the exact bytes with the printed secret (and the real one with its own).
      expect(local.signatureValid).toBe(true);
      expect(delivered.signatureValid).toBe(true);
      expect(local.raw.equals(delivered.raw)).toBe(true);
      expect(JSON.parse(local.raw.toString('utf8'))).toMatchObject({ order_id: paid.json.orderId, transaction_status: 'paid' });
      // The same headers as a real first attempt, with ids of its own.
      for (const name of ['content-type', 'user-agent', 'x-event-type', 'x-delivery-attempt']) expect(local.headers[name], name).toBe(delivered.headers[name]);
      expect(local.headers['x-event-type']).toBe('payment_status');
      for (const name of ['x-event-id', 'x-delivery-id']) expect(local.headers[name], name).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(local.headers['x-event-timestamp'] as string)).not.toBeNaN();

      const forwarded = await listening.line((line) => line.event, 'the forwarded event line');
      expect(forwarded).toEqual({
        event: 'payment_status',
        eventId: local.headers['x-event-id'],
        orderId: paid.json.orderId,
        status: 'paid',
        forwardedTo: `${receiver.url}/local`,
        statusCode: 200,
        durationMs: expect.any(Number),
      });
    } finally {
      expect(await listening.stop()).toBe(0);
    }
    expect(listening.lines.at(-1)).toEqual({ listening: false, stopped: true });
  });

  it('forwards payout_status exactly as the real delivery to an endpoint subscribed to it, and only the events asked for', async () => {
    const { organization, key } = await gateway.merchant({ payoutEnabled: true, scope: 'payout' });
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 100_000, reason: 'float' });
    const real = await createWebhook(gateway.ctx, gateway.operator, {
      organizationId: organization.id,
      url: `${receiver.url}/real-payouts`,
      events: ['payout_status'],
    });
    receiver.configure('/real-payouts', { secret: real.secret });
    const listening = startListening(['--org', organization.id, '--forward-to', `${receiver.url}/local-payouts`, '--events', 'payout_status']);
    try {
      const first = await listening.line((line) => line.listening, 'the listening line');
      expect(first.events).toEqual(['payout_status']);
      receiver.configure('/local-payouts', { secret: first.secret });
      await trigger(organization.id); // a payment: not asked for, not forwarded
      const payout = await gateway.rest('POST', '/api/v2/payouts', {
        key,
        body: { selected_payment_method: 'wave', amount: 5_000, recipient: { phone: '+221770000001' } },
      });
      expect(payout.status).toBe(200);
      const local = await eventually(() => receiver.on('/local-payouts')[0], 20_000, 'the forwarded payout event');
      const delivered = await eventually(() => receiver.on('/real-payouts')[0], 20_000, 'the real payout delivery');
      expect(local.signatureValid).toBe(true);
      expect(local.headers['x-event-type']).toBe('payout_status');
      expect(delivered.headers['x-event-type']).toBe('payout_status');
      expect(local.raw.equals(delivered.raw)).toBe(true);
      expect(JSON.parse(local.raw.toString('utf8'))).toMatchObject({ order_id: payout.body.order_id, payout_status: 'completed', event: 'payout_status' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.on('/local-payouts')).toHaveLength(1);
    } finally {
      expect(await listening.stop()).toBe(0);
    }
  });

  it('forwards every event a webhook can subscribe to (a batch’s payout_status per item and its payout_batch_status, a refund_status) exactly as the real deliveries, each with its X-Event-Type', async () => {
    const { organization, key: payoutKey } = await gateway.merchant({ payoutEnabled: true, scope: 'payout' });
    const key = await gateway.createKey(organization.id, 'readAndWrite');
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 100_000, reason: 'float' });
    const real = await createWebhook(gateway.ctx, gateway.operator, {
      organizationId: organization.id,
      url: `${receiver.url}/real-every`,
      events: ['payment_status', 'payout_status', 'refund_status', 'payout_batch_status'],
    });
    receiver.configure('/real-every', { secret: real.secret });
    const listening = startListening(['--org', organization.id, '--forward-to', `${receiver.url}/local-every`]);
    try {
      const first = await listening.line((line) => line.listening, 'the listening line');
      receiver.configure('/local-every', { secret: first.secret });

      const orderId = await paidTransaction(gateway, key);
      expect((await refund(gateway, key, orderId)).status).toBe(200);
      const items = [1, 2].map((line) => ({ selected_payment_method: 'wave', amount: 1_000 + line, recipient: { phone: `+22177000000${line + 1}` } }));
      const draft = await gateway.rest('POST', '/api/v2/payout-batches', { key: payoutKey, body: { items } });
      expect(draft.status, JSON.stringify(draft.body)).toBe(200);
      expect((await gateway.rest('POST', `/api/v2/payout-batches/${draft.body.id}/start`, { key: payoutKey })).status).toBe(200);
      // The background job's function, run here: the two items, then the batch's end.
      while ((await runPayoutBatches(gateway.ctx, 'e0000000-0000-4000-8000-000000000031')).outcome !== 'finished');

      const EVENTS = ['payment_status', 'refund_status', 'payout_status', 'payout_status', 'payout_batch_status'];
      const byType = (path: string) => receiver.on(path).map((delivery) => delivery.headers['x-event-type']);
      await eventually(() => byType('/real-every').length === EVENTS.length, 20_000, 'the five real deliveries');
      await eventually(() => byType('/local-every').length === EVENTS.length, 20_000, 'the five forwarded events');
      expect(byType('/local-every').sort()).toEqual([...EVENTS].sort());
      for (const event of ['refund_status', 'payout_batch_status']) {
        const [local] = receiver.on('/local-every').filter((delivery) => delivery.headers['x-event-type'] === event);
        const [delivered] = receiver.on('/real-every').filter((delivery) => delivery.headers['x-event-type'] === event);
        expect(local!.signatureValid, event).toBe(true);
        expect(local!.raw.equals(delivered!.raw), `${event}: the forwarded body is the real one, byte for byte`).toBe(true);
      }
      const batchBody = JSON.parse(
        receiver
          .on('/local-every')
          .find((delivery) => delivery.headers['x-event-type'] === 'payout_batch_status')!
          .raw.toString(),
      );
      expect(batchBody).toMatchObject({ id: draft.body.id, status: 'completed', counts: { completed: 2 }, event: 'payout_batch_status' });
      // The batch's start sends no webhook: said, not forwarded; its end is forwarded with its id.
      expect(await listening.line((line) => line.batchId && line.skipped, 'the skipped start')).toEqual({
        batchId: draft.body.id,
        status: 'running',
        skipped: 'a payout batch that becomes running sends no webhook event',
      });
      expect(await listening.line((line) => line.event === 'payout_batch_status', 'the forwarded batch event')).toMatchObject({
        batchId: draft.body.id,
        status: 'completed',
        statusCode: 200,
      });
    } finally {
      expect(await listening.stop()).toBe(0);
    }
  });

  it('says a status that sends no webhook is skipped, prints the receiver’s answer, and subscribes again when the stream ends', async () => {
    const { organization, key } = await gateway.merchant();
    receiver.configure('/failing', { behaviour: { statuses: [500] } });
    const listening = startListening(['--org', organization.id, '--forward-to', `${receiver.url}/failing`]);
    try {
      await listening.line((line) => line.listening, 'the listening line');
      const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
      await gateway.rest('DELETE', `/api/v2/transactions/${created.body.order_id}`, { key });
      expect(await listening.line((line) => line.skipped, 'the skipped line')).toEqual({
        orderId: created.body.order_id,
        status: 'cancelled',
        skipped: 'a transaction that becomes cancelled sends no webhook event',
      });

      // Every stream's first opening is no reconnection.
      expect(listening.lines.filter((line) => line.reconnected)).toEqual([]);
      // The gateway ends every stream (as when it stops, or after an hour): listen subscribes again.
      endLiveStreams(gateway.ctx);
      expect(await listening.line((line) => line.listening === false, 'the drop')).toMatchObject({
        listening: false,
        reason: expect.stringMatching(/ended the event stream/),
        retryInMs: 500,
      });
      await listening.line((line) => line.reconnected && line.stream === 'transaction', 'the reconnection of the transactions’ stream');
      const paid = await trigger(organization.id);
      expect(await listening.line((line) => line.event, 'the forwarded event line')).toMatchObject({ orderId: paid.json.orderId, statusCode: 500 });
      expect(receiver.on('/failing')).toHaveLength(1);
    } finally {
      expect(await listening.stop()).toBe(0);
    }
  });

  it('refuses an unknown event name, a forward address that is not http(s), and an unknown organisation', async () => {
    const organization = await gateway.createOrganization();
    const [events, forward, unknown] = await Promise.all([
      runCliInProcess(['listen', '--org', organization.id, '--events', 'payment_status,test'], gatewayEnv(gateway)),
      runCliInProcess(['listen', '--org', organization.id, '--forward-to', 'ftp://127.0.0.1/hooks'], gatewayEnv(gateway)),
      runCliInProcess(['listen', '--org', '00000000-0000-4000-8000-000000000000'], gatewayEnv(gateway)),
    ]);
    expect(events).toMatchObject({
      code: 1,
      json: {
        error: expect.stringMatching(
          /^--events must be one of payment_status, payout_status, refund_status, payout_batch_status \(got 'test'\) \(usage: gateway listen /,
        ),
      },
    });
    expect(forward).toMatchObject({
      code: 1,
      json: { error: expect.stringMatching(/^--forward-to must be an http\(s\) URL \(got 'ftp:\/\/127\.0\.0\.1\/hooks'\)/) },
    });
    expect(unknown).toMatchObject({ code: 1, json: { error: 'Organization not found' } });
  });

  it('as a process, ends cleanly on Ctrl-C (SIGINT): exit 0, its last line says so', async () => {
    const organization = await gateway.createOrganization();
    const child = spawn(process.execPath, [BIN, 'listen', '--org', organization.id], {
      env: { ...process.env, ...gatewayEnv(gateway) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const lines: any[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => lines.push(JSON.parse(line)));
    try {
      await eventually(() => lines[0]?.listening, 15_000, 'the listening line');
      child.kill('SIGINT');
      expect(await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000))])).toBe(0);
      expect(lines.at(-1)).toEqual({ listening: false, stopped: true });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
