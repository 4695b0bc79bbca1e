/**
 * Provider calls whose outcome is not known yet (a timeout, an unknown answer, a crash between the
 * phases): what the reconcilers keep asking the provider about, and the operator's decision on one
 * the provider cannot resolve. Rules are the domain's (domain/providerFlow.ts, domain/providerCalls/).
 */
import { listOpenProviderCalls, listProviderStatuses, settleProviderCall } from '../../domain/operations.js';
import type { ProviderCallDecision, ProviderCallView } from '../../domain/providerCalls/providerCalls.js';
import type { ProviderStatusView } from '../../domain/providerCalls/providerHealth.js';
import { builder } from '../builder.js';

const ProviderCallKindEnum = builder.enumType('ProviderCallKind', {
  description: 'What the gateway asked the wallet provider to do.',
  values: {
    PAYMENT: { value: 'payment' },
    REFUND: { value: 'refund' },
    PAYOUT: { value: 'payout' },
    LATE_PAYMENT_RETURN: { value: 'late_payment_return', description: 'A payment confirmed after its attempt was closed, going back to the payer.' },
  } as const,
});

const ProviderCallOutcomeEnum = builder.enumType('ProviderCallOutcome', {
  description: 'What the provider did, as the operator established it.',
  values: { SUCCEEDED: { value: 'succeeded' }, FAILED: { value: 'failed' } } as const,
});

const ProviderCallRef = builder.objectRef<ProviderCallView>('ProviderCall').implement({
  description: 'A call to a wallet provider whose outcome is not known yet.',
  fields: (t) => ({
    kind: t.field({ type: ProviderCallKindEnum, resolve: (call) => call.kind }),
    id: t.exposeID('id', { description: "The payment attempt, refund or payout id (the late payment's attempt id for a return)." }),
    organizationId: t.exposeID('organizationId'),
    reference: t.exposeString('reference', { description: 'Our reference sent to the provider: ask the provider about this one.' }),
    providerChecks: t.exposeInt('providerChecks', { description: 'Times the provider was asked about it without a final answer.' }),
    openedAt: t.field({ type: 'DateTime', resolve: (call) => call.openedAt }),
    stuck: t.exposeBoolean('stuck', { description: 'Asked so often without an answer that an operator should decide.' }),
  }),
});

const ProviderCallDecisionRef = builder.objectRef<ProviderCallDecision>('ProviderCallDecision').implement({
  fields: (t) => ({
    kind: t.field({ type: ProviderCallKindEnum, resolve: (decision) => decision.kind }),
    id: t.exposeID('id'),
    outcome: t.field({ type: ProviderCallOutcomeEnum, resolve: (decision) => decision.outcome }),
  }),
});

builder.queryField('openProviderCalls', (t) =>
  t.field({
    type: [ProviderCallRef],
    description: 'Operators: provider calls whose outcome is not known yet, oldest first (at most 100 per kind).',
    authScopes: { run: 'listOpenProviderCalls' },
    args: { kind: t.arg({ type: ProviderCallKindEnum }), stuckOnly: t.arg.boolean() },
    resolve: (_root, { kind, stuckOnly }, ctx) => listOpenProviderCalls(ctx.gateway, ctx.caller, { kind, stuckOnly }),
  }),
);

builder.mutationField('settleProviderCall', (t) =>
  t.field({
    type: ProviderCallDecisionRef,
    description:
      'Operators (admin): records what the provider did with an open call, after checking with the provider. SUCCEEDED: the payment is paid, the refund done, the payout completed. FAILED: nothing moved; the debit of a refund or payout returns. reason (required) is kept. PROVIDER_CALL_NOT_OPEN when it was settled already.',
    authScopes: { run: 'settleProviderCall' },
    args: {
      kind: t.arg({ type: ProviderCallKindEnum, required: true }),
      id: t.arg.id({ required: true }),
      outcome: t.arg({ type: ProviderCallOutcomeEnum, required: true }),
      reason: t.arg.string({ required: true }),
    },
    resolve: (_root, { kind, id, outcome, reason }, ctx) => settleProviderCall(ctx.gateway, ctx.caller, { kind, id: String(id), outcome }, reason),
  }),
);

const ProviderStatusRef = builder.objectRef<ProviderStatusView>('ProviderStatus').implement({
  description: "A payment method's wallet provider as this instance's calls see it.",
  fields: (t) => ({
    method: t.exposeString('method'),
    provider: t.exposeString('provider', { description: '`wave`, `orange_money`, or `sandbox` when the method runs on the sandbox.' }),
    healthy: t.exposeBoolean('healthy'),
    reason: t.exposeString('reason', {
      description: "Why it is down ('' when healthy): the provider refuses the gateway's credentials, or has not answered for a while.",
    }),
    since: t.field({ type: 'DateTime', nullable: true, resolve: (status) => status.since }),
  }),
});

builder.queryField('providerStatus', (t) =>
  t.field({
    type: [ProviderStatusRef],
    description:
      "Operators: each payment method's wallet provider, healthy or down with why (a revoked key: 401/403; unreachable for a sustained period). The checkout does not send customers to a method whose provider is down.",
    authScopes: { run: 'listProviderStatuses' },
    resolve: (_root, _args, ctx) => listProviderStatuses(ctx.gateway, ctx.caller),
  }),
);
