/**
 * POST /payouts (and GraphQL `createPayout`, v1 cashout): sends money from `main` to a
 * wallet. The rules and the two phases around the provider call live in payouts.ts beside this file
 * (their statements in store.ts); the Idempotency-Key in ../idempotency.ts (runIdempotentlyTwoPhase).
 *
 * Answers: the payout, `completed` (sent), `pending` (above 2,000,000 XOF: awaiting review; or the
 * provider did not answer in time); 400 invalid input / `Invalid amount` / `Insufficient balance`
 * (amount + fees; nothing recorded) / `Unsupported payment method`; 403 payouts not enabled,
 * business profile; 409 another payout of the organisation is running; 500 `payout_failed` (the
 * provider refused: recorded `failed`, funds returned); 503 payouts or the method switched off.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { MerchantAccess } from '../access/auth.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { runIdempotentlyTwoPhase, type IdempotentOutcome } from '../idempotency.js';
import { MAXIMUM_AMOUNT, MINIMUM_AMOUNT_EXCLUSIVE } from '../money.js';
import { parsePaymentMethod } from '../paymentMethods.js';
import { findPayoutOfIntent, payoutIntentName, payoutTerms, resumesPayouts, sendPayout, settlementOf, settlePayout } from './payouts.js';
import type { BatchItemRef, NewPayout, PayoutIntent, PayoutRecord } from './store.js';
import { keepPayoutLease, newPayoutLease, recordPayout, releasePayoutLease, type PayoutLease } from './store.js';
import type { LeaseKeeper } from '../leases.js';
import { normalizePhone } from '../phones.js';
import type { Db, ProviderAnswer } from '../ports.js';
import { switchStates } from '../organizations/switches.js';
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, optionalBoundedText } from '../text.js';
import type { OperationOptions, PersonInput } from '../inputs.js';

export interface CreatePayoutInput {
  selectedPaymentMethod: string;
  /** XOF, a whole number greater than 10. */
  amount: number;
  recipient: PersonInput;
  reason?: string | null;
}

/** A payout batch's runner names the item instead of an Idempotency-Key (store.ts BatchItemRef). */
export type CreatePayoutOptions = OperationOptions & { batchItem?: BatchItemRef };

export async function createPayout(
  ctx: GatewayContext,
  access: MerchantAccess<'createPayout'>,
  input: CreatePayoutInput,
  options: CreatePayoutOptions = {},
): Promise<IdempotentOutcome<PayoutRecord>> {
  const { organization } = access;
  const scope = {
    organizationId: organization.id,
    key: options.idempotencyKey,
    operation: 'createPayout',
    input,
    keepRefusals: !options.idempotencyKeyDerived,
  };
  // The organisation's lease (one payout at a time), taken by phase 1's statement (so a replayed
  // key never waits for it), renewed while the provider is called (however long that takes), and
  // released by the settling statement, or when the request ends.
  const held: { lease: PayoutLease | null; keeper: LeaseKeeper | null } = { lease: null, keeper: null };
  try {
    return await runIdempotentlyTwoPhase<PayoutIntent, ProviderAnswer | null, PayoutRecord>(ctx, scope, {
      // Phase 1's one statement also writes the audit entry (payout.created by this caller).
      record: async (db) => {
        const lease = newPayoutLease(organization.id);
        const terms = payoutTerms(organization, await checkPayout(ctx, db, organization, input));
        const intent = await recordPayout(ctx, db, organization.id, terms, lease, { actor: access.caller }, options.batchItem ?? null);
        held.lease = lease;
        return intent;
      },
      intentName: (intent) => payoutIntentName(intent.payoutId),
      call: async (intent) => {
        if (held.lease) held.keeper = keepPayoutLease(ctx, held.lease);
        return intent.send ? sendPayout(ctx, intent) : null;
      },
      settle: async (db, intent, answer) => {
        const payout = await settlePayout(ctx, db, intent.payoutId, answer, held.lease, intent.recorded);
        // On ctx.db that statement committed the release; in the key's transaction it commits
        // with it, and the release below makes sure.
        if (db === ctx.db) held.lease = null;
        return settlementOf(ctx, payout, answer);
      },
      // A retry with the key while the payout's call is open (resumed in the background): the payout as it is now.
      current: async (intentName) => {
        const payout = await findPayoutOfIntent(ctx.db, intentName);
        return payout && resumesPayouts(ctx, payout.selectedPaymentMethod) ? settlementOf(ctx, payout) : null;
      },
    });
  } finally {
    held.keeper?.stop();
    await releasePayoutLease(ctx, held.lease);
  }
}

/** Every rule before money moves, in the order the spec's errors are checked: the first one broken answers. */
async function checkPayout(ctx: GatewayContext, db: Db | DbTransaction, organization: Organization, input: CreatePayoutInput): Promise<NewPayout> {
  const switches = await switchStates(ctx, db);
  if (!switches.get('payouts')) throw new DomainError('payouts_disabled');
  if (!organization.payoutEnabled) throw new DomainError('payout_not_enabled');
  if (!organization.businessSector) throw new DomainError('business_profile_incomplete');
  const payout = validPayout(organization, input);
  if (!switches.get(payout.method)) throw new DomainError('payout_method_unavailable', payout.method);
  return payout;
}

/** The payout to record, or the first rule of the request it breaks (400s). */
function validPayout(organization: Pick<Organization, 'maxPayoutAmount'>, input: CreatePayoutInput): NewPayout {
  const method = parsePaymentMethod(input.selectedPaymentMethod);
  const amount = validAmount(organization, input.amount);
  const phone = input.recipient?.phone?.trim();
  if (!phone) throw new DomainError('invalid_request_body', 'recipient.phone is required');
  return {
    method,
    amount,
    recipientFirstName: optionalBoundedText('recipient.first_name', input.recipient.firstName, MAX_NAME_LENGTH),
    recipientLastName: optionalBoundedText('recipient.last_name', input.recipient.lastName, MAX_NAME_LENGTH),
    recipientPhone: normalizePhone(phone),
    reason: optionalBoundedText('reason', input.reason, MAX_DESCRIPTION_LENGTH) ?? '',
  };
}

function validAmount(organization: Pick<Organization, 'maxPayoutAmount'>, amount: number): bigint {
  if (!Number.isSafeInteger(amount)) throw new DomainError('invalid_request_body', 'amount must be an integer');
  if (amount <= MINIMUM_AMOUNT_EXCLUSIVE) throw new DomainError('invalid_amount', `the amount must be greater than ${MINIMUM_AMOUNT_EXCLUSIVE} XOF`);
  const cap = organization.maxPayoutAmount ?? BigInt(MAXIMUM_AMOUNT);
  if (BigInt(amount) > cap) throw new DomainError('invalid_amount', `the maximum payout amount for this organization is ${cap} XOF`);
  return BigInt(amount);
}
