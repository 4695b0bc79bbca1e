/**
 * Implicit idempotency for clients that retry blindly. The public NabooPay v1 SDKs (Node 2.0.0,
 * Python 1.0.2) retry every failed call three more times, 1 s, 2 s and 4 s apart, POSTs included,
 * and never send an Idempotency-Key. For an operation that moves money, such a client gets a key
 * derived from its request: the same request (same fields, same organisation) within
 * RETRY_WINDOW_MS of the first is the same request, and the Idempotency-Key machinery
 * (idempotency.ts) replays the first one's answer (a payout sent, or refused by the provider) or
 * answers 409 while it still runs, instead of executing it again.
 *
 * The window is anchored on the first request, not on the clock: keys are named by 5-minute bucket,
 * and a request also takes the previous bucket's key when that key was claimed less than
 * RETRY_WINDOW_MS ago. So identical requests less than 5 minutes apart always share one key (a
 * retry across a bucket boundary included), and identical requests 5 minutes or more apart never
 * do (a deliberate second payout of the same amount to the same phone goes out).
 */
import { createHash } from 'node:crypto';
import type { GatewayContext } from './context.js';
import { canonicalJson } from './idempotency.js';

/** NabooPay's public documentation answers 409 to a second payout to the same phone within 5 minutes. */
export const RETRY_WINDOW_MS = 5 * 60 * 1000;

/**
 * The key of a request sent without one. `kind` names the surface and operation (e.g.
 * `v1-cashout`), `request` its normalised fields: every field that makes two requests different,
 * so two requests that differ never share a key (and never meet the 422 of a reused key).
 */
export async function blindRetryKey(ctx: GatewayContext, organizationId: string, kind: string, request: unknown): Promise<string> {
  const digest = createHash('sha256')
    .update(`${kind}\n${canonicalJson(request)}`)
    .digest('hex')
    .slice(0, 48);
  const now = ctx.clock.now().getTime();
  const bucket = Math.floor(now / RETRY_WINDOW_MS);
  const keyOf = (n: number) => `blind-retry:${kind}:${digest}:${n}`;
  const previous = await ctx.db.idempotencyKey.findUnique({
    where: { organizationId_key: { organizationId, key: keyOf(bucket - 1) } },
    select: { createdAt: true },
  });
  return previous && now - previous.createdAt.getTime() < RETRY_WINDOW_MS ? keyOf(bucket - 1) : keyOf(bucket);
}
