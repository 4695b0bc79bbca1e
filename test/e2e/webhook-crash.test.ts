/**
 * The outbox survives a crash: a real gateway process is killed (SIGKILL) right after the payment
 * and its webhook delivery commit, before anything is sent. A fresh process sends it, signed,
 * exactly once.
 */
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WEBHOOK_SERVER_KEY, useGateway } from '../support/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { pendingTransaction } from '../support/accounts.js';
import { SandboxPayDocument, type SandboxPayMutationVariables } from '../support/graphql/generated.js';
import { deliveriesOf, merchantWithWebhook } from '../support/webhooks.js';

const gateway = useGateway();
const processes: GatewayProcess[] = [];
let receiver: WebhookReceiver;
const ADMIN_TOKEN = 'gw_op_webhook_crash_token_0123456789';

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await Promise.allSettled(processes.map((process) => process.stop()));
  await receiver?.close();
});

const start = async (nodeArgs: string[] = []) => {
  const started = await startGatewayProcess(
    { DATABASE_URL: gateway.databaseUrl, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY },
    nodeArgs,
  );
  processes.push(started);
  return started;
};

const SANDBOX_PAY = print(SandboxPayDocument);
const payWithWave = (orderId: string): SandboxPayMutationVariables => ({ orderId, method: 'wave', phone: '+221770000001' });

describe('a gateway killed right after a payment commits', () => {
  it('delivers the payment_status webhook after the restart, once', async () => {
    // The test gateway's context registers the webhook (allowed: its settings are the test's).
    gateway.ctx.settings.webhooks = { ...gateway.ctx.settings.webhooks!, allowPrivateUrls: true };
    const { key } = await merchantWithWebhook(gateway, receiver, '/crash');
    const orderId = await pendingTransaction(gateway, key);

    const doomed = await start(['--import', './test/support/crash-after-outbox-commit.ts']);
    const lost = await fetch(`${doomed.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: SANDBOX_PAY, variables: payWithWave(orderId) }),
    }).then(
      (response) => `answered ${response.status}`,
      () => 'no answer',
    );
    expect(lost).toBe('no answer');
    expect((await doomed.exited).signal).toBe('SIGKILL');

    // Committed: paid, with its delivery pending and never attempted.
    expect((await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } })).status).toBe('paid');
    const [pending] = await deliveriesOf(gateway, orderId);
    expect(pending).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect(receiver.on('/crash')).toHaveLength(0);

    await start();
    await eventually(async () => (await deliveriesOf(gateway, orderId))[0]?.status === 'delivered', 20_000, 'the delivery after restart');
    const received = receiver.on('/crash');
    expect(received).toHaveLength(1);
    expect(received[0]!.signatureValid).toBe(true);
    expect(JSON.parse(received[0]!.raw.toString('utf8'))).toMatchObject({ order_id: orderId, transaction_status: 'paid' });
  }, 120_000);
});
