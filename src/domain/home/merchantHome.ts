/**
 * The dashboard's home (issue 30): what was paid today and this month, and what needs attention
 * (failed webhook deliveries, payouts awaiting review, payments confirmed late, a capability that
 * is off and why, a method whose provider is down). Days and months are UTC: the gateway's markets (Senegal, Côte d'Ivoire) keep
 * GMT all year, so a UTC day is the merchant's day.
 */
import type { Caller } from '../access/caller.js';
import { authorizeMerchant } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import { providerStatuses } from '../providerCalls/providerHealth.js';
import { findOrganization } from '../organizations/organizations.js';
import { switchStates } from '../organizations/switches.js';
import { capabilitiesOf, type CapabilityState } from './capabilities.js';
import {
  countFailedDeliveries,
  countPayoutsAwaitingReview,
  countRetryingDeliveries,
  listRecentLatePayments,
  paidVolumeBetween,
  type LatePaymentSummary,
  type PaidVolumeRecord,
} from './store.js';

/** How far back a failed delivery or a late payment still asks for attention. */
const ATTENTION_WINDOW_DAYS = 7;
/** Late payments listed on the home page at most (each links to its transaction). */
const MAX_LATE_PAYMENTS = 5;
const DAY_MS = 86_400_000;

export interface MerchantHome {
  today: PaidVolumeRecord;
  thisMonth: PaidVolumeRecord;
  failedDeliveries: number;
  retryingDeliveries: number;
  payoutsAwaitingReview: number;
  latePayments: LatePaymentSummary[];
  /** Every capability; the ones with a `blockedBy` need attention. */
  capabilities: CapabilityState[];
}

const startOfUtcDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
const startOfUtcMonth = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));

export async function getMerchantHome(ctx: GatewayContext, caller: Caller): Promise<MerchantHome> {
  const { organizationId } = authorizeMerchant(caller, 'getMerchantHome');
  const now = ctx.clock.now();
  const end = new Date(startOfUtcDay(now).getTime() + DAY_MS);
  const since = new Date(now.getTime() - ATTENTION_WINDOW_DAYS * DAY_MS);
  const reads = laggingReads(ctx);
  const [today, thisMonth, failedDeliveries, retryingDeliveries, payoutsAwaitingReview, latePayments, capabilities] = await Promise.all([
    paidVolumeBetween(reads, organizationId, startOfUtcDay(now), end),
    paidVolumeBetween(reads, organizationId, startOfUtcMonth(now), end),
    countFailedDeliveries(reads, organizationId, since),
    countRetryingDeliveries(reads, organizationId),
    countPayoutsAwaitingReview(reads, organizationId),
    listRecentLatePayments(reads, organizationId, since, MAX_LATE_PAYMENTS),
    organizationCapabilities(ctx, organizationId),
  ]);
  return { today, thisMonth, failedDeliveries, retryingDeliveries, payoutsAwaitingReview, latePayments, capabilities };
}

/** The capabilities of the caller's organisation (the payout form asks before it is shown). */
export async function getCapabilities(ctx: GatewayContext, caller: Caller): Promise<CapabilityState[]> {
  const { organizationId } = authorizeMerchant(caller, 'getCapabilities');
  return organizationCapabilities(ctx, organizationId);
}

async function organizationCapabilities(ctx: GatewayContext, organizationId: string): Promise<CapabilityState[]> {
  // Read fresh, not from the caller cache: an operator who just enabled payouts is believed at once.
  const [organization, switches] = await Promise.all([findOrganization(ctx.db, organizationId), switchStates(ctx, ctx.db)]);
  // The same health signal operators read (providerStatus, /metrics) and the checkout refuses on.
  const providersDown = new Set(
    providerStatuses(ctx)
      .filter((status) => !status.healthy)
      .map((status) => status.method),
  );
  return capabilitiesOf(organization, switches, providersDown);
}
