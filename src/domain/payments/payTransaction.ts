/**
 * A customer pays a pending transaction: from the checkout page (the customer holds only the
 * unguessable order id), or an operator drives the same payment in the sandbox
 * (`gateway sandbox pay`, GraphQL `sandboxPay`).
 *
 * The payment runs as an attempt (attempts.ts beside this file): recorded before the wallet is
 * asked, so of two concurrent payments only one ever reaches a wallet (the other gets 409), then
 * settled with the wallet's answer in ONE statement with the status change, the ledger posting
 * and the payment_status webhooks. Nothing of ours moves before the wallet says yes.
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { Caller } from '../access/caller.js';
import { authorize, type CustomerPrincipal } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { collectionFeeOf, splitPayment } from '../ledger/fees.js';
import { recordAttemptClosingAbandoned, settleAttempt, type WalletAnswer } from './attempts.js';
import { callProviderOnce, settleDurably } from '../providerFlow.js';
import { parsePaymentMethod } from '../paymentMethods.js';
import { normalizePhone } from '../phones.js';
import { switchStates } from '../organizations/switches.js';
import { keepsCustomersOut } from '../providerCalls/providerHealth.js';
import { findVisibleTransaction } from '../transactions/transactions.js';
import type { TransactionRecord } from '../transactions/store.js';
import { isUuid } from '../ids.js';
import { readForPayment, type PaymentRead } from './store.js';

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
  /**
   * `pending` with a provider that collects on its own page (Wave): where to send the customer.
   * The attempt stays open until the provider's notification or a status question settles it.
   */
  redirectUrl?: string;
}

/**
 * Where a provider that collects on its own page sends the customer back: the checkout's return
 * page, which settles the attempt by asking the provider (the flow), then redirects to the
 * merchant's success_url / error_url. The `outcome` it adds is not trusted: only the provider's answer is.
 */
function providerReturnUrlsOf(settings: GatewayContext['settings'], orderId: string, attemptId: string): { success: string; error: string } {
  const page = `${settings.checkoutPublicUrl}/checkout/${orderId}/return?attempt=${attemptId}`;
  return { success: page, error: `${page}&outcome=error` };
}

/** A sandbox wallet that always pays (docs/sandbox.md's table: any suffix but 0000, 1111, 0009). */
const SANDBOX_DEFAULT_PHONE = '+221770000001';

/** Who pays: the customer on the checkout page, or an operator driving the sandbox (the access policy says which). */
export type Payer = CustomerPrincipal | Caller;

export async function payTransaction(ctx: GatewayContext, payer: Payer, orderId: string, input: PayInput): Promise<PaymentOutcome> {
  authorize(payer, 'payTransaction');
  const isCustomer = payer.kind === 'customer';
  const { transaction, feeRates, hasActiveWebhooks } = await paymentReadOf(ctx, orderId);
  refuseUnlessPending(transaction);
  const method = await chooseMethod(ctx, transaction, input.method, isCustomer);
  const phone = normalizePhone(input.phone || (isCustomer ? '' : transaction.customerPhone || SANDBOX_DEFAULT_PHONE));

  const fee = collectionFeeOf(feeRates, method, transaction.amount);
  const { charged } = splitPayment(transaction.amount, fee, transaction.feesCustomerSide);

  const attempt = await recordAttemptClosingAbandoned(ctx, transaction.id, { method, phone, amount: charged, fee });
  const answer = await askWallet(ctx, attempt.id, { method, phone, amount: charged, returnUrls: providerReturnUrlsOf(ctx.settings, orderId, attempt.id) });
  // The customer pays on the provider's page: nothing to settle now; the attempt keeps the
  // transaction until the provider says (notification, return page, or the reconciler's question).
  if (answer.status === 'pending' && answer.redirectUrl)
    return { outcome: 'pending', transaction, redirectUrl: answer.redirectUrl, reason: `The payment continues on ${method}` };
  // Conditional on the attempt still collecting, so a try cut off by a dropped connection (maybe
  // after committing) is simply run again; it then reads what the first try settled.
  const { state, transaction: settled } = await settleDurably(ctx, { attemptId: attempt.id }, () =>
    settleAttempt(ctx, attempt, answer, { transaction, hasActiveWebhooks }),
  );
  const now = settled ?? (await findVisibleTransaction(ctx.db, null, orderId));
  if (state === 'succeeded') return { outcome: 'paid', transaction: now };
  if (state === 'failed')
    return {
      outcome: 'failed',
      transaction: now,
      reason: `The payment was declined by ${method}: ${('reason' in answer && answer.reason) || 'no reason given'}`,
    };
  return { outcome: 'pending', transaction: now, reason: `The payment was not confirmed on ${method}` };
}

/**
 * The one call to the wallet, bounded in time. A provider that throws (connection lost) or does
 * not answer in time may or may not have collected: the answer is "not confirmed" and the attempt
 * stays `collecting`, for the reconciler to ask about; it is never sent again.
 */
async function askWallet(
  ctx: GatewayContext,
  reference: string,
  request: { method: PaymentMethod; phone: string; amount: bigint; returnUrls: { success: string; error: string } },
): Promise<WalletAnswer> {
  const outcome = await callProviderOnce(
    ctx,
    (signal) => ctx.provider.collect({ ...request, reference, signal }),
    { attemptId: reference },
    'the wallet provider did not answer a payment request; the reconciler will ask it',
  );
  return 'answered' in outcome ? outcome.answered : { status: 'unknown' };
}

/** The transaction (any organisation's: the checkout and operators) as a payment needs it; 404 when unknown. */
async function paymentReadOf(ctx: GatewayContext, orderId: string): Promise<PaymentRead> {
  const read = isUuid(orderId) ? await readForPayment(ctx.db, orderId) : null;
  if (!read) throw new DomainError('transaction_not_found');
  return read;
}

function refuseUnlessPending(transaction: TransactionRecord): void {
  if (transaction.status !== 'pending') throw new DomainError('transaction_not_payable', transaction.status);
}

/**
 * The method must be one the transaction offers and not switched off by the operator. A customer
 * must choose; an operator's sandbox payment may take the first method on offer.
 */
async function chooseMethod(
  ctx: GatewayContext,
  transaction: TransactionRecord,
  requested: string | null | undefined,
  isCustomer: boolean,
): Promise<PaymentMethod> {
  if (!requested && isCustomer) throw new DomainError('invalid_request', 'choose a payment method');
  const method = requested ? parsePaymentMethod(requested) : transaction.methodOfPayment[0];
  if (!method || !transaction.methodOfPayment.includes(method)) throw new DomainError('method_not_offered', requested ?? '');
  // Cached (invalidated at once in every instance when an operator flips a switch).
  if ((await switchStates(ctx, ctx.db)).get(method) === false) throw new DomainError('payment_method_unavailable', method);
  // A provider known to be down (it refuses the gateway's key, or has not answered for a while):
  // the customer is not sent into it; the checkout says so and offers the other method (but for
  // one trial customer per period, how a recovered provider is noticed).
  if (keepsCustomersOut(ctx, method)) throw new DomainError('payment_method_unavailable', method);
  return method;
}
