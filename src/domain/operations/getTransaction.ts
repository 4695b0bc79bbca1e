/** GET /transactions/{order_id}: one transaction of the caller's organisation. */
import { authorizeMerchant, type Caller } from '../auth.js';
import type { Db, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid, withOrderedProducts, type TransactionRecord } from '../transactions.js';

export async function getTransaction(ctx: GatewayContext, caller: Caller, orderId: string): Promise<TransactionRecord> {
  const organization = authorizeMerchant(caller, 'getTransaction');
  return findOwnTransaction(ctx.db, organization.id, orderId);
}

/**
 * Another organisation's transaction answers exactly like a missing one: its existence is not
 * revealed. A malformed id is just another id that does not exist.
 */
export async function findOwnTransaction(db: Db, organizationId: string, orderId: string): Promise<TransactionRecord> {
  const transaction = isUuid(orderId)
    ? await db.transaction.findFirst({ where: { id: orderId, organizationId }, include: withOrderedProducts })
    : null;
  if (!transaction) throw new DomainError('transaction_not_found');
  return transaction;
}
