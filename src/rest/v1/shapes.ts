/**
 * The v1 wire shapes of a transaction (openapi/v1.yaml): v2's shapes with v1's differences, one
 * uppercase `method_of_payment`, products with `amount` (the unit price) and `category`,
 * `amount_to_pay`, `is_done`, and no customer (v1 has none).
 */
import type { CreatedTransaction } from '../../domain/operations/createTransaction.js';
import { toWireAmount } from '../../domain/money.js';
import type { FeeRates } from '../../domain/ledger/fees.js';
import { amountToPayWith, type TransactionRecord } from '../../domain/transactions.js';
import { transactionCreated, transactionFull } from '../v2/shapes.js';
import { toV1MethodName } from '../../domain/paymentMethods.js';

/**
 * v1 knows one method per transaction: the one used once paid, else the first offered (a v1
 * transaction offers exactly one; one created through v2 may offer several).
 */
const v1MethodOf = (transaction: TransactionRecord) => transaction.selectedPaymentMethod ?? transaction.methodOfPayment[0]!;

/** The create reply, its fields in the v1 SDKs' order. */
export function v1Created(created: CreatedTransaction, rates: FeeRates) {
  const { order_id, amount, currency, created_at, transaction_status, is_escrow, is_merchant, checkout_url } = transactionCreated(created);
  const method = v1MethodOf(created.transaction);
  const amount_to_pay = toWireAmount(amountToPayWith(rates, created.transaction, method));
  return { order_id, method_of_payment: toV1MethodName(method), amount, amount_to_pay, currency, created_at, transaction_status, is_escrow, is_merchant, checkout_url };
}

/** get-one-transaction and each get-transactions item. */
export function v1Transaction(transaction: TransactionRecord, rates: FeeRates) {
  const { customer: _none, method_of_payment: _methods, selected_payment_method: _used, products: _products, ...common } = transactionFull(transaction);
  const method = v1MethodOf(transaction);
  return {
    ...common,
    method_of_payment: toV1MethodName(method),
    amount_to_pay: toWireAmount(amountToPayWith(rates, transaction, method)),
    products: transaction.products.map((product) => ({
      name: product.name,
      category: product.category ?? '',
      amount: toWireAmount(product.price),
      quantity: product.quantity,
      description: product.description ?? '',
    })),
    // Nothing more will happen to it: paid (escrow included), refunded or cancelled.
    is_done: transaction.status !== 'pending',
  };
}
