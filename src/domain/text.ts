/**
 * Free text from clients: bounded so one request cannot store megabytes, and never able to break
 * the SQL it ends up in.
 *
 * The one rule for text that may reach PostgreSQL: well-formed Unicode without NUL. PostgreSQL
 * text cannot hold NUL (22021), jsonb refuses a lone UTF-16 surrogate (22P02) and a text column
 * silently turns one into U+FFFD. Request bodies are checked whole at parse time
 * (`requestJsonProblem`, every string and key of REST v2, v1 and GraphQL bodies); the field
 * helpers below apply the same rule to what arrives another way (GraphQL literals, query strings).
 */
import { DomainError } from './errors.js';

export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_SEARCH_LENGTH = 100;
/** Deepest nesting a request body may have: real bodies are 3 levels deep; deeper only costs stack. */
const MAX_JSON_DEPTH = 32;

/** With the u flag a surrogate pair is one code point; only a lone surrogate is in category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why this text cannot be stored as is, or null when it can. */
function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(value)) return 'is not well-formed Unicode (a lone surrogate)';
  return null;
}

/**
 * What makes a parsed JSON request body unacceptable, or null: a string or key that breaks the
 * text rule, a `__proto__` key, or nesting deeper than MAX_JSON_DEPTH. Walked with an explicit
 * stack, so no body can overflow the call stack here (nor later, in JSON.stringify).
 */
export function requestJsonProblem(root: unknown): string | null {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return `${path || 'the body'} ${problem}`;
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        pending.push({ value: item, path: `${path}[${index}]`, depth: depth + 1 });
      });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return `${path ? `${path}.` : ''}__proto__ is not an accepted field`;
      const keyProblem = textProblem(key);
      if (keyProblem) return `a field name under ${path || 'the body'} ${keyProblem}`;
      pending.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

/** An optional text field of a body: absent stays null; too long or not storable is a 400. */
export function optionalBoundedText(field: string, value: string | undefined | null, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > maxLength) throw new DomainError('invalid_request_body', `${field} is longer than ${maxLength} characters`);
  const problem = textProblem(value);
  if (problem) throw new DomainError('invalid_request_body', `${field} ${problem}`);
  return value;
}

/** Operator-given text (names, sectors, reasons): bounded and storable, else `invalid_input`. */
export function boundedInputText(field: string, value: string, maxLength: number): string {
  if (value.length > maxLength) throw new DomainError('invalid_input', `${field} must be at most ${maxLength} characters`);
  const problem = textProblem(value);
  if (problem) throw new DomainError('invalid_input', `${field} ${problem}`);
  return value;
}

/** A filter value from a query: bounded and storable (it is compared with stored text). */
export function filterText(field: string, value: string | undefined, maxLength: number): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > maxLength) throw new DomainError('invalid_query', `${field} is longer than ${maxLength} characters`);
  const problem = textProblem(value);
  if (problem) throw new DomainError('invalid_query', `${field} ${problem}`);
  return value;
}

/** Text matched with LIKE (Prisma's `contains`) is literal: % and _ are not wildcards. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);
