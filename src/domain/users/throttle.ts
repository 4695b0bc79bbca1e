/**
 * Sign-in throttling, through the coordination's rate limiter (shared by every instance via
 * Redis): per account and per client address, and per account for second-factor codes. Every
 * attempt counts, successful ones too (the limiter has no "undo"), so the budgets leave room for a
 * person's mistakes: 10 attempts per account and 20 per address per 15 minutes; 10 second-factor
 * codes per account (enrolment and disabling included). A 6-digit code guessed at 10 tries per
 * 15 minutes takes about 18 months on average; a password, far longer.
 * Keys carry a digest of the email, never the email.
 */
import { sha256Hex } from '../access/auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { RateLimitDecision, RateLimitRule } from '../ports.js';
import { hitThrottle, retryAfterOfRefused } from '../rateLimit.js';

const WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_PER_ACCOUNT: RateLimitRule = { max: 10, windowMs: WINDOW_MS };
export const SIGN_IN_PER_ADDRESS: RateLimitRule = { max: 20, windowMs: WINDOW_MS };
const SECOND_FACTOR_PER_ACCOUNT: RateLimitRule = { max: 10, windowMs: WINDOW_MS };

/** 429 with the time to wait (the adapter's Retry-After). */
export class SignInThrottledError extends DomainError {
  constructor(readonly retryAfterMs: number) {
    super('sign_in_throttled');
  }
}

/** The sign-in throttle's hit: an outage lets the attempt through (argon2's cost still bounds guessing). */
const hit = (ctx: GatewayContext, key: string, rule: RateLimitRule) => hitThrottle(ctx, 'sign-in', key, rule);

function refuseIfOver(decisions: (RateLimitDecision | null)[]): void {
  const retryAfterMs = retryAfterOfRefused(decisions);
  if (retryAfterMs !== null) throw new SignInThrottledError(retryAfterMs);
}

export async function throttleSignIn(ctx: GatewayContext, email: string, clientAddress: string): Promise<void> {
  refuseIfOver([
    await hit(ctx, `signin:address:${clientAddress}`, SIGN_IN_PER_ADDRESS),
    await hit(ctx, `signin:account:${sha256Hex(email)}`, SIGN_IN_PER_ACCOUNT),
  ]);
}

export async function throttleSecondFactor(ctx: GatewayContext, userId: string): Promise<void> {
  refuseIfOver([await hit(ctx, `signin:second:${userId}`, SECOND_FACTOR_PER_ACCOUNT)]);
}
