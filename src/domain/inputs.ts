/** Inputs that operations of several capabilities share. */

/** A customer (of a transaction) or a recipient (of a payout). */
export interface PersonInput {
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
}

export interface OperationOptions {
  /** The client's Idempotency-Key (header or argument), if any. */
  idempotencyKey?: string;
  /** The key was derived by the gateway for a client that retries blindly: refusals are not kept (idempotency.ts). */
  idempotencyKeyDerived?: boolean;
}
