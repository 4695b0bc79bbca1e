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
