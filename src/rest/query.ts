/**
 * Readers for query strings, shared by REST v2 and v1. A repeated or malformed parameter is a
 * 400 `Invalid query parameter: ...`, never silently ignored.
 */
import { DomainError } from '../domain/errors.js';

export type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new DomainError('invalid_query', `${name} is given more than once`);
  return value === '' ? undefined : value;
}

export function queryString(query: Query, name: string): string | undefined {
  return single(query, name);
}

export function queryInteger(query: Query, name: string): number | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (!/^-?\d{1,15}$/.test(value)) throw new DomainError('invalid_query', `${name} must be an integer`);
  return Number(value);
}

export function queryBoolean(query: Query, name: string): boolean | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new DomainError('invalid_query', `${name} must be true or false`);
  return value === 'true';
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export function queryDate(query: Query, name: string): Date | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!RFC3339.test(value) || Number.isNaN(date.getTime())) {
    throw new DomainError('invalid_query', `${name} must be an RFC 3339 date-time (encode "+" as %2B, or use Z)`);
  }
  return date;
}

/** Parses with a domain parser (status, method) and reports failures as this query parameter. */
export function queryEnum<T>(query: Query, name: string, parse: (value: string) => T): T | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch {
    throw new DomainError('invalid_query', `${name} has an unsupported value`);
  }
}
