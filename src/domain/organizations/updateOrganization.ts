/** Operator: changes an organisation's status, flags, methods, profile and limits. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { invalidateCallers, invalidationOfOrganization } from '../access/callerCache.js';
import { findOrganization } from './organizations.js';
import { changeOrganization, type OrganizationRecord } from './store.js';
import { ORGANIZATION_STATUSES, isOneOf } from '../enums.js';
import { MAXIMUM_AMOUNT } from '../money.js';
import { parseMethodList } from '../paymentMethods.js';
import { boundedInputText, MAX_NAME_LENGTH } from '../text.js';

export interface UpdateOrganizationInput {
  status?: string | null;
  verified?: boolean | null;
  escrowEnabled?: boolean | null;
  payoutEnabled?: boolean | null;
  allowedMethods?: string[] | null;
  /** '' clears the sector (the organisation must then complete its profile). */
  businessSector?: string | null;
  /** null clears a limit; undefined leaves it as it is. */
  minTransactionAmount?: number | null;
  maxTransactionAmount?: number | null;
  maxPayoutAmount?: number | null;
}

export async function updateOrganization(ctx: GatewayContext, caller: Caller, id: string, input: UpdateOrganizationInput): Promise<OrganizationRecord> {
  authorize(caller, 'updateOrganization');
  const current = await findOrganization(ctx.db, id);

  const status = input.status ?? undefined;
  if (status !== undefined && !isOneOf(ORGANIZATION_STATUSES, status)) {
    throw new DomainError('invalid_input', `status must be one of ${ORGANIZATION_STATUSES.join(', ')}`);
  }
  const min = limitOf('min amount', input.minTransactionAmount);
  const max = limitOf('max amount', input.maxTransactionAmount);
  const effectiveMin = min === undefined ? current.minTransactionAmount : min;
  const effectiveMax = max === undefined ? current.maxTransactionAmount : max;
  if (effectiveMin !== null && effectiveMax !== null && effectiveMin > effectiveMax) {
    throw new DomainError('invalid_input', 'min amount is greater than max amount');
  }
  const sector = input.businessSector?.trim();
  if (sector && sector.length > MAX_NAME_LENGTH) throw new DomainError('invalid_input', 'business sector is too long');
  if (sector) boundedInputText('businessSector', sector, MAX_NAME_LENGTH);

  const updated = await changeOrganization(ctx.db, id, {
    ...(status && { status }),
    ...(typeof input.verified === 'boolean' && { verified: input.verified }),
    ...(typeof input.escrowEnabled === 'boolean' && { escrowEnabled: input.escrowEnabled }),
    ...(typeof input.payoutEnabled === 'boolean' && { payoutEnabled: input.payoutEnabled }),
    ...(input.allowedMethods && { allowedMethods: parseMethodList(input.allowedMethods) }),
    ...(input.businessSector !== undefined && { businessSector: sector || null }),
    ...(min !== undefined && { minTransactionAmount: min }),
    ...(max !== undefined && { maxTransactionAmount: max }),
    ...(input.maxPayoutAmount !== undefined && { maxPayoutAmount: limitOf('max payout', input.maxPayoutAmount) ?? null }),
  });
  // Status, flags and limits are read from the authenticated caller: drop cached copies.
  await invalidateCallers(ctx, invalidationOfOrganization(id));
  return updated;
}

function limitOf(label: string, value: number | null | undefined): bigint | null | undefined {
  if (value === undefined || value === null) return value;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAXIMUM_AMOUNT) {
    throw new DomainError('invalid_input', `${label} must be an integer from 1 to ${MAXIMUM_AMOUNT}`);
  }
  return BigInt(value);
}
