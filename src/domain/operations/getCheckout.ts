/**
 * The checkout page's view of a transaction. No API key: the customer holds only the
 * unguessable order id from checkout_url, and sees only what a payer needs.
 */
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { amountToPay, isUuid, withOrderedProducts, type TransactionRecord } from '../transactions.js';

export interface CheckoutView {
  transaction: TransactionRecord;
  organizationName: string;
  /** What the customer pays (with fees when they are passed on). */
  amountToPay: bigint;
}

export async function getCheckout(ctx: GatewayContext, orderId: string): Promise<CheckoutView> {
  const transaction = isUuid(orderId)
    ? await ctx.db.transaction.findUnique({ where: { id: orderId }, include: { ...withOrderedProducts, organization: { select: { name: true } } } })
    : null;
  if (!transaction) throw new DomainError('transaction_not_found');
  const { organization, ...record } = transaction;
  return { transaction: record, organizationName: organization.name, amountToPay: amountToPay(record) };
}
