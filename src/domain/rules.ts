/**
 * Rules of the business that more than one operation applies: money bounds, methods, phones,
 * URLs, text lengths, kill switches. Each rule lives here once.
 */
import type { PaymentMethod } from '../generated/prisma/enums.js';
import type { Db } from './context.js';
import { DomainError } from './errors.js';

export const PAYMENT_METHODS: readonly PaymentMethod[] = ['wave', 'orange_money'];

/** Totals and payouts must be strictly greater than this (spec: "greater than 10 XOF"). */
export const MINIMUM_AMOUNT_EXCLUSIVE = 10;
/**
 * Hard ceiling on any single amount: 10^12 XOF (about 1.5 billion EUR). Keeps every amount far
 * inside JavaScript's exact integer range (2^53) and PostgreSQL bigint, whatever an organisation's
 * own limits say.
 */
export const MAXIMUM_AMOUNT = 1_000_000_000_000;
/** Most products one transaction may list: a checkout page, not a warehouse manifest. */
export const MAX_PRODUCTS = 100;
/** Most units of one product: far above any real basket, far below the 32-bit column. */
export const MAX_QUANTITY = 1_000_000;
/** Bounds on free text so that one request cannot store megabytes. */
export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_URL_LENGTH = 2048;
export const MAX_SEARCH_LENGTH = 100;

export function parsePaymentMethod(value: string): PaymentMethod {
  if (!(PAYMENT_METHODS as readonly string[]).includes(value)) throw new DomainError('unsupported_payment_method');
  return value as PaymentMethod;
}

/** International format: a plus sign, then 8 to 15 digits (E.164). */
const PHONE_PATTERN = /^\+[1-9]\d{7,14}$/;

/** Phones are written with spaces and dashes by people, compared without them by us. */
export const compactPhone = (value: string): string => value.replace(/[\s-]/g, '');

export function normalizePhone(value: string): string {
  const compact = compactPhone(value);
  if (!PHONE_PATTERN.test(compact)) throw new DomainError('invalid_phone');
  return compact;
}

/** A redirect URL: absolute http(s), no percent-encoded characters (the spec's rule). */
export function validateRedirectUrl(value: string): string {
  if (/%[0-9a-f]{2}/i.test(value)) throw new DomainError('encoded_url');
  // Control characters (NUL, newlines...) are never part of a redirect the customer should follow.
  if (value.length > MAX_URL_LENGTH || /[\u0000-\u001f\u007f]/.test(value)) throw new DomainError('invalid_url');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DomainError('invalid_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DomainError('invalid_url');
  return value;
}

/** PostgreSQL text cannot hold NUL, and no name or URL needs it. */
const hasNul = (value: string): boolean => value.includes('\u0000');

export function requireText(field: string, value: string | undefined | null, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > maxLength) throw new DomainError('invalid_request_body', `${field} is longer than ${maxLength} characters`);
  if (hasNul(value)) throw new DomainError('invalid_request_body', `${field} contains a NUL character`);
  return value;
}

/** A filter value from a query: bounded, and never able to break the SQL it ends up in. */
export function filterText(field: string, value: string | undefined, maxLength: number): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > maxLength) throw new DomainError('invalid_query', `${field} is longer than ${maxLength} characters`);
  if (hasNul(value)) throw new DomainError('invalid_query', `${field} contains a NUL character`);
  return value;
}

/** Text matched with LIKE (Prisma's `contains`) is literal: % and _ are not wildcards. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

export type SwitchName = 'transactions' | 'payouts' | PaymentMethod;
export const SWITCH_NAMES: readonly SwitchName[] = ['transactions', 'payouts', 'wave', 'orange_money'];

/** Operator kill switches; a switch with no row is on. */
export async function isSwitchOn(db: Db, name: SwitchName): Promise<boolean> {
  const row = await db.switch.findUnique({ where: { name } });
  return row?.on ?? true;
}

/** First instant of the UTC calendar month containing `now`. */
export function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** Monthly volume an unverified organisation may create (spec: 200000 XOF). */
export const UNVERIFIED_MONTHLY_LIMIT = 200_000;
