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

/** Separators people write inside a phone number: spaces (also non-breaking), dots, dashes, brackets, a plus. */
const PHONE_WRITING = /^[+\d\s\u00a0.()-]+$/;
/**
 * Fewer digits than this is a part of a number (searched as text, by `contains`), an amount or an
 * id, not a whole phone: the shortest national numbers of these markets have 8 digits.
 */
const MIN_PHONE_SEARCH_DIGITS = 8;
/**
 * Country codes a number written without one may belong to: the gateway's markets (Senegal, Côte
 * d'Ivoire) and their neighbours whose wallets it may see. A number of another country is found
 * when written with its code.
 */
const NATIONAL_COUNTRY_CODES = ['221', '225', '223', '226', '228', '229', '227', '224', '220', '222', '245', '237'] as const;

/**
 * The stored numbers (international format, `+` and digits) a text typed in a search box may mean,
 * in any common writing: `+221 77 123 45 67`, `00221771234567`, `221771234567`, `771234567`,
 * `77 123 45 67`, `77.123.45.67` all include `+221771234567`. Null when the text is not written
 * like a phone (letters, too few digits). Exact numbers, not a pattern: a list is then searched
 * through its (organisation, phone) index instead of reading every row (bench: search by phone).
 */
export function phoneSearchCandidates(text: string): string[] | null {
  const trimmed = text.trim();
  if (!PHONE_WRITING.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, '').replace(/^00/, '');
  if (digits.length < MIN_PHONE_SEARCH_DIGITS) return null;
  const candidates = [digits, ...NATIONAL_COUNTRY_CODES.map((code) => `${code}${digits}`)]
    .filter((candidate) => PHONE_PATTERN.test(`+${candidate}`))
    .map((candidate) => `+${candidate}`);
  return candidates.length ? [...new Set(candidates)] : null;
}
