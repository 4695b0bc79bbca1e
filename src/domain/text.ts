/**
 * Free text from clients: bounded so one request cannot store megabytes, and never able to break
 * the SQL it ends up in.
 */
import { DomainError } from './errors.js';

export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_SEARCH_LENGTH = 100;

/** PostgreSQL text cannot hold NUL, and no name or URL needs it. */
const hasNul = (value: string): boolean => value.includes('\u0000');

/** An optional text field of a body: absent stays null; too long or with NUL is a 400. */
export function optionalBoundedText(field: string, value: string | undefined | null, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > maxLength) throw new DomainError('invalid_request_body', `${field} is longer than ${maxLength} characters`);
  if (hasNul(value)) throw new DomainError('invalid_request_body', `${field} contains a NUL character`);
  return value;
}

/** A filter value from a query: bounded, NUL-free. */
export function filterText(field: string, value: string | undefined, maxLength: number): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > maxLength) throw new DomainError('invalid_query', `${field} is longer than ${maxLength} characters`);
  if (hasNul(value)) throw new DomainError('invalid_query', `${field} contains a NUL character`);
  return value;
}

/** Text matched with LIKE (Prisma's `contains`) is literal: % and _ are not wildcards. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);
