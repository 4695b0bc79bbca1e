/**
 * Client: the official NabooPay Python SDK, PyPI `naboopay` 1.0.2 (github
 * naboopay/naboopay-python-sdk), which sends through requests and validates every answer with
 * its pydantic models at run time. Every call it makes, as it makes it.
 */
import { describe, expect, it } from 'vitest';
import { pythonJsonDumps, pythonSdkAcceptsKey, pythonSdkSchemas, pythonUrlencode } from './clients.js';
import { describeV1Client } from './scenario.js';

describeV1Client({
  name: 'official Python SDK naboopay 1.0.2 (requests)',
  schemas: pythonSdkSchemas(),
  headers: (key, withBody) => ({
    'User-Agent': 'python-requests/2.32.3',
    'Accept-Encoding': 'gzip, deflate',
    Accept: '*/*',
    Connection: 'keep-alive',
    Authorization: `Bearer ${key}`,
    ...(withBody && { 'Content-Type': 'application/json' }),
  }),
  json: pythonJsonDumps,
  query: pythonUrlencode,
  createMethod: 'POST',
  // request.dict(exclude_unset=True): only what the merchant set (here the two required fields).
  createBody: (methods, products) => ({ method_of_payment: methods, products }),
  listParams: (filters) => [['limit', '50'], ...filters],
  keyFormat: 'naboo',
  acceptsKey: pythonSdkAcceptsKey,
});

describe('API keys and the official Python SDK naboopay 1.0.2 constructor', () => {
  it('refuses the gateway key form (no "naboo-") and a "naboo-" + UUID key, and accepts the naboo form', () => {
    expect(pythonSdkAcceptsKey(`gw_sk_${'A'.repeat(43)}`)).toBe(false);
    expect(pythonSdkAcceptsKey(`naboo-${crypto.randomUUID()}`)).toBe(false);
    expect(pythonSdkAcceptsKey(`gw_sk_${'A'.repeat(43)}_naboo-v1`)).toBe(true);
  });
});
