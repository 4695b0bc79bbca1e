/**
 * The dashboard's home (issue 30) and the organisation's capabilities: rules in domain/home/, this
 * file only names them.
 */
import type { CapabilityState } from '../../domain/home/capabilities.js';
import type { MerchantHome } from '../../domain/home/merchantHome.js';
import type { LatePaymentSummary, PaidVolumeRecord } from '../../domain/home/store.js';
import { toWireAmount } from '../../domain/money.js';
import { getCapabilities, getMerchantHome } from '../../domain/operations.js';
import { builder } from '../builder.js';

const PaidVolumeRef = builder.objectRef<PaidVolumeRecord>('PaidVolume').implement({
  description: 'Payments paid in a period that are still paid (a refunded payment is not volume; one held in escrow is).',
  fields: (t) => ({
    count: t.exposeInt('count'),
    amount: t.field({ type: 'SafeInt', description: 'XOF.', resolve: (row) => toWireAmount(row.amount) }),
    fees: t.field({ type: 'SafeInt', description: 'XOF.', resolve: (row) => toWireAmount(row.fees) }),
  }),
});

const CapabilityRef = builder.objectRef<CapabilityState>('Capability').implement({
  description: 'Something the organisation may use (collections, payouts, a payment method), and why not when it cannot.',
  fields: (t) => ({
    capability: t.exposeString('capability', { description: 'transactions | payouts | wave | orange_money' }),
    usable: t.boolean({ resolve: (state) => state.blockedBy === null }),
    blockedBy: t.exposeString('blockedBy', {
      nullable: true,
      description:
        'paused_by_gateway (the operator switched it off) | not_enabled (ask the operator) | business_profile_incomplete | organization_inactive | provider_down (the method’s wallet provider is down: customers cannot pay with it until it answers again)',
    }),
  }),
});

const LatePaymentSummaryRef = builder.objectRef<LatePaymentSummary>('LatePaymentSummary').implement({
  description: 'A payment a provider confirmed after the gateway had closed its attempt.',
  fields: (t) => ({
    transactionId: t.exposeID('transactionId'),
    amount: t.field({ type: 'SafeInt', resolve: (row) => toWireAmount(row.amount) }),
    outcome: t.exposeString('outcome', { description: 'recorded | returning | returned | return_failed' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const MerchantHomeRef = builder.objectRef<MerchantHome>('MerchantHome').implement({
  description: 'What was paid today and this month (UTC) and what needs attention.',
  fields: (t) => ({
    today: t.field({ type: PaidVolumeRef, resolve: (home) => home.today }),
    thisMonth: t.field({ type: PaidVolumeRef, resolve: (home) => home.thisMonth }),
    failedDeliveries: t.exposeInt('failedDeliveries', { description: 'Events of the last 7 days whose every delivery attempt failed.' }),
    retryingDeliveries: t.exposeInt('retryingDeliveries', { description: 'Deliveries waiting for another attempt after a failed one.' }),
    payoutsAwaitingReview: t.exposeInt('payoutsAwaitingReview'),
    latePayments: t.field({ type: [LatePaymentSummaryRef], description: 'The last 7 days’, newest first, at most 5.', resolve: (home) => home.latePayments }),
    capabilities: t.field({ type: [CapabilityRef], resolve: (home) => home.capabilities }),
  }),
});

builder.queryField('merchantHome', (t) =>
  t.field({
    type: MerchantHomeRef,
    description: 'Dashboard users: the home page’s facts for their organisation.',
    authScopes: { run: 'getMerchantHome' },
    resolve: (_root, _args, ctx) => getMerchantHome(ctx.gateway, ctx.caller),
  }),
);

builder.queryField('capabilities', (t) =>
  t.field({
    type: [CapabilityRef],
    description: 'Dashboard users: what their organisation can use now, and why not (said before a form).',
    authScopes: { run: 'getCapabilities' },
    resolve: (_root, _args, ctx) => getCapabilities(ctx.gateway, ctx.caller),
  }),
);
