/**
 * Operators (admin) move money in: a sandbox payment (the same operation the checkout page runs)
 * and the release of escrowed proceeds.
 */
import { toWireAmount } from '../../domain/money.js';
import type { PaymentOutcome } from '../../domain/payments/payTransaction.js';
import { PaymentAttemptState } from '../../generated/prisma/enums.js';
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
    authScopes: { run: 'payTransaction' },
    args: { orderId: t.arg.id({ required: true }), method: t.arg({ type: PaymentMethodEnum }), phone: t.arg.string() },
    resolve: (_root, { orderId, method, phone }, ctx) => payTransaction(ctx.gateway, ctx.caller, String(orderId), { method, phone }),
  }),
);

builder.mutationField('releaseEscrow', (t) =>
  t.field({
    type: TransactionRef,
    description:
      'Operators (admin, support): releases a paid_and_blocked transaction’s held proceeds from escrow to main and marks it paid (NOT_IN_ESCROW otherwise).',
    authScopes: { run: 'releaseEscrow' },
    args: { orderId: t.arg.id({ required: true }) },
    resolve: (_root, { orderId }, ctx) => releaseEscrow(ctx.gateway, ctx.caller, String(orderId)),
  }),
);

const PaymentAttemptStateEnum = builder.enumType('PaymentAttemptState', { values: Object.values(PaymentAttemptState) });

builder.prismaObject('PaymentAttempt', {
  description: 'One try of the customer to pay a transaction with a wallet.',
  fields: (t) => ({
    id: t.exposeID('id'),
    method: t.field({ type: PaymentMethodEnum, resolve: (attempt) => attempt.method }),
    phone: t.exposeString('phone', { description: 'The wallet the customer paid with' }),
    amount: t.field({ type: 'SafeInt', description: 'XOF asked of the wallet', resolve: (attempt) => toWireAmount(attempt.amount) }),
    fee: t.field({ type: 'SafeInt', description: 'XOF of fees in it', resolve: (attempt) => toWireAmount(attempt.fee) }),
    state: t.field({ type: PaymentAttemptStateEnum, resolve: (attempt) => attempt.state }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why it failed or is unconfirmed' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    settledAt: t.expose('settledAt', { type: 'DateTime', nullable: true }),
  }),
});

/** A customer tries a few times at most; the bound keeps one answer small whatever happened. */
const MAX_LISTED_ATTEMPTS = 50;

// A transaction's payment attempts are part of reading the transaction.
builder.prismaObjectField('Transaction', 'paymentAttempts', (t) =>
  t.relation('paymentAttempts', {
    description: `Its payment attempts, oldest first (at most ${MAX_LISTED_ATTEMPTS}).`,
    authScopes: { run: 'getTransaction' },
    query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: MAX_LISTED_ATTEMPTS },
  }),
);
