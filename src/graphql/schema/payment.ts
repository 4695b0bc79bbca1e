/**
 * Operators (admin) move money in: a sandbox payment (the same operation the checkout page runs)
 * and the release of escrowed proceeds.
 */
import type { PaymentOutcome } from '../../domain/payments/payTransaction.js';
import { payTransaction, releaseEscrow } from '../../domain/operations.js';
import { builder } from '../builder.js';
import { PaymentMethodEnum } from './enums.js';
import { TransactionRef } from './transaction.js';

const PaymentOutcomeKindEnum = builder.enumType('PaymentOutcomeKind', {
  values: {
    paid: { description: 'Collected: the transaction is paid (or paid_and_blocked for escrow).' },
    failed: { description: 'The wallet declined: nothing moved, the transaction stays pending.' },
    pending: { description: 'The wallet has not confirmed: nothing moved, the transaction stays pending.' },
  } as const,
});

const PaymentOutcomeRef = builder.objectRef<PaymentOutcome>('PaymentOutcome').implement({
  fields: (t) => ({
    outcome: t.field({ type: PaymentOutcomeKindEnum, resolve: (payment) => payment.outcome }),
    reason: t.string({ nullable: true, description: 'Why it did not go through (failed, pending).', resolve: (payment) => payment.reason ?? null }),
    transaction: t.field({ type: TransactionRef, resolve: (payment) => payment.transaction }),
  }),
});

builder.mutationField('sandboxPay', (t) =>
  t.field({
    type: PaymentOutcomeRef,
    description:
      'Operators (admin): pays a pending transaction as a customer would on the checkout page, with the sandbox wallet outcomes by phone suffix (0000 declined, 1111 unconfirmed). method: one the transaction offers (default the first); phone: default the customer’s.',
    args: { orderId: t.arg.id({ required: true }), method: t.arg({ type: PaymentMethodEnum }), phone: t.arg.string() },
    resolve: (_root, { orderId, method, phone }, ctx) => payTransaction(ctx.gateway, ctx.caller, String(orderId), { method, phone }),
  }),
);

builder.mutationField('releaseEscrow', (t) =>
  t.field({
    type: TransactionRef,
    description: 'Operators (admin, support): releases a paid_and_blocked transaction’s held proceeds from escrow to main and marks it paid (NOT_IN_ESCROW otherwise).',
    args: { orderId: t.arg.id({ required: true }) },
    resolve: (_root, { orderId }, ctx) => releaseEscrow(ctx.gateway, ctx.caller, String(orderId)),
  }),
);
