/** Redirect URLs merchants give for after the payment (success_url, error_url). */
import { DomainError } from './errors.js';

const MAX_URL_LENGTH = 2048;

/** A redirect URL: absolute http(s), no percent-encoded characters (the spec's rule). */
export function validateRedirectUrl(value: string): string {
  if (/%[0-9a-f]{2}/i.test(value)) throw new DomainError('encoded_url');
  // Control characters (NUL, newlines...) are never part of a redirect the customer should follow.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point: they are refused
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
