/** Orange Money's settings: off without credentials, refused when half set, never believing unsigned callbacks. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { providersFromEnv } from '../../../src/infra/providers/fromEnv.js';

const ENABLED = {
  ORANGE_MONEY_CLIENT_ID: 'client',
  ORANGE_MONEY_CLIENT_SECRET: 'secret',
  ORANGE_MONEY_MERCHANT_CODE: '478209',
  ORANGE_MONEY_WEBHOOK_SECRET: 'a-webhook-secret-of-some-length',
};

describe('Orange Money settings', () => {
  it('are off without ORANGE_MONEY_* settings: the method keeps the sandbox', () => {
    expect(loadConfig({}).orangeMoney).toBeUndefined();
    expect(providersFromEnv({}).orange_money).toBeUndefined();
  });

  it('with credentials: production URL by default, callbacks at the public URL, cash-in wallet normalised', () => {
    const config = loadConfig({
      ...ENABLED,
      PUBLIC_URL: 'https://pay.example.sn/',
      ORANGE_MONEY_PARTNER_MSISDN: '+221771234567',
      ORANGE_MONEY_PARTNER_PIN: '2468',
    }).orangeMoney;
    expect(config).toMatchObject({
      apiUrl: 'https://api.orange-sonatel.com',
      merchantCode: '478209',
      partner: { msisdn: '771234567', pin: '2468' },
      callbackUrl: 'https://pay.example.sn/providers/orange_money/callback',
      qrValiditySeconds: 600,
      timeoutMs: 15_000,
    });
    expect(typeof providersFromEnv(ENABLED).orange_money?.collect).toBe('function');
  });

  it('refuses half-set pairs, a missing merchant code, and no way to verify callbacks', () => {
    expect(() => loadConfig({ ORANGE_MONEY_CLIENT_ID: 'client' })).toThrow('ORANGE_MONEY_CLIENT_ID and ORANGE_MONEY_CLIENT_SECRET go together');
    expect(() => loadConfig({ ...ENABLED, ORANGE_MONEY_PARTNER_PIN: '1234' })).toThrow('ORANGE_MONEY_PARTNER_MSISDN and ORANGE_MONEY_PARTNER_PIN go together');
    expect(() => loadConfig({ ...ENABLED, ORANGE_MONEY_MERCHANT_CODE: '12' })).toThrow(/6-digit/);
    expect(() => loadConfig({ ...ENABLED, ORANGE_MONEY_WEBHOOK_SECRET: '' })).toThrow(/ORANGE_MONEY_WEBHOOK_SECRET .* or ORANGE_MONEY_CALLBACK_API_KEY/);
    expect(() => loadConfig({ ...ENABLED, ORANGE_MONEY_API_URL: 'ftp://x' })).toThrow(/ORANGE_MONEY_API_URL/);
    expect(() => loadConfig({ ...ENABLED, ORANGE_MONEY_QR_VALIDITY_SECONDS: '5' })).toThrow(/ORANGE_MONEY_QR_VALIDITY_SECONDS/);
  });
});
