/**
 * "Last used" of API keys, recorded off the request's path: authentication calls `noteApiKeyUse`
 * and does not wait. A key is written at most once per LAST_USE_RESOLUTION_MS per instance (the
 * memory here) and, across instances, at most about once per resolution (the statement is
 * conditional on the stored time), so a key serving thousands of requests a second costs one
 * small UPDATE a minute, not one per request. The shown time is therefore up to a minute early.
 */
import type { GatewayContext } from '../context.js';
import type { MerchantCaller } from './caller.js';
import { recordApiKeyUse } from './store.js';

/** How precise "last used" is: the dashboard shows it to the minute. */
export const LAST_USE_RESOLUTION_MS = 60_000;
/**
 * Keys remembered per instance: the size of the caller cache (a deployment's keys). Past it the
 * memory starts over, which costs at most one extra write per key.
 */
const MAX_REMEMBERED_KEYS = 10_000;

/** Per context (a process may hold several gateways in tests): apiKeyId -> when this instance last wrote it. */
const lastWrittenByContext = new WeakMap<GatewayContext, Map<string, number>>();

/**
 * Records that the caller's key was used now, at most once a minute, without delaying the request
 * (a failure is logged, never thrown); answers the caller, so authentication can wrap its result.
 */
export function noteApiKeyUse(ctx: GatewayContext, caller: MerchantCaller): MerchantCaller {
  recordUseLater(ctx, caller.apiKeyId);
  return caller;
}

function recordUseLater(ctx: GatewayContext, apiKeyId: string): void {
  let lastWritten = lastWrittenByContext.get(ctx);
  if (!lastWritten) {
    lastWritten = new Map();
    lastWrittenByContext.set(ctx, lastWritten);
  }
  const now = ctx.clock.now();
  const previous = lastWritten.get(apiKeyId);
  if (previous !== undefined && now.getTime() - previous < LAST_USE_RESOLUTION_MS) return;
  if (lastWritten.size >= MAX_REMEMBERED_KEYS) lastWritten.clear();
  lastWritten.set(apiKeyId, now.getTime());
  recordApiKeyUse(ctx.db, apiKeyId, now, LAST_USE_RESOLUTION_MS).catch((error: unknown) =>
    ctx.log.warn({ err: error, apiKeyId }, 'the last use of an API key could not be recorded'),
  );
}
