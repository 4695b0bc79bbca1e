/**
 * A customer pays a pending transaction: from the checkout page (the customer holds only the
 * unguessable order id), or an operator drives the same payment in the sandbox
 * (`gateway sandbox pay`, GraphQL `sandboxPay`).
 *
 * The wallet provider is asked first (money comes IN: nothing of ours moves before it says yes).
 * Then ONE database transaction moves the transaction out of `pending` (a conditional update: of
 * two concurrent payments exactly one wins), sets the method, fees and paid_at, and posts the
 * balanced ledger entries: the provider's clearing account owes what the customer was charged,
 * the merchant is credited the proceeds (`main`, or `escrow` for an escrow transaction) and the
 * gateway keeps the fee.
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { authorizeOperator, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { collectionFeeOf, splitPayment } from '../ledger/fees.js';
import { clearingAccountOf, post } from '../ledger/posting.js';
import { parsePaymentMethod } from '../paymentMethods.js';
import { normalizePhone } from '../phones.js';
import { isSwitchOn } from '../switches.js';
import { findVisibleTransaction, type TransactionRecord } from '../transactions.js';

export interface PayInput {
  /** One of the methods the transaction offers; operators may omit it (the first on offer). */
  method?: string | null;
  /** The wallet paying; operators may omit it (the customer's phone, else a sandbox success). */
  phone?: string | null;
}

export interface PaymentOutcome {
  /** paid: money collected (the status is paid or paid_and_blocked); failed / pending: nothing moved. */
  outcome: 'paid' | 'failed' | 'pending';
  transaction: TransactionRecord;
  /** Why it did not go through, in words a payer can read. */
  reason?: string;
}

/** A sandbox wallet that always pays (DESIGN.md's table: any suffix but 0000, 1111, 0009). */
const SANDBOX_DEFAULT_PHONE = '+221770000001';

/** Who pays: the customer on the checkout page, or an operator (admin) driving the sandbox. */
export type Payer = { kind: 'customer' } | Caller;

export async function payTransaction(ctx: GatewayContext, payer: Payer, orderId: string, input: PayInput): Promise<PaymentOutcome> {
  const isCustomer = payer.kind === 'customer';
  if (!isCustomer) authorizeOperator(payer, 'mutate');
  const transaction = await findVisibleTransaction(ctx.db, null, orderId);
  refuseUnlessPending(transaction);
  const method = await chooseMethod(ctx, transaction, input.method, isCustomer);
  const phone = normalizePhone(input.phone || (isCustomer ? '' : transaction.customerPhone || SANDBOX_DEFAULT_PHONE));

  const organization = await ctx.db.organization.findUniqueOrThrow({ where: { id: transaction.organizationId } });
  const fee = collectionFeeOf(organization, method, transaction.amount);
  const { charged, proceeds } = splitPayment(transaction.amount, fee, transaction.feesCustomerSide);

  const answer = await ctx.provider.collect({ method, phone, amount: charged, reference: transaction.id });
  if (answer.status !== 'succeeded') {
    const reason = answer.status === 'failed' ? `The payment was declined by ${method}: ${answer.reason ?? 'no reason given'}` : `The payment was not confirmed on ${method}`;
    return { outcome: answer.status, transaction, reason };
  }
  const paid = await ctx.db.$transaction(async (tx) => {
    const now = ctx.clock.now();
    const status = transaction.isEscrow ? 'paid_and_blocked' : 'paid';
    const { count } = await tx.transaction.updateMany({
      where: { id: transaction.id, status: 'pending' },
      data: { status, selectedPaymentMethod: method, fees: fee, paidAt: now, payerPhone: phone },
    });
    // Another payment (or a cancel) got there first: this one changes nothing.
    if (count === 0) refuseUnlessPending(await findVisibleTransaction(tx, null, orderId));
    await post(tx, {
      kind: transaction.isEscrow ? 'escrow_hold' : 'payment',
      transactionId: transaction.id,
      description: `${method} payment ${answer.providerReference}`.trim(),
      movements: [
        { side: { gateway: clearingAccountOf(method) }, amount: -charged },
        { side: { organizationId: transaction.organizationId, account: transaction.isEscrow ? 'escrow' : 'main' }, amount: proceeds },
        { side: { gateway: 'fee_revenue' }, amount: fee },
      ],
    });
    return findVisibleTransaction(tx, null, orderId);
  });
  return { outcome: 'paid', transaction: paid };
}

function refuseUnlessPending(transaction: TransactionRecord): void {
  if (transaction.status !== 'pending') throw new DomainError('transaction_not_payable', transaction.status);
}

/**
 * The method must be one the transaction offers and not switched off by the operator. A customer
 * must choose; an operator's sandbox payment may take the first method on offer.
 */
async function chooseMethod(ctx: GatewayContext, transaction: TransactionRecord, requested: string | null | undefined, isCustomer: boolean): Promise<PaymentMethod> {
  if (!requested && isCustomer) throw new DomainError('invalid_request', 'choose a payment method');
  const method = requested ? parsePaymentMethod(requested) : transaction.methodOfPayment[0];
  if (!method || !transaction.methodOfPayment.includes(method)) throw new DomainError('method_not_offered', requested ?? '');
  if (!(await isSwitchOn(ctx.db, method))) throw new DomainError('payment_method_unavailable', method);
  return method;
}
