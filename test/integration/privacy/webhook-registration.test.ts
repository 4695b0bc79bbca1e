/**
 * Registering a webhook over GraphQL (WEBHOOK_ALLOW_PRIVATE_URLS=false, the default) refuses every
 * disguise of loopback and private targets with PRIVATE_WEBHOOK_URL, and stores nothing; a public
 * target written inside IPv6 is still accepted. (The table of forms is in
 * test/unit/webhook-addresses.test.ts; this proves the real mutation applies it.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { CreateWebhookDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: false } });
let organizationId: string;
beforeAll(async () => {
  organizationId = (await gateway.createOrganization()).id;
});

describe('webhook registration with private targets not allowed', () => {
  it.each([
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:0:127.0.0.1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:7f00:1]:8080/hook',
    'http://[64:ff9b::127.0.0.1]/hook',
    'http://[::]/hook',
    'http://[2002:7f00:1::]/hook',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://0177.0.0.1/hook',
    'http://localhost./hook',
    'https://[::ffff:a9fe:a9fe]/latest/meta-data',
  ])('refuses %s with PRIVATE_WEBHOOK_URL and stores nothing', async (url) => {
    const answer = await graphqlTyped(gateway, CreateWebhookDocument, { organizationId, url }, gateway.adminToken);
    expect(answer.body.data).toBeNull();
    expect(answer.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'PRIVATE_WEBHOOK_URL', status: 400 }) })]);
    expect(await gateway.ctx.db.webhook.count({ where: { organizationId } })).toBe(0);
  });

  it('accepts a public address written inside IPv6', async () => {
    const answer = await graphqlTyped(gateway, CreateWebhookDocument, { organizationId, url: 'https://[::ffff:93.184.215.14]/hook' }, gateway.adminToken);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data!.createWebhook.webhook.url).toBe('https://[::ffff:5db8:d70e]/hook');
    await gateway.ctx.db.webhook.deleteMany({ where: { organizationId } });
  });
});
