/** Operator: registers a merchant organisation with its `main` and `escrow` accounts. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { DEFAULT_BUSINESS_SECTOR, ORGANIZATION_ACCOUNTS } from './organizations.js';
import { insertOrganization, type OrganizationRecord } from './store.js';
import { PAYMENT_METHODS } from '../enums.js';
import { parseMethodList } from '../paymentMethods.js';
import { boundedInputText, MAX_NAME_LENGTH } from '../text.js';

export interface CreateOrganizationInput {
  name: string;
  verified?: boolean | null;
  escrowEnabled?: boolean | null;
  payoutEnabled?: boolean | null;
  /** Default: both methods. */
  allowedMethods?: string[] | null;
  /** Omitted: `general`, so a new organisation can transact; '' or null: left unset. */
  businessSector?: string | null;
}

export async function createOrganization(ctx: GatewayContext, caller: Caller, input: CreateOrganizationInput): Promise<OrganizationRecord> {
  authorize(caller, 'createOrganization');
  const name = input.name.trim();
  if (!name || name.length > MAX_NAME_LENGTH) throw new DomainError('invalid_input', `name must be 1 to ${MAX_NAME_LENGTH} characters`);
  boundedInputText('name', name, MAX_NAME_LENGTH);
  if (input.businessSector) boundedInputText('businessSector', input.businessSector, MAX_NAME_LENGTH);
  const organization = {
    name,
    verified: input.verified ?? false,
    escrowEnabled: input.escrowEnabled ?? false,
    payoutEnabled: input.payoutEnabled ?? false,
    allowedMethods: parseMethodList(input.allowedMethods) ?? [...PAYMENT_METHODS],
    businessSector: input.businessSector === undefined ? DEFAULT_BUSINESS_SECTOR : input.businessSector?.trim() || null,
  };
  return insertOrganization(ctx.db, organization, ORGANIZATION_ACCOUNTS);
}
