/**
 * API keys for the official NabooPay Python SDK 1.0.2: `createApiKey(format: NABOO)` (CLI
 * `gateway key create --format naboo`) issues a key its constructor accepts, which authenticates
 * like any other; keys issued without the argument are unchanged.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../support/gateway.js';
import { type ApiKeyFormat, CreateApiKeyWithFormatDocument } from '../support/graphql/generated.js';
import { graphqlTyped } from '../support/graphql/typed.js';
import { pythonSdkAcceptsKey, pythonSdkPrintsOfKey } from './clients.js';

const gateway = useGateway();

describe('createApiKey(format)', () => {
  it('NABOO issues gw_sk_<43 base64url>_naboo-v1: accepted by the Python SDK 1.0.2 check, which prints only "v1" of it; working on v1 and v2', async () => {
    const organization = await gateway.createOrganization();
    const issued = await graphqlTyped(gateway, CreateApiKeyWithFormatDocument, { organizationId: organization.id, format: 'NABOO' }, gateway.adminToken);
    const { key, apiKey } = issued.body.data!.createApiKey;
    expect(key).toMatch(/^gw_sk_[A-Za-z0-9_-]{43}_naboo-v1$/);
    expect(pythonSdkAcceptsKey(key)).toBe(true);
    // The SDK's constructor prints the text after the first "naboo-": nothing of the secret.
    expect(pythonSdkPrintsOfKey(key)).toBe('v1');
    expect(apiKey.prefix).toBe(key.slice(0, 'gw_sk_'.length + 8));
    expect((await gateway.rest('GET', '/api/v1/account/', { key })).status).toBe(200);
    expect((await gateway.rest('GET', '/api/v2/transactions', { key })).status).toBe(200);
  });

  it('without the argument (or GATEWAY) issues the gw_sk_ key as before, which the Python SDK 1.0.2 refuses', async () => {
    const organization = await gateway.createOrganization();
    for (const format of [undefined, 'GATEWAY'] as const) {
      const { key } = (await graphqlTyped(gateway, CreateApiKeyWithFormatDocument, { organizationId: organization.id, format }, gateway.adminToken)).body.data!
        .createApiKey;
      expect(key).toMatch(/^gw_sk_[A-Za-z0-9_-]{43}$/);
      expect(pythonSdkAcceptsKey(key)).toBe(false);
    }
  });

  it('refuses an unknown format as GraphQL input', async () => {
    const organization = await gateway.createOrganization();
    // Deliberately not a format: the typed variables cannot say it.
    const refused = await graphqlTyped(
      gateway,
      CreateApiKeyWithFormatDocument,
      { organizationId: organization.id, format: 'UUID' as ApiKeyFormat },
      gateway.adminToken,
    );
    expect(refused.body.errors?.[0]?.message).toMatch(/ApiKeyFormat/);
  });
});
