/**
 * The checkout form's anti-forgery token, without cookies: `<expiry>.<HMAC-SHA256(secret,
 * orderId + expiry)>`. Only a page this server rendered for THIS order carries a valid one, so
 * a form on another site, a token copied from another transaction's page, or an altered token
 * is refused before anything is paid. What the token does not cover (method, phone) is what the
 * customer chooses; the domain refuses a method the transaction does not offer and a bad phone.
 *
 * The secret is given by the composition root: derived from GATEWAY_ADMIN_TOKEN, which every host
 * of a deployment must share (infra/sharedSecrets.ts refuses a host whose token differs), so a form
 * rendered by one host is accepted by any other. When none is given (tests), it is generated at
 * process start: then a restart, or a POST reaching another instance than the GET, shows "this
 * form expired, open the page again" — never a payment.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a rendered form may be posted: long enough to fetch a phone, short enough to expire. */
export const FORM_TOKEN_TTL_MS = 2 * 60 * 60 * 1000;
/** Longest token we look at: a timestamp, a dot and 43 base64url characters. */
const MAX_TOKEN_LENGTH = 80;

export interface FormTokens {
  issue(orderId: string, now: Date): string;
  verify(token: unknown, orderId: string, now: Date): boolean;
}

export function createFormTokens(secret?: string | Buffer): FormTokens {
  // A dedicated key, derived so that a secret shared with another purpose is never used as is.
  const key = createHmac('sha256', secret ?? randomBytes(32))
    .update('checkout-form-token-v1')
    .digest();
  const mac = (orderId: string, expiresAt: number): Buffer => createHmac('sha256', key).update(`${orderId.toLowerCase()}\n${expiresAt}`).digest();

  return {
    issue(orderId, now) {
      const expiresAt = Math.floor((now.getTime() + FORM_TOKEN_TTL_MS) / 1000);
      return `${expiresAt}.${mac(orderId, expiresAt).toString('base64url')}`;
    },
    verify(token, orderId, now) {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return false;
      const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return false;
      const expiresAt = Number(match[1]);
      if (expiresAt * 1000 < now.getTime()) return false;
      // A far-future expiry was not issued by us (and would outlive the TTL): refuse it too.
      if (expiresAt * 1000 > now.getTime() + FORM_TOKEN_TTL_MS + 60_000) return false;
      const given = Buffer.from(match[2]!, 'base64url');
      const expected = mac(orderId, expiresAt);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
