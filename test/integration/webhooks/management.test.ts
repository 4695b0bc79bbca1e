/**
 * Registering webhook endpoints: several per organisation, v2 unless v1 is asked, URLs checked
 * (private targets refused unless WEBHOOK_ALLOW_PRIVATE_URLS), the secret shown once and stored
 * only encrypted, rotation, deletion, and who may do it.
 */
import { describe, expect, it } from 'vitest';
import type { MerchantCaller } from '../../../src/domain/access/auth.js';
import type { GatewayContext } from '../../../src/domain/context.js';
import { createWebhook, deleteWebhook, listWebhooks, rotateWebhookSecret } from '../../../src/domain/operations.js';
import { MAX_WEBHOOKS_PER_ORGANIZATION } from '../../../src/domain/webhooks/access.js';
import { decryptWebhookSecret } from '../../../src/domain/webhooks/secrets.js';
import { TEST_WEBHOOK_SECRET_KEY, useGateway } from '../../support/gateway.js';

const gateway = useGateway();
const PUBLIC_URL = 'https://93.184.215.14/hooks/payments';

const merchantCaller = async (scope: MerchantCaller['scope'] = 'management'): Promise<MerchantCaller> => {
  const { organization } = await gateway.merchant();
  return { kind: 'merchant', apiKeyId: 'test', scope, organization };
};

describe('webhook endpoints', () => {
  it('registers several per organisation, v2 by default, the secret returned once and stored only encrypted', async () => {
    const { organization } = await gateway.merchant();
    const first = await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: PUBLIC_URL });
    const second = await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: `${PUBLIC_URL}/legacy`, version: 'v1' });
    expect(first.webhook).toMatchObject({ organizationId: organization.id, url: PUBLIC_URL, version: 'v2', isActive: true });
    expect(second.webhook.version).toBe('v1');
    expect(first.secret).toMatch(/^whsec_/);
    expect(first.secret).not.toBe(second.secret);
    expect(first.webhook).not.toHaveProperty('encryptedSecret');

    const row = await gateway.ctx.db.webhook.findUniqueOrThrow({ where: { id: first.webhook.id } });
    expect(row.encryptedSecret).not.toContain(first.secret.slice(6));
    expect(decryptWebhookSecret(TEST_WEBHOOK_SECRET_KEY, row.id, row.encryptedSecret)).toBe(first.secret);

    const listed = await listWebhooks(gateway.ctx, gateway.operator, organization.id);
    expect(listed.map((webhook) => webhook.id).sort()).toEqual([first.webhook.id, second.webhook.id].sort());
    for (const webhook of listed) expect(JSON.stringify(webhook)).not.toContain('whsec_');
  });

  it('refuses loopback, private and link-local URLs unless WEBHOOK_ALLOW_PRIVATE_URLS, and non-http(s) URLs always', async () => {
    const { organization } = await gateway.merchant();
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://169.254.169.254/', 'http://[::1]/', 'http://192.168.1.10/']) {
      await expect(createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url }), url).rejects.toMatchObject({
        code: 'private_webhook_url',
        status: 400,
      });
    }
    await expect(createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: 'ftp://93.184.215.14/' })).rejects.toMatchObject({
      code: 'invalid_webhook_url',
    });
    await expect(createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: PUBLIC_URL, version: 'v3' })).rejects.toMatchObject({
      code: 'invalid_input',
    });

    const allowing: GatewayContext = {
      ...gateway.ctx,
      settings: { ...gateway.ctx.settings, webhooks: { ...gateway.ctx.settings.webhooks!, allowPrivateUrls: true } },
    };
    const local = await createWebhook(allowing, gateway.operator, { organizationId: organization.id, url: 'http://127.0.0.1:8080/hook' });
    expect(local.webhook.url).toBe('http://127.0.0.1:8080/hook');
  });

  it(`caps endpoints at ${MAX_WEBHOOKS_PER_ORGANIZATION} per organisation; a deleted one frees its place`, async () => {
    const { organization } = await gateway.merchant();
    const created = [];
    for (let i = 0; i < MAX_WEBHOOKS_PER_ORGANIZATION; i++)
      created.push(await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: `${PUBLIC_URL}/${i}` }));
    await expect(createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: PUBLIC_URL })).rejects.toMatchObject({
      code: 'too_many_webhooks',
    });
    await deleteWebhook(gateway.ctx, gateway.operator, created[0]!.webhook.id);
    await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: PUBLIC_URL });
    expect(await listWebhooks(gateway.ctx, gateway.operator, organization.id)).toHaveLength(MAX_WEBHOOKS_PER_ORGANIZATION);
  });

  it('rotates a secret: the new one is returned once and replaces the old', async () => {
    const { organization } = await gateway.merchant();
    const { webhook, secret } = await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: PUBLIC_URL });
    const rotated = await rotateWebhookSecret(gateway.ctx, gateway.operator, webhook.id);
    expect(rotated.secret).not.toBe(secret);
    const row = await gateway.ctx.db.webhook.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(decryptWebhookSecret(TEST_WEBHOOK_SECRET_KEY, row.id, row.encryptedSecret)).toBe(rotated.secret);
  });

  it('lets a merchant manage its own webhooks with a management key, and nobody else’s', async () => {
    const caller = await merchantCaller('management');
    const own = await createWebhook(gateway.ctx, caller, { url: PUBLIC_URL });
    expect(own.webhook.organizationId).toBe(caller.organization.id);
    expect((await listWebhooks(gateway.ctx, caller)).map((webhook) => webhook.id)).toEqual([own.webhook.id]);

    const stranger = await merchantCaller('management');
    await expect(rotateWebhookSecret(gateway.ctx, stranger, own.webhook.id)).rejects.toMatchObject({ code: 'webhook_not_found' });
    await expect(deleteWebhook(gateway.ctx, stranger, own.webhook.id)).rejects.toMatchObject({ code: 'webhook_not_found' });
    await expect(createWebhook(gateway.ctx, stranger, { organizationId: caller.organization.id, url: PUBLIC_URL })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    expect(await listWebhooks(gateway.ctx, stranger)).toEqual([]);

    const checkoutKey = await merchantCaller('checkout');
    await expect(createWebhook(gateway.ctx, checkoutKey, { url: PUBLIC_URL })).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(listWebhooks(gateway.ctx, checkoutKey)).rejects.toMatchObject({ code: 'permission_denied' });

    const analyst = { kind: 'operator' as const, role: 'analyst' as const, tokenId: null };
    await expect(createWebhook(gateway.ctx, analyst, { organizationId: caller.organization.id, url: PUBLIC_URL })).rejects.toMatchObject({
      code: 'operator_forbidden',
    });
    expect((await listWebhooks(gateway.ctx, analyst, caller.organization.id)).map((webhook) => webhook.id)).toEqual([own.webhook.id]);

    await deleteWebhook(gateway.ctx, caller, own.webhook.id);
    expect(await listWebhooks(gateway.ctx, caller)).toEqual([]);
    await expect(rotateWebhookSecret(gateway.ctx, caller, own.webhook.id)).rejects.toMatchObject({ code: 'webhook_not_found' });
  });
});
