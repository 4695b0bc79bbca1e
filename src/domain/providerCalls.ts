/**
 * Calls to the wallet provider, each bounded in time (TIGER_STYLE: a limit on everything). Money
 * may move even when the call fails or outlasts its deadline, so neither is ever read as "failed":
 * the answer is "not known yet", the record stays open, and a reconciler asks the provider what
 * became of it (never sending it again).
 */
import type { GatewayContext } from './context.js';

/** Longest a request waits for the provider (the reconcilers take over after). Settings may shorten it. */
export const PROVIDER_TIMEOUT_MS = 30_000;

export type ProviderCallOutcome<T> = { answered: T } | { unknown: 'no answer from the provider in time' | 'the provider call failed' };

/** `call`, once, bounded by the provider timeout; a throw is logged with `logFields` and `logMessage`. */
export async function callProviderOnce<T>(ctx: GatewayContext, call: () => Promise<T>, logFields: Record<string, unknown>, logMessage: string): Promise<ProviderCallOutcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProviderCallOutcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ unknown: 'no answer from the provider in time' }), ctx.settings.providerTimeoutMs ?? PROVIDER_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([call().then((answered) => ({ answered })), deadline]);
  } catch (error) {
    ctx.log.warn({ err: error, ...logFields }, logMessage);
    return { unknown: 'the provider call failed' };
  } finally {
    clearTimeout(timer);
  }
}
