/**
 * What an organisation can use right now, and why not: said BEFORE a form (the dashboard's payout
 * form, the home page), from the same facts the creation paths refuse on (createTransaction,
 * createPayout, the checkout's choice of method): the gateway's switches, the organisation's
 * settings, its business profile, and the provider health (a method whose provider is down).
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { PAYMENT_METHODS } from '../enums.js';
import type { OrganizationRecord } from '../organizations/store.js';
import type { SwitchStates } from '../organizations/switches.js';

type Capability = 'transactions' | 'payouts' | PaymentMethod;

/**
 * Why a capability is off, which says what to do:
 * - `paused_by_gateway`: the gateway's operator switched it off for everyone (a provider down, an
 *   incident); nothing to do but wait.
 * - `not_enabled`: not enabled for this organisation; ask the gateway's operator.
 * - `business_profile_incomplete`: the owner completes the business profile (Settings).
 * - `organization_inactive`: the organisation is suspended or blocked; contact the operator.
 * - `provider_down`: the method's wallet provider is down (src/domain/providerCalls/providerHealth.ts):
 *   customers cannot pay with it until it answers again; the operator has been told.
 */
type CapabilityBlock = 'paused_by_gateway' | 'not_enabled' | 'business_profile_incomplete' | 'organization_inactive' | 'provider_down';

export interface CapabilityState {
  capability: Capability;
  /** Null: usable. */
  blockedBy: CapabilityBlock | null;
}

type OrganizationFacts = Pick<OrganizationRecord, 'status' | 'payoutEnabled' | 'allowedMethods' | 'businessSector'>;

/** Every capability in a fixed order (collections, payouts, then each method), usable or with its first reason. */
export function capabilitiesOf(
  organization: OrganizationFacts,
  switches: SwitchStates,
  providersDown: ReadonlySet<PaymentMethod> = new Set(),
): CapabilityState[] {
  const common = (capability: Capability): CapabilityBlock | null => {
    if (switches.get(capability) === false) return 'paused_by_gateway';
    if (organization.status !== 'active') return 'organization_inactive';
    return null;
  };
  const needsProfile = (block: CapabilityBlock | null) => block ?? (organization.businessSector ? null : 'business_profile_incomplete');
  const states: CapabilityState[] = [
    { capability: 'transactions', blockedBy: needsProfile(common('transactions')) },
    { capability: 'payouts', blockedBy: needsProfile(common('payouts') ?? (organization.payoutEnabled ? null : 'not_enabled')) },
  ];
  for (const method of PAYMENT_METHODS) {
    const enabled = organization.allowedMethods.includes(method);
    states.push({ capability: method, blockedBy: common(method) ?? (!enabled ? 'not_enabled' : providersDown.has(method) ? 'provider_down' : null) });
  }
  return states;
}
