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
  // Any whole number is read (the domain caps or refuses it); 30 digits bounds the parsing.
  if (!/^-?\d{1,30}$/.test(value)) throw new DomainError('invalid_query', `${name} must be an integer`);
  return Number(value);
}

export function queryBoolean(query: Query, name: string): boolean | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new DomainError('invalid_query', `${name} must be true or false`);
  return value === 'true';
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

/** RFC 3339 with a real calendar date: Date would quietly turn February 30 into March 1. */
function parseRfc3339(value: string): Date | null {
  const match = RFC3339.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [offsetHours, offsetMinutes] = [Number(match[9] ?? 0), Number(match[10] ?? 0)];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) {
    return null;
  }
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const BARE_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A bare date `YYYY-MM-DD` as a real UTC calendar day (its first millisecond), or null. */
function parseBareDate(value: string): Date | null {
  const match = BARE_DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = match.slice(1, 4).map(Number) as [number, number, number];
  const start = new Date(Date.UTC(year, month - 1, day));
  return start.getUTCFullYear() === year && start.getUTCMonth() === month - 1 && start.getUTCDate() === day ? start : null;
}

/**
 * One edge of an inclusive date range filter (v2's `start_date` / `end_date`, v1's
 * `created_at_start` / `created_at_end`): an RFC 3339 date-time, or a bare date `YYYY-MM-DD`
 * meaning that whole UTC day, as public integrations send it: a range's start takes the day's
 * first millisecond, its end the day's last.
 */
export function queryDate(query: Query, name: string, edge: 'start' | 'end'): Date | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  const day = parseBareDate(value);
  if (day) return edge === 'start' ? day : new Date(day.getTime() + DAY_MS - 1);
  const date = parseRfc3339(value);
  if (!date) throw new DomainError('invalid_query', `${name} must be an RFC 3339 date-time (encode "+" as %2B, or use Z) or a date (YYYY-MM-DD)`);
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
