/**
 * Which API-key scopes each merchant operation accepts (the spec's Authentication table), and
 * whether it is a write (inactive organisations may still read, never write).
 * openapi/v2.yaml repeats the scopes as `x-scopes`; a test keeps the two equal.
 * (Whether an operation honours an Idempotency-Key is the operation's own choice: it calls
 * runIdempotently, see idempotency.ts.)
 */
import type { ApiScope } from '../generated/prisma/enums.js';

interface OperationAccess {
  scopes: readonly ApiScope[];
  write: boolean;
}

export const MERCHANT_OPERATIONS = {
  createTransaction: { scopes: ['checkout', 'write', 'readAndWrite'], write: true },
  getTransaction: { scopes: ['checkout', 'read', 'readAndWrite'], write: false },
  listTransactions: { scopes: ['checkout', 'read', 'readAndWrite'], write: false },
  cancelTransaction: { scopes: ['checkout', 'write', 'readAndWrite'], write: true },
  // GET /refund is a write although its verb is GET.
  refundTransaction: { scopes: ['checkout', 'write', 'readAndWrite', 'management'], write: true },
  createPayout: { scopes: ['payout'], write: true },
  getPayout: { scopes: ['payout', 'read'], write: false },
  listPayouts: { scopes: ['payout', 'read'], write: false },
  listAccounts: { scopes: ['read', 'readAndWrite', 'management'], write: false },
  getAccountStats: { scopes: ['read', 'readAndWrite', 'management'], write: false },
  getAccount: { scopes: ['read', 'readAndWrite', 'management'], write: false },
} as const satisfies Record<string, OperationAccess>;

export type MerchantOperation = keyof typeof MERCHANT_OPERATIONS;
