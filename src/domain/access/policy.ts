/**
 * The one access policy: who may run which operation. Every principal (a merchant API key by its
 * scope, an operator token by its role, the customer holding an order id) meets every operation in
 * ACCESS_POLICY, and `authorize` reads it once per call. Adapters and operations name the
 * operation they run, never a scope or a role; a new capability adds its rows here.
 *
 * Roles (docs/cli.md, "Operator roles"): `admin` does everything; `analyst` reads everything across
 * organisations and mutates nothing; `support` reads, approves or rejects payouts, releases escrow
 * and redelivers webhooks. Merchant scopes are the spec's Authentication table (openapi/v2.yaml
 * repeats them as `x-scopes`; a test keeps the two equal).
 *
 * Merchant dashboard users, by role (issue 20's contract): `owner` does everything a user may;
 * `developer` reads money and manages API keys and webhooks; `operations` reads money, refunds,
 * cancels, pays out and redelivers webhooks; `viewer` reads (never a secret) and changes nothing
 * but its own sign-in. Operator-only rows (other organisations, the gateway's switches) admit no user.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { ApiScope, MerchantRole, OperatorRole } from '../../generated/prisma/enums.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Caller, MerchantCaller, MerchantUserCaller, OperatorCaller, OrganizationCaller } from './caller.js';

export interface AccessRule {
  /** The API-key scopes that may run it; none: no merchant key may. */
  readonly scopes: readonly ApiScope[];
  /** The operator roles that may run it; none: no operator may. */
  readonly roles: readonly OperatorRole[];
  /** The merchant dashboard roles that may run it, on their own organisation; absent: no user may. */
  readonly users?: readonly MerchantRole[];
  /** A user who must still set up two-factor sign-in may run it (reading itself, enrolling). */
  readonly whileEnrolling?: boolean;
  /** A write: an inactive organisation's key may not run it (reads still work). */
  readonly write: boolean;
  /** Anyone holding the unguessable order id (the checkout page's customer) may run it. */
  readonly customer?: boolean;
}

/** The customer on the checkout page: no credential but the order id. */
export interface CustomerPrincipal {
  kind: 'customer';
}
export type Principal = Caller | CustomerPrincipal;

const NONE = [] as const;
const EVERY_ROLE = ['admin', 'analyst', 'support'] as const;
const ADMIN = ['admin'] as const;
/** Support's work: payout review, escrow release, webhook redelivery. */
const ADMIN_AND_SUPPORT = ['admin', 'support'] as const;

const CHECKOUT_WRITE = ['checkout', 'write', 'readAndWrite'] as const;
const CHECKOUT_READ = ['checkout', 'read', 'readAndWrite'] as const;
const ACCOUNT_READ = ['read', 'readAndWrite', 'management'] as const;
const WEBHOOK_MANAGEMENT = ['management'] as const;

/** Every dashboard user: reading the organisation's money, webhooks and keys (metadata, never a secret). */
const EVERY_USER = ['owner', 'developer', 'operations', 'viewer'] as const;
/** Moving money back or out: refunds, cancellations, payouts. */
const MONEY_MOVERS = ['owner', 'operations'] as const;
/** The integration's credentials: API keys and webhooks. */
const INTEGRATORS = ['owner', 'developer'] as const;
/** Sending a delivery again: the integration's people, and operations chasing a merchant's order. */
const REDELIVERERS = ['owner', 'developer', 'operations'] as const;
/** Who sells: makes and deactivates payment links. */
const LINK_MAKERS = ['owner', 'operations'] as const;
/** Payment links are read by every key that may create or read transactions. */
const LINK_READ = ['checkout', 'read', 'write', 'readAndWrite'] as const;
/** The team, its security settings and its audit log. */
const OWNER = ['owner'] as const;

export const ACCESS_POLICY = {
  // Transactions (the spec's table).
  // Admins too, naming the organisation: a transaction to try an integration end to end (`gateway trigger`).
  createTransaction: { scopes: CHECKOUT_WRITE, roles: ADMIN, write: true },
  getTransaction: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  listTransactions: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  cancelTransaction: { scopes: CHECKOUT_WRITE, roles: NONE, users: MONEY_MOVERS, write: true },
  // GET /refund is a write although its verb is GET.
  refundTransaction: { scopes: ['checkout', 'write', 'readAndWrite', 'management'], roles: NONE, users: MONEY_MOVERS, write: true },
  // v1's delete: cancel while pending, refund once paid; then authorised again as the one it turns out to be.
  cancelOrRefundTransaction: { scopes: ['checkout', 'write', 'readAndWrite', 'management'], roles: NONE, write: true },
  // The checkout page, and the sandbox payment an admin drives.
  getCheckout: { scopes: NONE, roles: NONE, write: false, customer: true },
  payTransaction: { scopes: NONE, roles: ADMIN, write: true, customer: true },
  releaseEscrow: { scopes: NONE, roles: ADMIN_AND_SUPPORT, write: true },

  // Payment links (issue 30, a REST v2 extension): made and deactivated by whoever may create
  // transactions, read by those and `read` keys. Dashboard: the people who sell make them, everyone
  // reads them. The customer on the link's page reads it and makes a transaction from it.
  createPaymentLink: { scopes: CHECKOUT_WRITE, roles: NONE, users: LINK_MAKERS, write: true },
  deactivatePaymentLink: { scopes: CHECKOUT_WRITE, roles: ADMIN, users: LINK_MAKERS, write: true },
  getPaymentLink: { scopes: LINK_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  listPaymentLinks: { scopes: LINK_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  getPaymentLinkPage: { scopes: NONE, roles: NONE, write: false, customer: true },
  payPaymentLink: { scopes: NONE, roles: NONE, write: true, customer: true },

  // Payouts.
  createPayout: { scopes: ['payout'], roles: NONE, users: MONEY_MOVERS, write: true },
  getPayout: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  listPayouts: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  // Payout batches: sent by whoever may send payouts; read by whoever may read them.
  createPayoutBatch: { scopes: ['payout'], roles: NONE, users: MONEY_MOVERS, write: true },
  startPayoutBatch: { scopes: ['payout'], roles: NONE, users: MONEY_MOVERS, write: true },
  cancelPayoutBatch: { scopes: ['payout'], roles: NONE, users: MONEY_MOVERS, write: true },
  getPayoutBatch: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  listPayoutBatchItems: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  exportPayoutBatchItems: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  listPendingPayouts: { scopes: NONE, roles: EVERY_ROLE, write: false },
  approvePayout: { scopes: NONE, roles: ADMIN_AND_SUPPORT, write: true },
  rejectPayout: { scopes: NONE, roles: ADMIN_AND_SUPPORT, write: true },
  listOpenProviderCalls: { scopes: NONE, roles: EVERY_ROLE, write: false },
  // Each method's provider, healthy or down with why (public /healthz says only healthy or not).
  listProviderStatuses: { scopes: NONE, roles: EVERY_ROLE, write: false },
  settleProviderCall: { scopes: NONE, roles: ADMIN, write: true },
  listLatePayments: { scopes: NONE, roles: EVERY_ROLE, write: false },
  reconcileProvider: { scopes: NONE, roles: EVERY_ROLE, write: false },

  // Ledger accounts.
  listAccounts: { scopes: ACCOUNT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  getAccountStats: { scopes: ACCOUNT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  getAccount: { scopes: ACCOUNT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  listAccountEntries: { scopes: ACCOUNT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  adjustAccount: { scopes: NONE, roles: ADMIN, write: true },

  // Webhooks: the organisation through a management key, or operators.
  listWebhooks: { scopes: WEBHOOK_MANAGEMENT, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  listWebhookDeliveries: { scopes: WEBHOOK_MANAGEMENT, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  createWebhook: { scopes: WEBHOOK_MANAGEMENT, roles: ADMIN, users: INTEGRATORS, write: true },
  rotateWebhookSecret: { scopes: WEBHOOK_MANAGEMENT, roles: ADMIN, users: INTEGRATORS, write: true },
  deleteWebhook: { scopes: WEBHOOK_MANAGEMENT, roles: ADMIN, users: INTEGRATORS, write: true },
  redeliverWebhook: { scopes: WEBHOOK_MANAGEMENT, roles: ADMIN_AND_SUPPORT, users: REDELIVERERS, write: true },
  // A signed `test` event to one endpoint: checks the merchant's receiver, moves nothing. Managing
  // the endpoint's traffic, like creating it (support only redelivers what the gateway sent).
  sendTestWebhook: { scopes: WEBHOOK_MANAGEMENT, roles: ADMIN, users: INTEGRATORS, write: true },
  // Every failed delivery since a time, again: who may redeliver one may redeliver them all.
  redeliverFailedWebhooks: { scopes: WEBHOOK_MANAGEMENT, roles: ADMIN_AND_SUPPORT, users: REDELIVERERS, write: true },

  // Organisations and the gateway's switches: operators only; an organisation's keys: its integrators too.
  getOrganization: { scopes: NONE, roles: EVERY_ROLE, write: false },
  listOrganizations: { scopes: NONE, roles: EVERY_ROLE, write: false },
  createOrganization: { scopes: NONE, roles: ADMIN, write: true },
  updateOrganization: { scopes: NONE, roles: ADMIN, write: true },
  // The business profile (name, sector): its owner completes it (no API key: a credential in code
  // does not rename its organisation), or an admin.
  updateBusinessProfile: { scopes: NONE, roles: ADMIN, users: ['owner'], write: true },
  listApiKeys: { scopes: NONE, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  createApiKey: { scopes: NONE, roles: ADMIN, users: INTEGRATORS, write: true },
  revokeApiKey: { scopes: NONE, roles: ADMIN, users: INTEGRATORS, write: true },
  listSwitches: { scopes: NONE, roles: EVERY_ROLE, write: false },
  setSwitch: { scopes: NONE, roles: ADMIN, write: true },
  // Operator tokens: issued and revoked by an admin; their metadata (never the token) read by every role.
  createOperatorToken: { scopes: NONE, roles: ADMIN, write: true },
  listOperatorTokens: { scopes: NONE, roles: EVERY_ROLE, write: false },
  revokeOperatorToken: { scopes: NONE, roles: ADMIN, write: true },

  // The merchant dashboard's people (src/domain/users). Each user reads itself and manages its own
  // two-factor sign-in (not a write: it changes nobody's business, so an inactive organisation's
  // users may still secure their sign-in); the owner runs the team (admins may help), and reads
  // the audit log (operators too).
  me: { scopes: NONE, roles: NONE, users: EVERY_USER, write: false, whileEnrolling: true },
  startTwoFactorEnrolment: { scopes: NONE, roles: NONE, users: EVERY_USER, write: false, whileEnrolling: true },
  confirmTwoFactorEnrolment: { scopes: NONE, roles: NONE, users: EVERY_USER, write: false, whileEnrolling: true },
  disableTwoFactor: { scopes: NONE, roles: NONE, users: EVERY_USER, write: false },
  regenerateRecoveryCodes: { scopes: NONE, roles: NONE, users: EVERY_USER, write: false },
  listMembers: { scopes: NONE, roles: EVERY_ROLE, users: OWNER, write: false },
  inviteMember: { scopes: NONE, roles: ADMIN, users: OWNER, write: true },
  changeMemberRole: { scopes: NONE, roles: ADMIN, users: OWNER, write: true },
  removeMember: { scopes: NONE, roles: ADMIN, users: OWNER, write: true },
  setTeamTwoFactorRequired: { scopes: NONE, roles: ADMIN, users: OWNER, write: true },
  listAuditEvents: { scopes: NONE, roles: EVERY_ROLE, users: OWNER, write: false },
  // The dashboard's home (paid volume, what needs attention, capabilities): a team's own page, read by all of it.
  getMerchantHome: { scopes: NONE, roles: NONE, users: EVERY_USER, write: false },
  // What the organisation can use now and why not (said before a form): the same readers.
  getCapabilities: { scopes: NONE, roles: NONE, users: EVERY_USER, write: false },

  // Analytics, exports and live updates: whoever may list the rows they are made of.
  transactionStats: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  payoutStats: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  // What an analyst asks next: refunds over time, conversion and time to pay (over the merchant's
  // transactions: who may list them), and the ranking across merchants (operators only).
  refundStats: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  conversionStats: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  timeToPayStats: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  topOrganizations: { scopes: NONE, roles: EVERY_ROLE, write: false },
  exportTransactions: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  exportPayouts: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  transactionStatusChanged: { scopes: CHECKOUT_READ, roles: EVERY_ROLE, users: EVERY_USER, write: false },
  payoutStatusChanged: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  // Who may read a batch may watch it: its status changes (gateway listen), its progress (the dashboard's bar).
  payoutBatchStatusChanged: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
  payoutBatchProgress: { scopes: ['payout', 'read'], roles: EVERY_ROLE, users: EVERY_USER, write: false },
} as const satisfies Record<string, AccessRule>;

export type Operation = keyof typeof ACCESS_POLICY;

/**
 * The one evaluation of the policy, in the spec's order for merchant keys: a blocked organisation
 * gets 403 on everything, an inactive one 401 on writes (reads still work), then the key's scope.
 * A dashboard user is judged the same way, by its role instead of a scope.
 * An operator whose role the row does not hold gets `operator_forbidden`; a principal of a kind
 * the row does not admit at all gets `permission_denied`.
 */
export function authorize(principal: MerchantCaller, operation: Operation): MerchantCaller;
export function authorize(principal: MerchantUserCaller, operation: Operation): MerchantUserCaller;
export function authorize(principal: OrganizationCaller, operation: Operation): OrganizationCaller;
export function authorize(principal: OperatorCaller, operation: Operation): OperatorCaller;
export function authorize(principal: Caller, operation: Operation): Caller;
export function authorize(principal: Principal, operation: Operation): Principal;
export function authorize(principal: Principal, operation: Operation): Principal {
  const rule: AccessRule = ACCESS_POLICY[operation];
  switch (principal.kind) {
    case 'customer':
      if (!rule.customer) throw new DomainError('permission_denied');
      return principal;
    case 'operator':
      if (rule.roles.length === 0) throw new DomainError('permission_denied');
      if (!rule.roles.includes(principal.role)) throw new DomainError('operator_forbidden');
      return principal;
    case 'merchant':
      if (rule.scopes.length === 0) throw new DomainError('permission_denied');
      refuseByOrganizationStatus(principal.organization, rule);
      if (!rule.scopes.includes(principal.scope)) throw new DomainError('permission_denied');
      return principal;
    case 'merchantUser':
      if (!rule.users?.length) throw new DomainError('permission_denied');
      if (principal.mustEnrolTwoFactor && !rule.whileEnrolling) throw new DomainError('two_factor_enrolment_required');
      refuseByOrganizationStatus(principal.organization, rule);
      if (!rule.users.includes(principal.role)) throw new DomainError('permission_denied');
      return principal;
  }
}

/** The spec's order for anyone acting for an organisation: blocked refuses everything, inactive every write. */
function refuseByOrganizationStatus(organization: Pick<Organization, 'status'>, rule: AccessRule): void {
  const { status } = organization;
  if (status === 'blocked') throw new DomainError('organization_blocked');
  if (status === 'inactive' && rule.write) throw new DomainError('organization_inactive');
}

/**
 * An operator acting in an organisation's place (creating a transaction for it: `gateway
 * trigger`) meets the refusals the organisation's own key would: what a blocked or inactive
 * merchant may not do, no operator does for it either.
 */
export function refuseForOrganizationState(organization: Pick<Organization, 'status'>, operation: Operation): void {
  refuseByOrganizationStatus(organization, ACCESS_POLICY[operation]);
}

/** Whether the policy lets `principal` run `operation` (the same evaluation, without the refusal). */
export function mayRun(principal: Principal, operation: Operation): boolean {
  try {
    authorize(principal, operation);
    return true;
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
}

/**
 * The organisation an allowed caller acts on: a merchant key's or dashboard user's own (naming
 * another one is refused), or the one an operator names (null = all of them, for reads).
 */
export function organizationOf(caller: Caller, organizationId?: string | null): string | null {
  if (caller.kind === 'operator') {
    // An id that cannot be one names no organisation: 404, not a query PostgreSQL refuses (500).
    if (organizationId != null && !isUuid(organizationId)) throw new DomainError('organization_not_found');
    return organizationId ?? null;
  }
  if (organizationId && organizationId !== caller.organization.id) throw new DomainError('permission_denied');
  return caller.organization.id;
}

/** The operations of the spec's Authentication table (REST v2 / v1): the merchant API. */
export const SPEC_OPERATIONS = [
  'createTransaction',
  'getTransaction',
  'listTransactions',
  'cancelTransaction',
  'refundTransaction',
  'createPayout',
  'getPayout',
  'listPayouts',
  'listAccounts',
  'getAccountStats',
  'getAccount',
] as const satisfies readonly Operation[];
