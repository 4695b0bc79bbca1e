/**
 * Which API-key scopes each merchant operation accepts (the spec's Authentication table),
 * whether it is a write (inactive organisations may still read, never write), and whether it
 * honours an Idempotency-Key (the operations that create money movements).
 * openapi/v2.yaml repeats the scopes as `x-scopes`; a test keeps the two equal.
 */
import type { ApiScope } from '../generated/prisma/enums.js';

interface OperationAccess {
  scopes: readonly ApiScope[];
  write: boolean;
  idempotent?: boolean;
}

export const MERCHANT_OPERATIONS = {
  createTransaction: { scopes: ['checkout', 'write', 'readAndWrite'], write: true, idempotent: true },
  getTransaction: { scopes: ['checkout', 'read', 'readAndWrite'], write: false },
  listTransactions: { scopes: ['checkout', 'read', 'readAndWrite'], write: false },
  cancelTransaction: { scopes: ['checkout', 'write', 'readAndWrite'], write: true },
  // GET /refund is a write although its verb is GET.
  refundTransaction: { scopes: ['checkout', 'write', 'readAndWrite', 'management'], write: true, idempotent: true },
  createPayout: { scopes: ['payout'], write: true, idempotent: true },
  getPayout: { scopes: ['payout', 'read'], write: false },
  listPayouts: { scopes: ['payout', 'read'], write: false },
  listAccounts: { scopes: ['read', 'readAndWrite', 'management'], write: false },
  getAccountStats: { scopes: ['read', 'readAndWrite', 'management'], write: false },
  getAccount: { scopes: ['read', 'readAndWrite', 'management'], write: false },
} as const satisfies Record<string, OperationAccess>;

export type MerchantOperation = keyof typeof MERCHANT_OPERATIONS;

export const API_SCOPES: readonly ApiScope[] = ['checkout', 'read', 'write', 'readAndWrite', 'payout', 'management'];

export const isIdempotent = (operation: MerchantOperation): boolean => (MERCHANT_OPERATIONS[operation] as OperationAccess).idempotent === true;
