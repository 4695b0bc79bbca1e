/**
 * Operator: the provider calls whose outcome is not known (providerFlow.ts), and the operator's
 * decision on one the provider cannot resolve (`gateway provider-call list | settle`, GraphQL
 * `openProviderCalls`, `settleProviderCall`).
 *
 * An operator decides after checking with the provider (its dashboard, a statement): `succeeded`
 * records the money as moved (a payment paid, a refund done, a payout completed); `failed` records
 * that it did not (a payment attempt closed, a refund's or payout's debit returned). The decision
 * runs the same conditional settlement as the provider's own answer, so it is applied once, and a
 * call settled meanwhile is answered 409 `provider_call_not_open` instead of being decided twice.
 * Admins only: it moves money on a person's word.
 */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { openAttempts } from '../payments/attempts.js';
import { openLateReturnCalls } from '../payments/latePayments.js';
import { openPayouts } from '../payouts/payouts.js';
import { STUCK_AFTER_CHECKS, type OpenCallStore, type OpenProviderCall, type ProviderCallKind } from '../providerFlow.js';
import { openRefunds } from '../refunds/refunds.js';
import { MAX_DESCRIPTION_LENGTH, boundedInputText } from '../text.js';

/** Most calls one listing returns (per kind). */
const MAX_LISTED = 100;

/** An open call as an operator reads it: what the reconciler knows, and whether it is stuck. */
export type ProviderCallView = Pick<OpenProviderCall, 'kind' | 'id' | 'organizationId' | 'reference' | 'providerChecks' | 'openedAt'> & { stuck: boolean };

export interface ProviderCallDecision {
  kind: ProviderCallKind;
  id: string;
  outcome: 'succeeded' | 'failed';
}

const KINDS: readonly ProviderCallKind[] = ['payment', 'refund', 'payout', 'late_payment_return'];

function storeOf(ctx: GatewayContext, kind: ProviderCallKind): OpenCallStore<OpenProviderCall> {
  if (kind === 'payment') return openAttempts(ctx);
  if (kind === 'refund') return openRefunds(ctx);
  if (kind === 'late_payment_return') return openLateReturnCalls(ctx);
  return openPayouts(ctx);
}

const viewOf = (call: OpenProviderCall): ProviderCallView => ({
  kind: call.kind,
  id: call.id,
  organizationId: call.organizationId,
  reference: call.reference,
  providerChecks: call.providerChecks,
  openedAt: call.openedAt,
  stuck: call.providerChecks >= STUCK_AFTER_CHECKS,
});

export async function listOpenProviderCalls(
  ctx: GatewayContext,
  caller: Caller,
  filter: { kind?: ProviderCallKind | null; stuckOnly?: boolean | null } = {},
): Promise<ProviderCallView[]> {
  authorize(caller, 'listOpenProviderCalls');
  const kinds = filter.kind ? [filter.kind] : KINDS;
  const minChecks = filter.stuckOnly ? STUCK_AFTER_CHECKS : 0;
  const lists = await Promise.all(kinds.map((kind) => storeOf(ctx, kind).listOpen(minChecks, MAX_LISTED)));
  return lists
    .flat()
    .map(viewOf)
    .sort((a, b) => a.openedAt.getTime() - b.openedAt.getTime());
}

export async function settleProviderCall(
  ctx: GatewayContext,
  caller: Caller,
  decision: ProviderCallDecision,
  reason?: string | null,
): Promise<ProviderCallDecision> {
  authorize(caller, 'settleProviderCall');
  const why = boundedInputText('reason', (reason ?? '').trim(), MAX_DESCRIPTION_LENGTH);
  if (!why) throw new DomainError('invalid_input', 'reason is required (what the provider said)');
  const store = storeOf(ctx, decision.kind);
  const call = await store.findOpen(decision.id);
  if (!call) throw new DomainError('provider_call_not_open');
  const operatorSays = `decided by an operator: ${why}`;
  await store.settle(call, { status: decision.outcome, providerReference: '', reason: operatorSays });
  // Settled meanwhile by the provider's own answer: the decision did nothing.
  if (await store.findOpen(decision.id)) throw new Error(`provider call ${decision.kind} ${decision.id} is still open after the operator's decision`);
  ctx.log.warn(
    { kind: decision.kind, id: decision.id, organizationId: call.organizationId, outcome: decision.outcome },
    'an operator settled an open provider call',
  );
  return decision;
}
