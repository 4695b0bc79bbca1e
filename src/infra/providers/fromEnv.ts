/**
 * The real wallet providers the environment configures (docs/providers.md): a method
 * whose provider is not configured uses the sandbox. Credentials come only from the environment
 * and are handed to the provider clients, never logged (the start-up line names methods only).
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { Logger, PaymentProvider } from '../../domain/ports.js';
import { StartupError } from '../startupErrors.js';
import { createWaveProvider, WAVE_DEFAULT_URL } from './wave.js';
import { isHttpsUrl } from './wave/addresses.js';
import { loadConfig } from '../../config.js';
import { createOrangeMoneyProvider } from './orangeMoney.js';

type Env = Record<string, string | undefined>;

/** A provider's base URL: http(s) only, no credentials in it (they would end up in logs). */
function baseUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`${name} must be an http(s) URL`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password) throw new StartupError(`${name} must be an http(s) URL without credentials`);
  return raw.replace(/\/+$/, '');
}

export function providersFromEnv(env: Env = process.env, log?: Logger): Partial<Record<PaymentMethod, PaymentProvider>> {
  const providers: Partial<Record<PaymentMethod, PaymentProvider>> = {};
  if (env.WAVE_API_KEY) {
    // docs.wave.com/checkout: Wave sends customers back (to the checkout's return page) on https only.
    const checkout = loadConfig(env).checkoutPublicUrl;
    if (!isHttpsUrl(checkout))
      throw new StartupError(
        `Wave sends customers back to https addresses only: set CHECKOUT_PUBLIC_URL to the checkout's https address (now ${checkout}); behind a TLS-terminating proxy the gateway itself may listen on http`,
      );
    providers.wave = createWaveProvider({
      apiKey: env.WAVE_API_KEY,
      apiUrl: baseUrl(env, 'WAVE_API_URL', WAVE_DEFAULT_URL),
      webhookSecret: env.WAVE_WEBHOOK_SECRET || undefined,
      ...(log && { log }),
    });
  }
  // Orange Money: ORANGE_MONEY_CLIENT_ID + ORANGE_MONEY_CLIENT_SECRET enable it (src/config.ts checks the rest).
  const orangeMoney = loadConfig(env).orangeMoney;
  if (orangeMoney) providers.orange_money = createOrangeMoneyProvider(orangeMoney, log ? { log } : {});
  return providers;
}

/** The variables holding provider credentials (kept out of start-up error reports). */
export const PROVIDER_SECRET_VARIABLES = [
  'WAVE_API_KEY',
  'WAVE_WEBHOOK_SECRET',
  'ORANGE_MONEY_CLIENT_SECRET',
  'ORANGE_MONEY_PARTNER_PIN',
  'ORANGE_MONEY_WEBHOOK_SECRET',
  'ORANGE_MONEY_CALLBACK_API_KEY',
] as const;
