/**
 * Operator: a signed correction of an organisation's `main` balance (goodwill credit, a fix after
 * a provider dispute), posted against the gateway's `adjustments` account with the operator's
 * reason. It is a ledger posting like any other: balanced, and never below zero.
 */
import type { Account } from '../../generated/prisma/client.js';
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { post } from './posting.js';
import { MAXIMUM_AMOUNT } from '../money.js';
import { findOrganization } from '../organizations/organizations.js';
import { boundedInputText } from '../text.js';
import { merchantAccount } from './store.js';

/** Long enough for a ticket number and a sentence; an adjustment's reason is read in audits. */
const MAX_ADJUSTMENT_REASON_LENGTH = 500;

export interface AdjustAccountInput {
  organizationId: string;
  /** Signed XOF: a credit > 0, a debit < 0. */
  amount: number;
  reason: string;
}

export async function adjustAccount(ctx: GatewayContext, caller: Caller, input: AdjustAccountInput): Promise<Account> {
  authorize(caller, 'adjustAccount');
  const { amount, reason } = validAdjustment(input);
  const organization = await findOrganization(ctx.db, input.organizationId);
  return ctx.db.$transaction(async (tx) => {
    await post(tx, {
      kind: 'adjustment',
      description: reason,
      movements: [
        { side: { organizationId: organization.id, account: 'main' }, amount },
        { side: { gateway: 'adjustments' }, amount: -amount },
      ],
    });
    return merchantAccount(tx, organization.id, 'main');
  });
}

function validAdjustment(input: AdjustAccountInput): { amount: bigint; reason: string } {
  if (!Number.isSafeInteger(input.amount) || input.amount === 0 || Math.abs(input.amount) > MAXIMUM_AMOUNT) {
    throw new DomainError('invalid_input', `amount must be a non-zero whole number of XOF, at most ${MAXIMUM_AMOUNT} either way`);
  }
  const reason = (input.reason ?? '').trim();
  if (!reason || reason.length > MAX_ADJUSTMENT_REASON_LENGTH)
    throw new DomainError('invalid_input', `reason must be 1 to ${MAX_ADJUSTMENT_REASON_LENGTH} characters`);
  return { amount: BigInt(input.amount), reason: boundedInputText('reason', reason, MAX_ADJUSTMENT_REASON_LENGTH) };
}
