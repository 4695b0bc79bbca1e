/** Steps shared by the REST v2 transaction tests (not a test file itself); assertions are in test/support/assertions.ts. */
import { expect } from 'vitest';
import { transactionBody, type TestGateway } from '../../../support/gateway.js';

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
