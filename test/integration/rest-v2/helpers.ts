/**
 * Small assertions shared by the REST v2 transaction tests (not a test file itself).
 */
import { expect } from 'vitest';
import { transactionBody, type HttpResult, type TestGateway } from '../../support/gateway.js';

/** An error answer of the spec: this status and a body of exactly `{ error }` with this wording. */
export function expectError(response: HttpResult, status: number, message: string | RegExp): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: expect.any(String) } });
  expect(Object.keys(response.body)).toEqual(['error']);
  if (typeof message === 'string') expect(response.body).toEqual({ error: message });
  else expect(response.body.error).toMatch(message);
}

/** An error whose wording the spec leaves open: the status and a body of exactly one non-empty `error`. */
export function expectSomeError(response: HttpResult, status: number): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: expect.any(String) } });
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error.length).toBeGreaterThan(0);
}

export const transactionCount = (gateway: TestGateway, organizationId: string): Promise<number> =>
  gateway.ctx.db.transaction.count({ where: { organizationId } });

/** Creates a transaction through the API and insists it worked; returns the create response body. */
export async function createOk(gateway: TestGateway, key: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const response = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody(overrides) });
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 200 });
  return response.body;
}

/** One product of this unit price and quantity (the total is their product). */
export const oneProduct = (price: number, quantity = 1, name = 'Thiéboudienne') => [{ name, price, quantity }];

export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
