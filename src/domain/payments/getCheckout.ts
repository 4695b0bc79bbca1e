/**
 * The checkout page's view of a transaction. No API key: the customer holds only the
 * unguessable order id from checkout_url, and sees only what a payer needs.
 *
 * The rules of what the page offers live here, not in the page: a method is offered when the
 * transaction lists it AND the operator has not switched it off; its fee and what the customer
 * then pays come from the same fee helpers payTransaction charges with, so the preview and the
 * charge cannot disagree.
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { authorize, type Principal } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { collectionFeeOf, splitPayment } from '../ledger/fees.js';
import { switchStates } from '../organizations/switches.js';
import { amountToPay, findVisibleTransaction } from '../transactions/transactions.js';
import type { TransactionRecord } from '../transactions/store.js';
import { readCheckoutOrganization } from './store.js';

/** One way to pay, as the customer would be charged if they chose it now. */
interface CheckoutOffer {
  method: PaymentMethod;
  /** The gateway's fee for this method (charged to the customer only when fees_customer_side). */
  fee: bigint;
  /** What the customer's wallet is debited with this method. */
  total: bigint;
}

export interface CheckoutView {
  transaction: TransactionRecord;
  organizationName: string;
  /** What the customer pays (with fees when they are passed on); for a pending one, before fees. */
  amountToPay: bigint;
  /** True only while the transaction can still be paid (pending). */
  payable: boolean;
  /**
   * The methods the customer can pay with now, in the merchant's order; empty when the
   * transaction is not payable, or when every method it lists is switched off.
   */
  offers: CheckoutOffer[];
}

export async function getCheckout(ctx: GatewayContext, viewer: Principal, orderId: string): Promise<CheckoutView> {
  authorize(viewer, 'getCheckout');
  const transaction = await findVisibleTransaction(ctx.db, null, orderId);
  const organization = await readCheckoutOrganization(ctx.db, transaction.organizationId);
  if (!organization) throw new DomainError('transaction_not_found');
  const payable = transaction.status === 'pending';
  const offers: CheckoutOffer[] = [];
  if (payable) {
    // The cached switches (one read per SWITCH_CACHE_TTL_MS at most, dropped at once when one is set),
    // as createTransaction sees them: not one query per offered method on every page view.
    const switches = await switchStates(ctx, ctx.db);
    for (const method of transaction.methodOfPayment) {
      if (switches.get(method) === false) continue;
      const fee = collectionFeeOf(organization, method, transaction.amount);
      offers.push({ method, fee, total: splitPayment(transaction.amount, fee, transaction.feesCustomerSide).charged });
    }
  }
  return { transaction, organizationName: organization.name, amountToPay: amountToPay(transaction), payable, offers };
}
