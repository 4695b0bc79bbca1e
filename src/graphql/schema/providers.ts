/**
 * Real wallet providers, for operators: the reconciliation of the ledger with a provider's own
 * records, and the late payments (confirmed after their attempt closed). Rules are the domain's
 * (domain/reconciliation/, domain/payments/latePayments.ts).
 */
import { toWireAmount } from '../../domain/money.js';
import { listLatePayments, reconcileProvider } from '../../domain/operations.js';
import type { LatePaymentRow } from '../../domain/payments/store.js';
import type { Discrepancy, ReconciliationReport } from '../../domain/reconciliation/reconcileProvider.js';
import { builder } from '../builder.js';
import { PaymentMethodEnum } from './enums.js';

const amountOrNull = (amount: bigint | null) => (amount === null ? null : toWireAmount(amount));

const DiscrepancyRef = builder.objectRef<Discrepancy>('ReconciliationDiscrepancy').implement({
  description: 'One difference between the gateway’s ledger and the provider’s records.',
  fields: (t) => ({
    issue: t.exposeString('issue', { description: 'missing_at_provider | missing_in_ledger | amount_mismatch | status_mismatch' }),
    kind: t.exposeString('kind', { description: 'payment | refund | payout' }),
    reference: t.exposeString('reference', {
      description: 'Our reference the provider keeps: the payment attempt id (refunds: the refunded payment’s), or the payout id.',
    }),
    providerReference: t.exposeString('providerReference', { nullable: true }),
    ledgerAmount: t.field({ type: 'SafeInt', nullable: true, resolve: (d) => amountOrNull(d.ledgerAmount) }),
    providerAmount: t.field({ type: 'SafeInt', nullable: true, resolve: (d) => amountOrNull(d.providerAmount) }),
    ledgerStatus: t.exposeString('ledgerStatus', { nullable: true }),
    providerStatus: t.exposeString('providerStatus', { nullable: true }),
    providerFee: t.field({
      type: 'SafeInt',
      nullable: true,
      description: 'The provider’s fee on its record, as it reports it (Wave: the history line’s fee); amounts compared are gross.',
      resolve: (d) => amountOrNull(d.providerFee),
    }),
  }),
});

const ReconciliationRef = builder.objectRef<ReconciliationReport>('Reconciliation').implement({
  fields: (t) => ({
    method: t.field({ type: PaymentMethodEnum, resolve: (report) => report.method }),
    from: t.field({ type: 'DateTime', resolve: (report) => report.from }),
    to: t.field({ type: 'DateTime', resolve: (report) => report.to }),
    matched: t.exposeInt('matched', { description: 'Operations found alike in both books.' }),
    discrepancyCount: t.exposeInt('discrepancyCount'),
    providerFees: t.field({
      type: 'SafeInt',
      description: 'The provider’s fees on the gateway’s operations of the period, as it reports them (Wave: the sum of the lines’ fee).',
      resolve: (report) => toWireAmount(report.providerFees),
    }),
    outsideGatewayCount: t.int({
      description: 'Provider records of money moved outside the gateway (Wave: merchant payments to the QR code or app): counted, not differences.',
      resolve: (report) => report.outsideGateway.count,
    }),
    outsideGatewayAmount: t.field({ type: 'SafeInt', resolve: (report) => toWireAmount(report.outsideGateway.amount) }),
    discrepancies: t.field({
      type: [DiscrepancyRef],
      description: 'At most 500; discrepancyCount says how many there were.',
      resolve: (report) => report.discrepancies,
    }),
  }),
});

builder.queryField('reconcileProvider', (t) =>
  t.field({
    type: ReconciliationRef,
    description:
      'Operators: compares the ledger with the provider’s own records (Wave: its transaction history) for a period (default the last 24 hours, at most 31 days) and lists every difference. Changes nothing. RECONCILIATION_UNAVAILABLE for a method on the sandbox.',
    authScopes: { run: 'reconcileProvider' },
    args: { method: t.arg({ type: PaymentMethodEnum, required: true }), from: t.arg({ type: 'DateTime' }), to: t.arg({ type: 'DateTime' }) },
    resolve: (_root, { method, from, to }, ctx) => reconcileProvider(ctx.gateway, ctx.caller, { method, from, to }),
  }),
);

const LatePaymentRef = builder.objectRef<LatePaymentRow>('LatePayment').implement({
  description: 'A payment a provider confirmed after the gateway had closed its attempt: recorded on the order, or returned to the payer.',
  fields: (t) => ({
    attemptId: t.exposeID('attemptId'),
    transactionId: t.exposeID('transactionId'),
    organizationId: t.exposeID('organizationId'),
    method: t.field({ type: PaymentMethodEnum, resolve: (row) => row.method }),
    amount: t.field({ type: 'SafeInt', resolve: (row) => toWireAmount(row.amount) }),
    providerReference: t.exposeString('providerReference'),
    outcome: t.exposeString('outcome', { description: 'recorded | returning | returned | return_failed' }),
    reason: t.exposeString('reason', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    settledAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.settledAt }),
  }),
});

builder.queryField('latePayments', (t) =>
  t.field({
    type: [LatePaymentRef],
    description: 'Operators: payments confirmed by a provider after their attempt was closed, newest first (at most 100).',
    authScopes: { run: 'listLatePayments' },
    resolve: (_root, _args, ctx) => listLatePayments(ctx.gateway, ctx.caller),
  }),
);
