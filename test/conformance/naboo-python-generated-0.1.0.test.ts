/**
 * Client: NabooPay's generated v1 client `naboo` 0.1.0 (github naboopay/naboo-python, OpenAPI
 * Generator, urllib3, pydantic Strict* models). It creates with PUT and sends no list filter.
 * Every call it makes, as it makes it.
 */
import { generatedClientSchemas, pythonJsonDumps, pythonUrlencode } from './clients.js';
import { describeV1Client } from './scenario.js';

describeV1Client({
  name: 'generated client naboo-python 0.1.0 (urllib3)',
  schemas: generatedClientSchemas(),
  headers: (key, withBody) => ({
    'Accept-Encoding': 'identity',
    Accept: 'application/json',
    ...(withBody && { 'Content-Type': 'application/json' }),
    'User-Agent': 'OpenAPI-Generator/1.0.0/python',
    Authorization: `Bearer ${key}`,
  }),
  json: pythonJsonDumps,
  query: pythonUrlencode,
  createMethod: 'PUT',
  // TransactionRequest.to_dict(): None left out, the two booleans' defaults kept; no fees_customer_side.
  createBody: (methods, products) => ({ method_of_payment: methods, products, is_escrow: false, is_merchant: false }),
  listParams: null,
  keyFormat: 'gateway',
  acceptsKey: (key) => key.length > 0,
});
