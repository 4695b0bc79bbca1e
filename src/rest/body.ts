/**
 * Readers for JSON request bodies, shared by REST v2 and v1. They check the SHAPE (types) only;
 * business rules are the domain's. A wrong type is 400 `Invalid request body: <field> ...`;
 * null counts as absent; unknown fields are ignored.
 */
import { DomainError } from '../domain/errors.js';
import { requestJsonProblem } from '../domain/text.js';

export type JsonObject = Record<string, unknown>;

const invalid = (detail: string): DomainError => new DomainError('invalid_request_body', detail);

/**
 * Parses the raw body (kept as text until the caller is authenticated) into a JSON object. A body
 * that is not one is refused with `unreadable`: `Invalid request body` by default; POST /payouts
 * passes `invalid_request`, as its spec table keeps `Invalid request` for a request that cannot
 * be read and `Invalid request body` for the list of missing or invalid fields.
 *
 * The whole body then meets the text rule of src/domain/text.ts (no NUL, no lone surrogate, no
 * `__proto__` key, bounded nesting), every field at once, known or not: `Invalid request body: <why>`.
 */
export function parseJsonObject(raw: unknown, unreadable: 'invalid_request_body' | 'invalid_request' = 'invalid_request_body'): JsonObject {
  const refused = () => (unreadable === 'invalid_request' ? new DomainError('invalid_request') : invalid(''));
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') throw refused();
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw refused();
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw refused();
  const problem = requestJsonProblem(parsed);
  if (problem) throw invalid(problem);
  return parsed as JsonObject;
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

export function optionalString(body: JsonObject, key: string, path = key): string | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  if (typeof value !== 'string') throw invalid(`${path} must be a string`);
  return value;
}

export function requiredString(body: JsonObject, key: string, path = key): string {
  const value = optionalString(body, key, path);
  if (value === undefined) throw invalid(`${path} is required`);
  return value;
}

/** Integers only: "100" (a string) and 10.5 are refused, never coerced. */
export function optionalInteger(body: JsonObject, key: string, path = key): number | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(`${path} must be an integer`);
  return value;
}

export function requiredInteger(body: JsonObject, key: string, path = key): number {
  const value = optionalInteger(body, key, path);
  if (value === undefined) throw invalid(`${path} is required`);
  return value;
}

export function optionalBoolean(body: JsonObject, key: string, path = key): boolean | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  if (typeof value !== 'boolean') throw invalid(`${path} must be true or false`);
  return value;
}

export function optionalObject(body: JsonObject, key: string, path = key): JsonObject | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${path} must be an object`);
  return value as JsonObject;
}

/** Most items any array in a request may hold, whatever the domain later allows. */
const MAX_ARRAY_ITEMS = 1000;

export function optionalArray(body: JsonObject, key: string, path = key): unknown[] | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  if (!Array.isArray(value)) throw invalid(`${path} must be an array`);
  if (value.length > MAX_ARRAY_ITEMS) throw invalid(`${path} has more than ${MAX_ARRAY_ITEMS} items`);
  return value;
}

export function stringItems(items: unknown[], path: string): string[] {
  return items.map((item, index) => {
    if (typeof item !== 'string') throw invalid(`${path}[${index}] must be a string`);
    return item;
  });
}

export function objectItems(items: unknown[], path: string): JsonObject[] {
  return items.map((item, index) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw invalid(`${path}[${index}] must be an object`);
    return item as JsonObject;
  });
}
