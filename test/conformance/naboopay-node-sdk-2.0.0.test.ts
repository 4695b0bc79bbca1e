/**
 * Client: the official NabooPay Node SDK, npm `naboopay` 2.0.0 (github naboopay/naboopay-nodejs-sdk),
 * which sends through axios 1.x and retries with async-retry. Every call it makes, as it makes it.
 */
import { axiosParams, nodeSdkSchemas } from './clients.js';
import { describeV1Client } from './scenario.js';

describeV1Client({
  name: 'official Node SDK naboopay 2.0.0 (axios)',
  schemas: nodeSdkSchemas(),
  headers: (key, withBody) => ({
    Accept: 'application/json, text/plain, */*',
    ...(withBody && { 'Content-Type': 'application/json' }),
    Authorization: `Bearer ${key}`,
    'User-Agent': 'axios/1.7.2',
    'Accept-Encoding': 'gzip, compress, deflate, br',
  }),
  json: (value) => JSON.stringify(value),
  query: axiosParams,
  createMethod: 'POST',
  // TransactionRequest.toJSON(): every field, with the SDK's defaults.
  createBody: (methods, products) => ({
    method_of_payment: methods,
    products,
    success_url: 'https://checkout.naboopay.com/success',
    error_url: 'https://checkout.naboopay.com/error',
    fees_customer_side: true,
    is_escrow: false,
    is_merchant: false,
  }),
  // getAll(): limit (50 by default) first, then the filters given.
  listParams: (filters) => [['limit', '50'], ...filters],
  keyFormat: 'gateway',
  // Its Auth only refuses an empty token.
  acceptsKey: (key) => key.length > 0,
});
