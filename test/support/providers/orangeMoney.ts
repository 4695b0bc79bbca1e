/**
 * The gateway's side of an Orange Money simulator, as tests set it up: the connector configured
 * with the simulator's credentials, and the operator's one-time registration of the callback URL.
 */
import { createOrangeMoneyProvider, type OrangeMoneyProvider } from '../../../src/infra/providers/orangeMoney.js';
import type { OrangeMoneySimulator } from './orangeMoneySimulator.js';

/** The connector against `simulator`; `timeoutMs` bounds each call (short ones make a hung call a timeout fast). */
export function orangeMoneyProviderOf(simulator: OrangeMoneySimulator, callbackApiKey: string, timeoutMs: number): OrangeMoneyProvider {
  return createOrangeMoneyProvider({
    apiUrl: simulator.url,
    clientId: simulator.clientId,
    clientSecret: simulator.clientSecret,
    merchantCode: simulator.merchantCode,
    merchantName: 'Boutique Awa',
    partner: { msisdn: simulator.partnerMsisdn, pin: simulator.partnerPin },
    webhookSecret: simulator.webhookSecret,
    callbackApiKey,
    qrValiditySeconds: 600,
    timeoutMs,
  });
}

/** An access token of the simulator's own client (what an operator's or another application's call carries). */
export async function orangeMoneyAccessToken(simulator: OrangeMoneySimulator): Promise<string> {
  const token = await fetch(`${simulator.url}/oauth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: simulator.clientId, client_secret: simulator.clientSecret }),
  });
  return ((await token.json()) as { access_token: string }).access_token;
}

/** What an operator does once: register the gateway's callback URL for the merchant code. Returns the HTTP status (201). */
export async function registerOrangeMoneyCallback(simulator: OrangeMoneySimulator, callbackUrl: string, apiKey: string): Promise<number> {
  const accessToken = await orangeMoneyAccessToken(simulator);
  const registered = await fetch(`${simulator.url}/api/notification/v1/merchantcallback`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: simulator.merchantCode, name: 'gateway', callbackUrl, apiKey }),
  });
  return registered.status;
}
