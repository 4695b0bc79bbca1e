/**
 * Implicit idempotency for clients that retry blindly. The public NabooPay v1 SDKs retry every
 * failed call, POSTs included, and never send an Idempotency-Key (their sources, read for
 * docs/v1-clients.md):
 * - Node `naboopay` 2.0.0: async-retry `{ retries: 3, minTimeout: 1000, factor: 2 }`, whose
 *   default `randomize: true` multiplies each wait by a random factor in [1, 2): three retries
 *   waiting 1-2 s, 2-4 s and 4-8 s after the failed attempt's answer, at most 14 s of waits in all;
 * - Python `naboopay` 1.0.2: tenacity `stop_after_attempt(3)`, `wait_random_exponential(multiplier=1)`:
 *   two retries waiting under 1 s and under 2 s, at most 3 s in all.
 * Neither sets a request timeout (axios `timeout: 0`, requests without `timeout=`), so a retry
 * follows the attempt's ANSWER: every retry of one call arrives within SDK_RETRY_WINDOW_MS of the
 * first answer (14 s of waits, plus the milliseconds each replayed answer takes).
 *
 * For an operation that moves money, such a client gets a key derived from its request. The same
 * request (same fields, same organisation):
 * - while the first still runs: the Idempotency-Key machinery answers 409 "still running";
 * - within SDK_RETRY_WINDOW_MS of the first one's answer: a retry, which replays that answer
 *   (a payout sent, or refused by the provider) instead of executing it again;
 * - after that and less than REPEAT_REFUSED_MS after the first: a deliberate repeat, refused with
 *   409 `repeated_payout` (NabooPay's published rule: two payouts to one phone within 5 minutes
 *   are refused). Never a replayed 200: that would say money was sent by a request that sent none;
 * - REPEAT_REFUSED_MS or more after the first: a new request (a new payout goes out).
 *
 * Keys are named by 5-minute bucket; a request also finds the previous bucket's key, so identical
 * requests less than 5 minutes apart always meet one key (across a bucket boundary included), and
 * identical requests 5 minutes or more apart never do.
 */
import { createHash } from 'node:crypto';
import type { GatewayContext } from './context.js';
import { DomainError } from './errors.js';
import { answeredAtOf, canonicalJson, newestKeyAmong } from './idempotency.js';

/** NabooPay's public documentation answers 409 to a second payout to the same phone within 5 minutes. */
export const REPEAT_REFUSED_MS = 5 * 60 * 1000;

/** The official SDKs' retries follow the first answer by at most 14 s of waits (see above); 1 s more for the replays themselves. */
export const SDK_RETRY_WINDOW_MS = 15_000;

/**
 * The key of a request sent without one, or the refusal of a deliberate repeat. `kind` names the
 * surface and operation (e.g. `v1-cashout`), `request` its normalised fields: every field that
 * makes two requests different, so two requests that differ never share a key (and never meet the
 * 422 of a reused key).
 */
export async function blindRetryKey(ctx: GatewayContext, organizationId: string, kind: string, request: unknown): Promise<string> {
  const digest = createHash('sha256')
    .update(`${kind}\n${canonicalJson(request)}`)
    .digest('hex')
    .slice(0, 48);
  const now = ctx.clock.now().getTime();
  const bucket = Math.floor(now / REPEAT_REFUSED_MS);
  const keyOf = (n: number) => `blind-retry:${kind}:${digest}:${n}`;
  const earlier = await newestKeyAmong(ctx, organizationId, [keyOf(bucket), keyOf(bucket - 1)], new Date(now - REPEAT_REFUSED_MS));
  if (!earlier) return keyOf(bucket);
  const answeredAt = answeredAtOf(earlier);
  if (answeredAt === null || now - answeredAt.getTime() < SDK_RETRY_WINDOW_MS) return earlier.key;
  throw new DomainError('repeated_payout', '', { message: repeatRefusedMessage(earlier.createdAt) });
}

const utcTime = (at: Date): string => `${at.toISOString().slice(11, 19)} UTC`;

function repeatRefusedMessage(firstAt: Date): string {
  const allowedAt = new Date(firstAt.getTime() + REPEAT_REFUSED_MS);
  return (
    `Not sent: an identical cashout (same wallet, phone number, amount and name) was received at ${utcTime(firstAt)}, ` +
    `less than 5 minutes ago, and two payouts to one phone number within 5 minutes are refused. Its outcome is in your payouts. ` +
    `To send a second one, send it again from ${utcTime(allowedAt)}, or now with an Idempotency-Key of its own.`
  );
}
