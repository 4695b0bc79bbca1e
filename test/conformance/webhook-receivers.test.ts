/**
 * The receiver recipes of docs/webhook-receivers.md, run as merchants would run them (the files in
 * docs/receivers/, as separate processes: Node and Python), against real payment_status deliveries
 * of a real gateway and its dispatcher. Each must accept the gateway's signed delivery (verified
 * over the raw body bytes), refuse a missing or wrong signature with 401, and accept bytes that a
 * re-serialisation would have changed (proof that it does not verify re-serialised JSON).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, payTransaction } from '../../src/domain/operations.js';
import { startWebhookDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.js';
import { useGateway } from '../support/gateway.js';
import { freePort, waitFor } from '../support/processes.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true, retryDelayMs: 60_000, maxRetries: 0, timeoutMs: 5_000 } });
const RECIPES = path.resolve(import.meta.dirname, '../../docs/receivers');

const recipes = [
  { name: 'Node (docs/receivers/node-receiver.mjs)', command: process.execPath, file: 'node-receiver.mjs' },
  { name: 'Python (docs/receivers/python_receiver.py)', command: 'python3', file: 'python_receiver.py' },
];

let dispatcher: Dispatcher | undefined;
beforeAll(() => {
  dispatcher = startWebhookDispatcher(gateway.ctx, { pollMs: 20 });
});
afterAll(async () => {
  await dispatcher?.stop();
});

describe.each(recipes)('the $name receiver recipe', ({ command, file }) => {
  let child: ChildProcess | undefined;
  let output = '';
  let url = '';
  let secret = '';
  let key = '';
  const lines = () =>
    output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/webhooks/gateway`;
    const { organization, key: merchantKey } = await gateway.merchant();
    key = merchantKey;
    // The secret exactly as shown to the merchant, given to the recipe as its WEBHOOK_SECRET.
    secret = (await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url, version: 'v2' })).secret;
    child = spawn(command, [path.join(RECIPES, file)], {
      env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await waitFor(
      async () => output.includes('"listening"'),
      10_000,
      () => output,
    );
  });
  afterAll(() => {
    child?.kill();
  });

  const post = (body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const sign = (body: string) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');

  it('verifies a real signed delivery of the gateway and answers 200 (delivery recorded as delivered)', async () => {
    const created = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: {
        method_of_payment: ['wave'],
        products: [{ name: 'Thiof', price: 4_500, quantity: 2 }],
        customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234567' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId = created.body.order_id as string;
    expect((await payTransaction(gateway.ctx, { kind: 'customer' }, orderId, { method: 'wave', phone: '+221770000001' })).outcome).toBe('paid');

    await waitFor(
      async () => lines().some((line) => line.order_id === orderId),
      10_000,
      () => output,
    );
    expect(lines().find((line) => line.order_id === orderId)).toEqual({
      verified: true,
      order_id: orderId,
      transaction_status: 'paid',
      amount: 9_000,
      paid: true,
    });
    await waitFor(
      async () =>
        (await gateway.ctx.db.webhookDelivery.findMany({ where: { transactionId: orderId }, include: { attempts: true } })).some((delivery) =>
          delivery.attempts.some((attempt) => attempt.statusCode === 200),
        ),
      10_000,
      () => 'no attempt answered 200',
    );
  });

  it('refuses a missing, a wrong and an uppercase-hex signature with 401, and does nothing', async () => {
    const body = JSON.stringify({ order_id: crypto.randomUUID(), transaction_status: 'paid', amount: 100 });
    const before = lines().length;
    expect((await post(body, {})).status).toBe(401);
    expect((await post(body, { 'x-signature': sign(`${body} `) })).status).toBe(401);
    expect((await post(body, { 'x-signature': 'not hex at all' })).status).toBe(401);
    expect((await post(body, { 'x-signature': sign(body).toUpperCase() })).status).toBe(401);
    expect(lines().length).toBe(before);
  });

  it('checks the raw bytes: a body whose bytes a re-serialisation would change is accepted when signed as sent', async () => {
    // Spaces after separators and a non-ASCII name: json.dumps / JSON.stringify of the parsed body give other bytes.
    const orderId = crypto.randomUUID();
    const body = `{"order_id": "${orderId}",  "transaction_status": "paid_and_blocked", "amount": 1500, "customer": {"first_name": "Aïssatou"}}`;
    expect(JSON.stringify(JSON.parse(body))).not.toBe(body);
    expect((await post(body, { 'x-signature': sign(body) })).status).toBe(200);
    await waitFor(
      async () => lines().some((line) => line.order_id === orderId),
      5_000,
      () => output,
    );
    expect(lines().find((line) => line.order_id === orderId)).toMatchObject({ transaction_status: 'paid_and_blocked', paid: true, amount: 1500 });
  });
});
