/** Wallet and customer phone numbers: international format, compared without separators. */
import { DomainError } from './errors.js';

/** International format: a plus sign, then 8 to 15 digits (E.164). */
const PHONE_PATTERN = /^\+[1-9]\d{7,14}$/;

/** Phones are written with spaces and dashes by people, compared without them by us. */
export const compactPhone = (value: string): string => value.replace(/[\s-]/g, '');

export function normalizePhone(value: string): string {
  const compact = compactPhone(value);
  if (!PHONE_PATTERN.test(compact)) throw new DomainError('invalid_phone');
  return compact;
}

/** Separators people write inside a phone number: spaces (also non-breaking), dots, dashes, brackets. */
const PHONE_WRITING = /^[+\d\s\u00a0.()-]+$/;
/** Fewer digits than this is an amount or part of an id, not a phone worth matching by its end. */
const MIN_PHONE_SEARCH_DIGITS = 6;

/**
 * The digits a stored phone (international format, `+` and digits) must END with to match what a
 * person typed in a search box, in any common writing of it: `+221 77 123 45 67`, `00221771234567`,
 * `221771234567`, `771234567`, `77 123 45 67`, `77.123.45.67` all give a suffix of
 * `+221771234567`. Null when the text is not written like a phone (letters, too few digits).
 * Matching on the end lets a national number (without its country code) find the international one.
 */
export function phoneSearchSuffix(text: string): string | null {
  const trimmed = text.trim();
  if (!PHONE_WRITING.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, '').replace(/^00/, '');
  return digits.length >= MIN_PHONE_SEARCH_DIGITS ? digits : null;
}
