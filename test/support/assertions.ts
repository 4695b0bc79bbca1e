/**
 * Assertions shared by every wire test. Error rows come from the one catalogue
 * (src/domain/errors.ts): a test names the error code, and the status and wording it expects are
 * the catalogue's, so a wording changes in one place.
 */
import { expect } from 'vitest';
import { DomainError, type ErrorCode } from '../../src/domain/errors.js';
import type { HttpResult, TestGateway } from './gateway.js';

/** A REST v2 error answer: this status and a body of exactly `{ error }` with this wording. */
export function expectError(response: HttpResult, status: number, message: string | RegExp): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: expect.any(String) } });
  expect(Object.keys(response.body)).toEqual(['error']);
  if (typeof message === 'string') expect(response.body).toEqual({ error: message });
  else expect(response.body.error).toMatch(message);
}

/** A REST v2 error answer for a catalogue row: its status and wording (with `detail` where the wording takes one). */
export function expectCatalogueError(response: HttpResult, code: ErrorCode, detail = ''): void {
  const error = new DomainError(code, detail);
  expectError(response, error.status, error.message);
}

/** A GraphQL refusal for a catalogue row: its message, extensions.code and extensions.status. */
export function expectGraphqlError(response: HttpResult, code: ErrorCode, detail = ''): void {
  const error = new DomainError(code, detail);
  expect(response.body.errors?.[0], JSON.stringify(response.body)).toMatchObject({
    message: error.message,
    extensions: { code: error.graphqlCode, status: error.status },
  });
}

/** An error whose wording the spec leaves open: the status and a body of exactly one non-empty `error`. */
export function expectSomeError(response: HttpResult, status: number): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: expect.any(String) } });
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error.length).toBeGreaterThan(0);
}

export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** A GraphQL call (as the admin operator unless told) that must succeed: its data. */
export async function graphqlData<T = any>(
  gateway: TestGateway,
  query: string,
  variables: Record<string, unknown> = {},
  token = gateway.adminToken,
): Promise<T> {
  const response = await gateway.graphql(query, variables, token);
  expect(response.body.errors, JSON.stringify(response.body)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.body.data;
}

/** A GraphQL call (as the admin operator unless told) that must be refused: exactly one error and no data. */
export async function graphqlRefusal(gateway: TestGateway, query: string, variables: Record<string, unknown> = {}, token = gateway.adminToken) {
  const response = await gateway.graphql(query, variables, token);
  expect(response.body.errors, JSON.stringify(response.body)).toHaveLength(1);
  expect(response.body.data ?? null).toBeNull();
  return { httpStatus: response.status, ...response.body.errors[0] };
}

/**
 * Ids in the order every list gives them: newest first by creation time, to the millisecond, then
 * by id, descending (the stores' ORDER BY "createdAt" DESC, id DESC). Rows made one after another
 * can share a millisecond, so a test expects this rather than the order it made them in.
 */
export function newestFirstIds<T>(rows: readonly T[], createdAt: (row: T) => string | Date, id: (row: T) => string): string[] {
  const time = (row: T) => new Date(createdAt(row)).getTime();
  return [...rows].sort((a, b) => time(b) - time(a) || (id(a) < id(b) ? 1 : -1)).map(id);
}
