/**
 * The spec's Authentication table: the merchant operations of REST v2 / v1 and their access rows,
 * read from the one access policy (src/domain/access/policy.ts), never written here.
 * openapi/v2.yaml repeats the scopes as `x-scopes`; a test keeps the two equal.
 * (Whether an operation honours an Idempotency-Key is the operation's own choice: it calls
 * runIdempotently, see idempotency.ts.)
 */
import { ACCESS_POLICY, SPEC_OPERATIONS } from './policy.js';

export type MerchantOperation = (typeof SPEC_OPERATIONS)[number];

export const MERCHANT_OPERATIONS = Object.fromEntries(SPEC_OPERATIONS.map((operation) => [operation, ACCESS_POLICY[operation]])) as {
  readonly [Op in MerchantOperation]: (typeof ACCESS_POLICY)[Op];
};
