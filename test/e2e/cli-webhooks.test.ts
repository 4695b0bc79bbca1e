/**
 * `gateway webhook create` and `gateway webhook redeliver` (docs/cli.md's contract): one JSON
 * object on stdout, exit 0; {"error"} and exit 1 on a refusal.
 */
import { describe, expect, it } from 'vitest';
import { payTransaction } from '../../src/domain/operations.js';
import { runCli } from '../support/cli.js';
import { useGateway } from '../support/gateway.js';
import { pendingTransaction } from '../support/accounts.js';

const gateway = useGateway();
const URL = 'https://93.184.215.14/hooks/payments';

describe('gateway webhook', () => {
  it('create: {id, url, version, secret}, v2 unless --version v1; private and malformed URLs refused', async () => {
    const { organization } = await gateway.merchant();
    const [v2, v1, privateUrl, badVersion, missing] = await Promise.all([
      runCli(gateway, ['webhook', 'create', '--org', organization.id, '--url', URL]),
      runCli(gateway, ['webhook', 'create', '--org', organization.id, '--url', `${URL}/legacy`, '--version', 'v1']),
      runCli(gateway, ['webhook', 'create', '--org', organization.id, '--url', 'http://127.0.0.1:9000/hook']),
      runCli(gateway, ['webhook', 'create', '--org', organization.id, '--url', URL, '--version', 'v3']),
      runCli(gateway, ['webhook', 'create', '--url', URL]),
    ]);
    expect(v2.code).toBe(0);
    expect(Object.keys(v2.json).sort()).toEqual(['id', 'secret', 'url', 'version']);
    expect(v2.json).toMatchObject({ url: URL, version: 'v2', secret: expect.stringMatching(/^whsec_/) });
    expect(v1.json).toMatchObject({ url: `${URL}/legacy`, version: 'v1' });
    // The gateway's refusal, then what works instead (cli-for-people.test.ts checks the whole sentence).
    expect(privateUrl).toMatchObject({
      code: 1,
      json: {
        error: expect.stringMatching(
          /^Webhook URLs may not point at loopback, private or link-local addresses: to receive events on this machine, run gateway listen /,
        ),
      },
    });
    expect(badVersion.code).toBe(1);
    expect(badVersion.json.error).toMatch(/--version/);
    expect(missing.code).toBe(1);
    expect(missing.json.error).toMatch(/--org/);
    const stored = await gateway.ctx.db.webhook.findMany({ where: { organizationId: organization.id } });
    expect(stored.map((webhook) => webhook.id).sort()).toEqual([v1.json.id, v2.json.id].sort());
  });

  it('redeliver DELIVERY_ID: a new delivery of the same event', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    const created = await runCli(gateway, ['webhook', 'create', '--org', organization.id, '--url', URL]);
    const orderId = await pendingTransaction(gateway, key);
    await payTransaction(gateway.ctx, { kind: 'customer' }, orderId, { method: 'wave', phone: '+221770000001' });
    const [delivery] = await gateway.ctx.db.webhookDelivery.findMany({ where: { transactionId: orderId } });
    expect(delivery!.webhookId).toBe(created.json.id);

    const again = await runCli(gateway, ['webhook', 'redeliver', delivery!.id]);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ webhookId: created.json.id, eventId: delivery!.eventId, redeliveryOf: delivery!.id, status: 'pending' });
    expect(again.json.id).not.toBe(delivery!.id);

    const unknown = await runCli(gateway, ['webhook', 'redeliver', '00000000-0000-4000-8000-000000000000']);
    expect(unknown).toMatchObject({ code: 1, json: { error: 'Webhook delivery not found' } });
  });
});
