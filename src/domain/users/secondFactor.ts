/**
 * Two-factor sign-in: TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, one step of clock drift
 * either way) and single-use recovery codes.
 *
 * The TOTP secret is stored encrypted (AES-256-GCM, the user's id as associated data) under a key
 * derived by HKDF from the server key that already protects webhook secrets (WEBHOOK_SECRET_KEY or
 * the one generated into the data folder, shared by every host: src/infra/sharedSecrets.ts), so
 * there is no second secret to distribute. A copy of the database alone does not reveal it.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { GatewayContext } from '../context.js';

export const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** Steps of clock drift accepted either way (RFC 6238 recommends at most one). */
const TOTP_WINDOW = 1;
/** 160 bits: RFC 4226's recommended secret length for HMAC-SHA1. */
const TOTP_SECRET_BYTES = 20;
const ISSUER = 'XOF Gateway';

const RECOVERY_CODE_COUNT = 10;
/** Unambiguous lowercase letters and digits (no 0/o, 1/l/i): 32 symbols, 5 bits each. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** Ten symbols, about 50 bits: unguessable within the sign-in throttle's few attempts. */
const RECOVERY_SYMBOLS = 10;

const FORMAT = 'v1';
const IV_BYTES = 12;

/** The AES key of TOTP secrets: its own HKDF label, so it is not the webhook secrets' key. */
function totpKeyOf(ctx: GatewayContext): Buffer {
  const serverKey = ctx.settings.webhooks?.secretKey;
  if (!serverKey) throw new Error('no server key is configured (ctx.settings.webhooks.secretKey): TOTP secrets cannot be stored');
  return Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'xof-gateway totp secrets v1', 32));
}

export function sealTotpSecret(ctx: GatewayContext, userId: string, base32: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', totpKeyOf(ctx), iv);
  cipher.setAAD(Buffer.from(userId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(base32, 'utf8'), cipher.final()]);
  return [FORMAT, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

export function openTotpSecret(ctx: GatewayContext, userId: string, sealed: string): string {
  const [format, iv, ciphertext, tag] = sealed.split('.');
  if (format !== FORMAT || !iv || ciphertext === undefined || !tag) throw new Error(`user ${userId}: stored TOTP secret has an unknown format`);
  const decipher = createDecipheriv('aes-256-gcm', totpKeyOf(ctx), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(userId, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`user ${userId}: the TOTP secret does not decrypt with this server key (is WEBHOOK_SECRET_KEY the one it was stored with?)`);
  }
}

const totpOf = (base32: string, email: string) =>
  new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(base32) });

/** A new secret and what an authenticator app scans (otpauth://totp/...). */
export function newTotpSecret(email: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: TOTP_SECRET_BYTES }).base32;
  return { secret, otpauthUrl: otpauthUrlOf(secret, email) };
}

/** The `otpauth://totp/...` URL of a secret, for the account `email`. */
export const otpauthUrlOf = (base32: string, email: string): string => totpOf(base32, email).toString();

/** The current code of a secret (tests, and nothing else, need to compute one). */
export const totpCodeAt = (base32: string, at: Date): string => totpOf(base32, '').generate({ timestamp: at.getTime() });

export const isTotpShaped = (code: string): boolean => /^\d{6}$/.test(code);

/**
 * The 30-second step whose code `code` is (within one step of `now`), or null. The caller accepts
 * it only if it is later than the last step accepted, so a code is never used twice.
 */
export function totpStepOf(base32: string, code: string, now: Date): bigint | null {
  if (!isTotpShaped(code)) return null;
  const delta = totpOf(base32, '').validate({ token: code, timestamp: now.getTime(), window: TOTP_WINDOW });
  if (delta === null) return null;
  return BigInt(Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta);
}

/** A set of recovery codes as shown once (`abcde-fghjk`), and the digests stored for them. */
export function newRecoveryCodes(): { codes: string[]; digests: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const symbols = Array.from({ length: RECOVERY_SYMBOLS }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${symbols.slice(0, 5)}-${symbols.slice(5)}`;
  });
  return { codes, digests: codes.map(recoveryCodeDigest) };
}

/** Case, spaces and dashes do not matter when a code is typed back. */
export const recoveryCodeDigest = (code: string): string => createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, ''), 'utf8').digest('hex');

/** Longest code worth hashing (a recovery code is 11 characters; anything much longer is not one). */
export const MAX_CODE_LENGTH = 32;
