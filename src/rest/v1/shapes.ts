/**
 * The v1 wire shapes (openapi/v1.yaml), as the public v1 clients read them (the official Node
 * SDK `naboopay` 2.0.0, the official Python SDK `naboopay` 1.0.2 whose pydantic models validate
 * at run time, and NabooPay's generated `naboo-python` client): v2's shapes with v1's differences,
 * `method_of_payment` an array of uppercase methods, products with `amount` (the unit price) and
 * `category`, `amount_to_pay`, `is_done`, `checkout_url` on every read, no customer, and the
 * statuses in the v1 vocabulary the clients' enums know (`pending`, `paid`, `done`, `part_paid`).
 */
import type { PaymentMethod, PayoutStatus, TransactionStatus } from '../../generated/prisma/enums.js';
import type { CreatedTransaction } from '../../domain/transactions/createTransaction.js';
import type { GatewaySettings } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { toWireAmount } from '../../domain/money.js';
import type { FeeRates } from '../../domain/ledger/fees.js';
import { amountToPayWith, checkoutUrlOf } from '../../domain/transactions/transactions.js';
import type { TransactionRecord } from '../../domain/transactions/store.js';
import { transactionCreated, transactionFull } from '../v2/shapes.js';
import { toV1MethodName } from '../../domain/paymentMethods.js';
import { toV1TransactionStatus, type V1TransactionStatus } from '../../domain/v1Statuses.js';

/**
 * What a v1 `transaction_status` filter selects, in v2's statuses: a v1 value means every status
 * a v1 read shows with it (`paid` includes `paid_and_blocked`, `done` is cancelled or refunded,
 * `part_paid` nothing); a v2 value (`paid_and_blocked`, `cancelled`, `refunded`) means itself.
 */
const V2_STATUSES_OF: Record<string, TransactionStatus[]> = {
  pending: ['pending'],
  paid: ['paid', 'paid_and_blocked'],
  done: ['cancelled', 'refunded'],
  part_paid: [],
  paid_and_blocked: ['paid_and_blocked'],
  cancelled: ['cancelled'],
  refunded: ['refunded'],
};
export function v2StatusesOfV1Filter(value: string): TransactionStatus[] {
  const statuses = Object.hasOwn(V2_STATUSES_OF, value) ? V2_STATUSES_OF[value] : undefined;
  if (!statuses) throw new DomainError('invalid_query', `transaction_status must be one of ${Object.keys(V2_STATUSES_OF).join(', ')}`);
  return statuses;
}

/**
 * A payout's status in v1 (the clients type it with the transaction enum): `completed` is `done`;
 * `pending` (under review, or the provider has not answered yet) stays `pending`. A failed payout
 * is an error answer, never a 200, so `failed` and `cancelled` do not reach this shape.
 */
export const toV1PayoutStatus = (status: PayoutStatus): V1TransactionStatus => (status === 'completed' ? 'done' : 'pending');

/** Offered methods, uppercase, in the order the merchant gave them. */
const v1Methods = (methods: PaymentMethod[]) => methods.map(toV1MethodName);

/**
 * The method whose fee `amount_to_pay` includes: the one used once paid, else the first offered
 * (a transaction offering several methods is paid with one of them, chosen on the checkout page).
 */
const pricingMethodOf = (transaction: TransactionRecord) => transaction.selectedPaymentMethod ?? transaction.methodOfPayment[0]!;

/** The create reply, its fields in the v1 SDKs' order. */
export function v1Created(created: CreatedTransaction, rates: FeeRates) {
  const { order_id, amount, currency, created_at, is_escrow, is_merchant, checkout_url } = transactionCreated(created);
  const amount_to_pay = toWireAmount(amountToPayWith(rates, created.transaction, pricingMethodOf(created.transaction)));
  return {
    order_id,
    method_of_payment: v1Methods(created.transaction.methodOfPayment),
    amount,
    amount_to_pay,
    currency,
    created_at,
    transaction_status: toV1TransactionStatus(created.transaction.status),
    is_escrow,
    is_merchant,
    checkout_url,
  };
}

/**
 * get-one-transaction and each get-transactions item. `method_of_payment` is the methods the
 * customer may pay with while the transaction is unpaid, and the one used once it was paid (v1
 * has no `selected_payment_method`). The fields the clients do not model (fees, URLs, times) are
 * v2's, kept for readers of the raw JSON; every client ignores fields it does not know.
 */
export function v1Transaction(transaction: TransactionRecord, rates: FeeRates, settings: GatewaySettings) {
  const {
    customer: _none,
    method_of_payment: _methods,
    selected_payment_method: _used,
    products: _products,
    transaction_status: _status,
    ...common
  } = transactionFull(transaction);
  return {
    ...common,
    method_of_payment: v1Methods(transaction.selectedPaymentMethod ? [transaction.selectedPaymentMethod] : transaction.methodOfPayment),
    transaction_status: toV1TransactionStatus(transaction.status),
    amount_to_pay: toWireAmount(amountToPayWith(rates, transaction, pricingMethodOf(transaction))),
    products: transaction.products.map((product) => ({
      name: product.name,
      category: product.category ?? '',
      amount: toWireAmount(product.price),
      quantity: product.quantity,
      description: product.description ?? '',
    })),
    // Nothing more is awaited from the customer: paid (escrow included), refunded or cancelled.
    is_done: transaction.status !== 'pending',
    checkout_url: checkoutUrlOf(settings, transaction.id),
  };
}
