/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type ApiScope =
  | 'checkout'
  | 'management'
  | 'payout'
  | 'read'
  | 'readAndWrite'
  | 'write';

export type CreatePayoutInput = {
  /** XOF, a whole number greater than 10 */
  amount: number;
  reason?: string | null | undefined;
  /** phone is required */
  recipient: PersonInput;
  selectedPaymentMethod: PaymentMethod;
};

export type LedgerEntryKind =
  | 'adjustment'
  | 'escrow_hold'
  | 'escrow_release'
  | 'payment'
  | 'payout'
  | 'payout_reversal'
  | 'refund'
  | 'refund_reversal';

/** A dashboard user’s role: owner everything (team, profile, audit log); developer reads money and manages API keys and webhooks; operations reads money, refunds, cancels, pays out and redelivers; viewer reads. */
export type MerchantRole =
  | 'developer'
  | 'operations'
  | 'owner'
  | 'viewer';

export type OrganizationStatus =
  | 'active'
  | 'blocked'
  | 'inactive';

export type PaymentAttemptState =
  | 'collecting'
  | 'failed'
  | 'succeeded'
  | 'unconfirmed';

/** used: a single-use link that was paid; expired: past expiresAt; deactivated: by the merchant. Only active takes a payment. */
export type PaymentLinkStatus =
  | 'active'
  | 'deactivated'
  | 'expired'
  | 'used';

export type PaymentMethod =
  | 'orange_money'
  | 'wave';

export type PayoutBatchStatus =
  | 'cancelled'
  | 'completed'
  | 'completed_with_failures'
  | 'draft'
  | 'running';

export type PayoutFilter = {
  endDate?: string | null | undefined;
  includeDeleted?: boolean | null | undefined;
  maxAmount?: number | null | undefined;
  minAmount?: number | null | undefined;
  paymentMethod?: PaymentMethod | null | undefined;
  /** Exact match: how to find a payout after a timeout or an error. */
  recipientPhone?: string | null | undefined;
  /** Order id, recipient name or phone, reason. */
  search?: string | null | undefined;
  startDate?: string | null | undefined;
  status?: PayoutStatus | null | undefined;
};

export type PayoutStatus =
  | 'cancelled'
  | 'completed'
  | 'failed'
  | 'pending';

export type PersonInput = {
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
  phone?: string | null | undefined;
};

export type RefundStatus =
  | 'failed'
  | 'pending'
  | 'succeeded';

export type TransactionFilter = {
  customerPhone?: string | null | undefined;
  endDate?: string | null | undefined;
  includeDeleted?: boolean | null | undefined;
  isEscrow?: boolean | null | undefined;
  isMerchant?: boolean | null | undefined;
  maxAmount?: number | null | undefined;
  minAmount?: number | null | undefined;
  paymentMethod?: PaymentMethod | null | undefined;
  search?: string | null | undefined;
  startDate?: string | null | undefined;
  status?: TransactionStatus | null | undefined;
};

export type TransactionStatus =
  | 'cancelled'
  | 'paid'
  | 'paid_and_blocked'
  | 'pending'
  | 'refunded';

export type WebhookDeliveryFilter = {
  /** The deliveries about one transaction */
  orderId?: string | number | null | undefined;
  /** Created at or after */
  since?: string | null | undefined;
  /** `dropped`: failed (every attempt failed) */
  status?: WebhookDeliveryStatus | null | undefined;
  /** One endpoint’s deliveries */
  webhookId?: string | number | null | undefined;
};

export type WebhookDeliveryStatus =
  /** A 2xx answer was received */
  | 'delivered'
  /** Every attempt failed (or the webhook was deleted): nothing more is sent */
  | 'dropped'
  /** Waiting for its next attempt (or being sent) */
  | 'pending';

export type WebhookEvent =
  /** A payment settled or escrow released (the spec’s event; the default) */
  | 'payment_status'
  /** A payout batch finished or was cancelled (body: the batch, plus `event`) */
  | 'payout_batch_status'
  /** A payout completed, failed or was cancelled (body: the payout as GET /payouts/{order_id} reads it, plus `event`) */
  | 'payout_status'
  /** A refund succeeded (body: the transaction as GET /transactions/{id} reads it, plus `event`) */
  | 'refund_status';

export type WebhookVersion =
  /** The legacy small body */
  | 'v1'
  /** The full body (default) */
  | 'v2';

export type DashboardPayoutBatchFieldsFragment = { id: string, status: PayoutBatchStatus, itemCount: number, validCount: number, totalAmount: number, totalFees: number, errors: Array<{ line: number, field: string, error: string }>, counts: { queued: number, pending: number, completed: number, failed: number, cancelled: number } };

export type DashboardPayoutBatchQueryVariables = Exact<{
  id: string | number;
}>;


export type DashboardPayoutBatchQuery = { payoutBatch: { id: string, status: PayoutBatchStatus, itemCount: number, validCount: number, totalAmount: number, totalFees: number, errors: Array<{ line: number, field: string, error: string }>, counts: { queued: number, pending: number, completed: number, failed: number, cancelled: number } } };

export type DashboardPayoutBatchProgressSubscriptionVariables = Exact<{
  id: string | number;
}>;


export type DashboardPayoutBatchProgressSubscription = { payoutBatchProgress: { id: string, status: PayoutBatchStatus, itemCount: number, validCount: number, totalAmount: number, totalFees: number, errors: Array<{ line: number, field: string, error: string }>, counts: { queued: number, pending: number, completed: number, failed: number, cancelled: number } } };

export type DashboardStartPayoutBatchMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardStartPayoutBatchMutation = { startPayoutBatch: { id: string, status: PayoutBatchStatus } };

export type DashboardCancelPayoutBatchMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardCancelPayoutBatchMutation = { cancelPayoutBatch: { id: string, status: PayoutBatchStatus } };

export type DashboardHomeQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardHomeQuery = { merchantHome: { failedDeliveries: number, retryingDeliveries: number, payoutsAwaitingReview: number, today: { count: number, amount: number, fees: number }, thisMonth: { count: number, amount: number, fees: number }, latePayments: Array<{ transactionId: string, amount: number, outcome: string, createdAt: string }>, capabilities: Array<{ capability: string, usable: boolean, blockedBy: string | null }> }, accounts: Array<{ id: string, name: string, balance: number }>, transactionsConnection: { edges: Array<{ node: { orderId: string, createdAt: string, amount: number, status: TransactionStatus, selectedPaymentMethod: PaymentMethod | null, paymentLinkId: string | null, customer: { firstName: string | null, lastName: string | null, phone: string | null } } }> }, payoutsConnection: { edges: Array<{ node: { orderId: string, createdAt: string, amount: number, status: PayoutStatus, awaitingReview: boolean, recipient: { firstName: string | null, lastName: string | null, phone: string | null } } }> } };

export type DashboardCapabilitiesQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardCapabilitiesQuery = { capabilities: Array<{ capability: string, usable: boolean, blockedBy: string | null }> };

export type DashboardSearchQueryVariables = Exact<{
  search: string;
  first?: number | null | undefined;
}>;


export type DashboardSearchQuery = { transactionsConnection: { totalCount: number, edges: Array<{ node: { orderId: string, createdAt: string, amount: number, status: TransactionStatus, selectedPaymentMethod: PaymentMethod | null, customer: { firstName: string | null, lastName: string | null, phone: string | null } } }> }, payoutsConnection: { totalCount: number, edges: Array<{ node: { orderId: string, createdAt: string, amount: number, status: PayoutStatus, selectedPaymentMethod: PaymentMethod, recipient: { firstName: string | null, lastName: string | null, phone: string | null } } }> }, paymentLinks: { totalCount: number, edges: Array<{ node: { id: string, name: string, status: PaymentLinkStatus, amount: number, paidCount: number, createdAt: string } }> } };

export type DashboardApiKeysQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardApiKeysQuery = { apiKeys: Array<{ id: string, prefix: string, scope: ApiScope, createdAt: string, lastUsedAt: string | null, revoked: boolean, revokedAt: string | null }> };

export type DashboardCreateApiKeyMutationVariables = Exact<{
  scope: ApiScope;
}>;


export type DashboardCreateApiKeyMutation = { createApiKey: { key: string, apiKey: { id: string, prefix: string, scope: ApiScope, createdAt: string } } };

export type DashboardRevokeApiKeyMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardRevokeApiKeyMutation = { revokeApiKey: { id: string, revoked: boolean } };

export type DashboardWebhooksQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardWebhooksQuery = { webhooks: Array<{ id: string, url: string, version: WebhookVersion, events: Array<WebhookEvent>, createdAt: string }> };

export type DashboardCreateWebhookMutationVariables = Exact<{
  url: string;
  version?: WebhookVersion | null | undefined;
  events?: Array<WebhookEvent> | WebhookEvent | null | undefined;
}>;


export type DashboardCreateWebhookMutation = { createWebhook: { secret: string, webhook: { id: string, url: string, version: WebhookVersion, events: Array<WebhookEvent> } } };

export type DashboardRotateWebhookSecretMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardRotateWebhookSecretMutation = { rotateWebhookSecret: { secret: string, webhook: { id: string } } };

export type DashboardDeleteWebhookMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardDeleteWebhookMutation = { deleteWebhook: { id: string } };

export type DashboardSendTestWebhookMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardSendTestWebhookMutation = { sendTestWebhook: { id: string, status: WebhookDeliveryStatus } };

export type DashboardDeliveriesQueryVariables = Exact<{
  filter?: WebhookDeliveryFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardDeliveriesQuery = { webhookDeliveries: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, event: string, eventId: string, orderId: string | null, webhookId: string, status: WebhookDeliveryStatus, createdAt: string, deliveredAt: string | null, nextAttemptAt: string | null, redeliveryOf: string | null, body: string, attempts: Array<{ number: number, createdAt: string, statusCode: number | null, durationMs: number, error: string | null, signature: string | null }> } }> } };

export type DashboardRedeliverMutationVariables = Exact<{
  deliveryId: string | number;
}>;


export type DashboardRedeliverMutation = { redeliverWebhook: { id: string, status: WebhookDeliveryStatus } };

export type DashboardRedeliverFailedMutationVariables = Exact<{
  since: string;
  webhookId?: string | number | null | undefined;
}>;


export type DashboardRedeliverFailedMutation = { redeliverFailedWebhooks: number };

export type DashboardTransactionsQueryVariables = Exact<{
  filter?: TransactionFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardTransactionsQuery = { transactionsConnection: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { orderId: string, createdAt: string, amount: number, fees: number, status: TransactionStatus, selectedPaymentMethod: PaymentMethod | null, methodOfPayment: Array<PaymentMethod>, customer: { firstName: string | null, lastName: string | null, phone: string | null } } }> } };

export type DashboardTransactionQueryVariables = Exact<{
  orderId: string | number;
}>;


export type DashboardTransactionQuery = { transaction: { orderId: string, createdAt: string, updatedAt: string, paidAt: string | null, amount: number, fees: number, feesCustomerSide: boolean, status: TransactionStatus, isEscrow: boolean, selectedPaymentMethod: PaymentMethod | null, methodOfPayment: Array<PaymentMethod>, customer: { firstName: string | null, lastName: string | null, phone: string | null }, products: Array<{ name: string, description: string | null, price: number, quantity: number }>, paymentAttempts: Array<{ id: string, createdAt: string, settledAt: string | null, method: PaymentMethod, phone: string, amount: number, fee: number, state: PaymentAttemptState, reason: string | null }>, refund: { id: string, createdAt: string, updatedAt: string, amount: number, status: RefundStatus, failureReason: string | null, method: PaymentMethod } | null, webhookDeliveries: Array<{ id: string, event: string, status: WebhookDeliveryStatus, createdAt: string, deliveredAt: string | null, attemptCount: number, webhookId: string }> } };

export type DashboardRefundMutationVariables = Exact<{
  orderId: string | number;
  idempotencyKey?: string | null | undefined;
}>;


export type DashboardRefundMutation = { refundTransaction: { orderId: string, status: TransactionStatus, refund: { id: string, status: RefundStatus, amount: number, failureReason: string | null } | null } };

export type DashboardPayoutsQueryVariables = Exact<{
  filter?: PayoutFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardPayoutsQuery = { payoutsConnection: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { orderId: string, createdAt: string, amount: number, fees: number, status: PayoutStatus, selectedPaymentMethod: PaymentMethod, awaitingReview: boolean, recipient: { firstName: string | null, lastName: string | null, phone: string | null } } }> } };

export type DashboardPayoutQueryVariables = Exact<{
  orderId: string | number;
}>;


export type DashboardPayoutQuery = { payout: { orderId: string, createdAt: string, updatedAt: string, sentAt: string | null, paidAt: string | null, amount: number, fees: number, status: PayoutStatus, awaitingReview: boolean, selectedPaymentMethod: PaymentMethod, reason: string, failureReason: string | null, providerReference: string, recipient: { firstName: string | null, lastName: string | null, phone: string | null }, ledgerEntries: Array<{ id: string, createdAt: string, amount: number, kind: LedgerEntryKind, description: string, balanceAfter: number | null }> } };

export type DashboardCreatePayoutMutationVariables = Exact<{
  input: CreatePayoutInput;
  idempotencyKey?: string | null | undefined;
}>;


export type DashboardCreatePayoutMutation = { createPayout: { orderId: string, status: PayoutStatus } };

export type DashboardAccountsQueryVariables = Exact<{
  entriesPage?: number | null | undefined;
}>;


export type DashboardAccountsQuery = { accounts: Array<{ id: string, type: string, name: string, balance: number, entries: { pagination: { page: number, totalPages: number, totalCount: number }, entries: Array<{ id: string, createdAt: string, amount: number, kind: LedgerEntryKind, description: string, balanceAfter: number | null, transactionId: string | null }> } }> };

export type DashboardStatsQueryVariables = Exact<{
  from: string;
  to: string;
}>;


export type DashboardStatsQuery = { transactionStats: Array<{ periodStart: string, status: TransactionStatus | null, count: number, amount: number, fees: number }> };

export type DashboardMeQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardMeQuery = { me: { email: string, role: MerchantRole, twoFactorEnabled: boolean, organization: { id: string, name: string, businessSector: string | null, status: OrganizationStatus } } };

export type StartTwoFactorEnrolmentMutationVariables = Exact<{
  renew?: boolean | null | undefined;
}>;


export type StartTwoFactorEnrolmentMutation = { startTwoFactorEnrolment: { secret: string, otpauthUrl: string, renewed: boolean } };

export type ConfirmTwoFactorEnrolmentMutationVariables = Exact<{
  code: string;
}>;


export type ConfirmTwoFactorEnrolmentMutation = { confirmTwoFactorEnrolment: Array<string> };

export type DashboardDisableTwoFactorMutationVariables = Exact<{
  code: string;
}>;


export type DashboardDisableTwoFactorMutation = { disableTwoFactor: { email: string, twoFactorEnabled: boolean } };

export type DashboardRegenerateRecoveryCodesMutationVariables = Exact<{
  code: string;
}>;


export type DashboardRegenerateRecoveryCodesMutation = { regenerateRecoveryCodes: Array<string> };

export type DashboardTeamQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardTeamQuery = { members: Array<{ id: string, email: string, role: MerchantRole, twoFactorEnabled: boolean }>, me: { email: string, organization: { id: string, requireTwoFactor: boolean } } };

export type DashboardInviteMutationVariables = Exact<{
  email: string;
  role: MerchantRole;
}>;


export type DashboardInviteMutation = { inviteMember: { email: string, role: MerchantRole, link: string, expiresAt: string } };

export type DashboardChangeRoleMutationVariables = Exact<{
  userId: string | number;
  role: MerchantRole;
}>;


export type DashboardChangeRoleMutation = { changeMemberRole: { id: string, role: MerchantRole } };

export type DashboardRemoveMemberMutationVariables = Exact<{
  userId: string | number;
}>;


export type DashboardRemoveMemberMutation = { removeMember: { id: string } };

export type DashboardRequireTwoFactorMutationVariables = Exact<{
  required: boolean;
}>;


export type DashboardRequireTwoFactorMutation = { setTeamTwoFactorRequired: { id: string, requireTwoFactor: boolean } };

export type DashboardAuditQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  action?: string | null | undefined;
}>;


export type DashboardAuditQuery = { auditEvents: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, at: string, action: string, actorKind: string, actorLabel: string, actorQualifier: string | null, target: string | null, details: string | null } }> } };

export type DashboardUpdateProfileMutationVariables = Exact<{
  name?: string | null | undefined;
  sector?: string | null | undefined;
}>;


export type DashboardUpdateProfileMutation = { updateBusinessProfile: { id: string, name: string, businessSector: string | null } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const DashboardPayoutBatchFieldsFragmentDoc = new TypedDocumentString(`
    fragment DashboardPayoutBatchFields on PayoutBatch {
  id
  status
  itemCount
  validCount
  totalAmount
  totalFees
  errors {
    line
    field
    error
  }
  counts {
    queued
    pending
    completed
    failed
    cancelled
  }
}
    `, {"fragmentName":"DashboardPayoutBatchFields"}) as unknown as TypedDocumentString<DashboardPayoutBatchFieldsFragment, unknown>;
export const DashboardPayoutBatchDocument = new TypedDocumentString(`
    query DashboardPayoutBatch($id: ID!) {
  payoutBatch(id: $id) {
    ...DashboardPayoutBatchFields
  }
}
    fragment DashboardPayoutBatchFields on PayoutBatch {
  id
  status
  itemCount
  validCount
  totalAmount
  totalFees
  errors {
    line
    field
    error
  }
  counts {
    queued
    pending
    completed
    failed
    cancelled
  }
}`) as unknown as TypedDocumentString<DashboardPayoutBatchQuery, DashboardPayoutBatchQueryVariables>;
export const DashboardPayoutBatchProgressDocument = new TypedDocumentString(`
    subscription DashboardPayoutBatchProgress($id: ID!) {
  payoutBatchProgress(id: $id) {
    ...DashboardPayoutBatchFields
  }
}
    fragment DashboardPayoutBatchFields on PayoutBatch {
  id
  status
  itemCount
  validCount
  totalAmount
  totalFees
  errors {
    line
    field
    error
  }
  counts {
    queued
    pending
    completed
    failed
    cancelled
  }
}`) as unknown as TypedDocumentString<DashboardPayoutBatchProgressSubscription, DashboardPayoutBatchProgressSubscriptionVariables>;
export const DashboardStartPayoutBatchDocument = new TypedDocumentString(`
    mutation DashboardStartPayoutBatch($id: ID!) {
  startPayoutBatch(id: $id, skipInvalidLines: true) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<DashboardStartPayoutBatchMutation, DashboardStartPayoutBatchMutationVariables>;
export const DashboardCancelPayoutBatchDocument = new TypedDocumentString(`
    mutation DashboardCancelPayoutBatch($id: ID!) {
  cancelPayoutBatch(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<DashboardCancelPayoutBatchMutation, DashboardCancelPayoutBatchMutationVariables>;
export const DashboardHomeDocument = new TypedDocumentString(`
    query DashboardHome {
  merchantHome {
    today {
      count
      amount
      fees
    }
    thisMonth {
      count
      amount
      fees
    }
    failedDeliveries
    retryingDeliveries
    payoutsAwaitingReview
    latePayments {
      transactionId
      amount
      outcome
      createdAt
    }
    capabilities {
      capability
      usable
      blockedBy
    }
  }
  accounts {
    id
    name
    balance
  }
  transactionsConnection(first: 5) {
    edges {
      node {
        orderId
        createdAt
        amount
        status
        selectedPaymentMethod
        paymentLinkId
        customer {
          firstName
          lastName
          phone
        }
      }
    }
  }
  payoutsConnection(first: 5) {
    edges {
      node {
        orderId
        createdAt
        amount
        status
        awaitingReview
        recipient {
          firstName
          lastName
          phone
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardHomeQuery, DashboardHomeQueryVariables>;
export const DashboardCapabilitiesDocument = new TypedDocumentString(`
    query DashboardCapabilities {
  capabilities {
    capability
    usable
    blockedBy
  }
}
    `) as unknown as TypedDocumentString<DashboardCapabilitiesQuery, DashboardCapabilitiesQueryVariables>;
export const DashboardSearchDocument = new TypedDocumentString(`
    query DashboardSearch($search: String!, $first: Int) {
  transactionsConnection(filter: {search: $search}, first: $first) {
    totalCount
    edges {
      node {
        orderId
        createdAt
        amount
        status
        selectedPaymentMethod
        customer {
          firstName
          lastName
          phone
        }
      }
    }
  }
  payoutsConnection(filter: {search: $search}, first: $first) {
    totalCount
    edges {
      node {
        orderId
        createdAt
        amount
        status
        selectedPaymentMethod
        recipient {
          firstName
          lastName
          phone
        }
      }
    }
  }
  paymentLinks(search: $search, first: $first) {
    totalCount
    edges {
      node {
        id
        name
        status
        amount
        paidCount
        createdAt
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardSearchQuery, DashboardSearchQueryVariables>;
export const DashboardApiKeysDocument = new TypedDocumentString(`
    query DashboardApiKeys {
  apiKeys {
    id
    prefix
    scope
    createdAt
    lastUsedAt
    revoked
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<DashboardApiKeysQuery, DashboardApiKeysQueryVariables>;
export const DashboardCreateApiKeyDocument = new TypedDocumentString(`
    mutation DashboardCreateApiKey($scope: ApiScope!) {
  createApiKey(scope: $scope) {
    key
    apiKey {
      id
      prefix
      scope
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardCreateApiKeyMutation, DashboardCreateApiKeyMutationVariables>;
export const DashboardRevokeApiKeyDocument = new TypedDocumentString(`
    mutation DashboardRevokeApiKey($id: ID!) {
  revokeApiKey(id: $id) {
    id
    revoked
  }
}
    `) as unknown as TypedDocumentString<DashboardRevokeApiKeyMutation, DashboardRevokeApiKeyMutationVariables>;
export const DashboardWebhooksDocument = new TypedDocumentString(`
    query DashboardWebhooks {
  webhooks {
    id
    url
    version
    events
    createdAt
  }
}
    `) as unknown as TypedDocumentString<DashboardWebhooksQuery, DashboardWebhooksQueryVariables>;
export const DashboardCreateWebhookDocument = new TypedDocumentString(`
    mutation DashboardCreateWebhook($url: String!, $version: WebhookVersion, $events: [WebhookEvent!]) {
  createWebhook(url: $url, version: $version, events: $events) {
    secret
    webhook {
      id
      url
      version
      events
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardCreateWebhookMutation, DashboardCreateWebhookMutationVariables>;
export const DashboardRotateWebhookSecretDocument = new TypedDocumentString(`
    mutation DashboardRotateWebhookSecret($id: ID!) {
  rotateWebhookSecret(id: $id) {
    secret
    webhook {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardRotateWebhookSecretMutation, DashboardRotateWebhookSecretMutationVariables>;
export const DashboardDeleteWebhookDocument = new TypedDocumentString(`
    mutation DashboardDeleteWebhook($id: ID!) {
  deleteWebhook(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DashboardDeleteWebhookMutation, DashboardDeleteWebhookMutationVariables>;
export const DashboardSendTestWebhookDocument = new TypedDocumentString(`
    mutation DashboardSendTestWebhook($id: ID!) {
  sendTestWebhook(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<DashboardSendTestWebhookMutation, DashboardSendTestWebhookMutationVariables>;
export const DashboardDeliveriesDocument = new TypedDocumentString(`
    query DashboardDeliveries($filter: WebhookDeliveryFilter, $first: Int, $after: String) {
  webhookDeliveries(filter: $filter, first: $first, after: $after) {
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        event
        eventId
        orderId
        webhookId
        status
        createdAt
        deliveredAt
        nextAttemptAt
        redeliveryOf
        body
        attempts {
          number
          createdAt
          statusCode
          durationMs
          error
          signature
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardDeliveriesQuery, DashboardDeliveriesQueryVariables>;
export const DashboardRedeliverDocument = new TypedDocumentString(`
    mutation DashboardRedeliver($deliveryId: ID!) {
  redeliverWebhook(deliveryId: $deliveryId) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<DashboardRedeliverMutation, DashboardRedeliverMutationVariables>;
export const DashboardRedeliverFailedDocument = new TypedDocumentString(`
    mutation DashboardRedeliverFailed($since: DateTime!, $webhookId: ID) {
  redeliverFailedWebhooks(since: $since, webhookId: $webhookId)
}
    `) as unknown as TypedDocumentString<DashboardRedeliverFailedMutation, DashboardRedeliverFailedMutationVariables>;
export const DashboardTransactionsDocument = new TypedDocumentString(`
    query DashboardTransactions($filter: TransactionFilter, $first: Int, $after: String) {
  transactionsConnection(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        orderId
        createdAt
        amount
        fees
        status
        selectedPaymentMethod
        methodOfPayment
        customer {
          firstName
          lastName
          phone
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardTransactionsQuery, DashboardTransactionsQueryVariables>;
export const DashboardTransactionDocument = new TypedDocumentString(`
    query DashboardTransaction($orderId: ID!) {
  transaction(orderId: $orderId) {
    orderId
    createdAt
    updatedAt
    paidAt
    amount
    fees
    feesCustomerSide
    status
    isEscrow
    selectedPaymentMethod
    methodOfPayment
    customer {
      firstName
      lastName
      phone
    }
    products {
      name
      description
      price
      quantity
    }
    paymentAttempts {
      id
      createdAt
      settledAt
      method
      phone
      amount
      fee
      state
      reason
    }
    refund {
      id
      createdAt
      updatedAt
      amount
      status
      failureReason
      method
    }
    webhookDeliveries {
      id
      event
      status
      createdAt
      deliveredAt
      attemptCount
      webhookId
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardTransactionQuery, DashboardTransactionQueryVariables>;
export const DashboardRefundDocument = new TypedDocumentString(`
    mutation DashboardRefund($orderId: ID!, $idempotencyKey: String) {
  refundTransaction(orderId: $orderId, idempotencyKey: $idempotencyKey) {
    orderId
    status
    refund {
      id
      status
      amount
      failureReason
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardRefundMutation, DashboardRefundMutationVariables>;
export const DashboardPayoutsDocument = new TypedDocumentString(`
    query DashboardPayouts($filter: PayoutFilter, $first: Int, $after: String) {
  payoutsConnection(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        orderId
        createdAt
        amount
        fees
        status
        selectedPaymentMethod
        awaitingReview
        recipient {
          firstName
          lastName
          phone
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardPayoutsQuery, DashboardPayoutsQueryVariables>;
export const DashboardPayoutDocument = new TypedDocumentString(`
    query DashboardPayout($orderId: ID!) {
  payout(orderId: $orderId) {
    orderId
    createdAt
    updatedAt
    sentAt
    paidAt
    amount
    fees
    status
    awaitingReview
    selectedPaymentMethod
    reason
    failureReason
    providerReference
    recipient {
      firstName
      lastName
      phone
    }
    ledgerEntries {
      id
      createdAt
      amount
      kind
      description
      balanceAfter
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardPayoutQuery, DashboardPayoutQueryVariables>;
export const DashboardCreatePayoutDocument = new TypedDocumentString(`
    mutation DashboardCreatePayout($input: CreatePayoutInput!, $idempotencyKey: String) {
  createPayout(input: $input, idempotencyKey: $idempotencyKey) {
    orderId
    status
  }
}
    `) as unknown as TypedDocumentString<DashboardCreatePayoutMutation, DashboardCreatePayoutMutationVariables>;
export const DashboardAccountsDocument = new TypedDocumentString(`
    query DashboardAccounts($entriesPage: Int) {
  accounts {
    id
    type
    name
    balance
    entries(limit: 20, page: $entriesPage) {
      pagination {
        page
        totalPages
        totalCount
      }
      entries {
        id
        createdAt
        amount
        kind
        description
        balanceAfter
        transactionId
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardAccountsQuery, DashboardAccountsQueryVariables>;
export const DashboardStatsDocument = new TypedDocumentString(`
    query DashboardStats($from: DateTime!, $to: DateTime!) {
  transactionStats(from: $from, to: $to, interval: DAY, groupBy: [STATUS]) {
    periodStart
    status
    count
    amount
    fees
  }
}
    `) as unknown as TypedDocumentString<DashboardStatsQuery, DashboardStatsQueryVariables>;
export const DashboardMeDocument = new TypedDocumentString(`
    query DashboardMe {
  me {
    email
    role
    twoFactorEnabled
    organization {
      id
      name
      businessSector
      status
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardMeQuery, DashboardMeQueryVariables>;
export const StartTwoFactorEnrolmentDocument = new TypedDocumentString(`
    mutation StartTwoFactorEnrolment($renew: Boolean) {
  startTwoFactorEnrolment(renew: $renew) {
    secret
    otpauthUrl
    renewed
  }
}
    `) as unknown as TypedDocumentString<StartTwoFactorEnrolmentMutation, StartTwoFactorEnrolmentMutationVariables>;
export const ConfirmTwoFactorEnrolmentDocument = new TypedDocumentString(`
    mutation ConfirmTwoFactorEnrolment($code: String!) {
  confirmTwoFactorEnrolment(code: $code)
}
    `) as unknown as TypedDocumentString<ConfirmTwoFactorEnrolmentMutation, ConfirmTwoFactorEnrolmentMutationVariables>;
export const DashboardDisableTwoFactorDocument = new TypedDocumentString(`
    mutation DashboardDisableTwoFactor($code: String!) {
  disableTwoFactor(code: $code) {
    email
    twoFactorEnabled
  }
}
    `) as unknown as TypedDocumentString<DashboardDisableTwoFactorMutation, DashboardDisableTwoFactorMutationVariables>;
export const DashboardRegenerateRecoveryCodesDocument = new TypedDocumentString(`
    mutation DashboardRegenerateRecoveryCodes($code: String!) {
  regenerateRecoveryCodes(code: $code)
}
    `) as unknown as TypedDocumentString<DashboardRegenerateRecoveryCodesMutation, DashboardRegenerateRecoveryCodesMutationVariables>;
export const DashboardTeamDocument = new TypedDocumentString(`
    query DashboardTeam {
  members {
    id
    email
    role
    twoFactorEnabled
  }
  me {
    email
    organization {
      id
      requireTwoFactor
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardTeamQuery, DashboardTeamQueryVariables>;
export const DashboardInviteDocument = new TypedDocumentString(`
    mutation DashboardInvite($email: String!, $role: MerchantRole!) {
  inviteMember(email: $email, role: $role) {
    email
    role
    link
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<DashboardInviteMutation, DashboardInviteMutationVariables>;
export const DashboardChangeRoleDocument = new TypedDocumentString(`
    mutation DashboardChangeRole($userId: ID!, $role: MerchantRole!) {
  changeMemberRole(userId: $userId, role: $role) {
    id
    role
  }
}
    `) as unknown as TypedDocumentString<DashboardChangeRoleMutation, DashboardChangeRoleMutationVariables>;
export const DashboardRemoveMemberDocument = new TypedDocumentString(`
    mutation DashboardRemoveMember($userId: ID!) {
  removeMember(userId: $userId) {
    id
  }
}
    `) as unknown as TypedDocumentString<DashboardRemoveMemberMutation, DashboardRemoveMemberMutationVariables>;
export const DashboardRequireTwoFactorDocument = new TypedDocumentString(`
    mutation DashboardRequireTwoFactor($required: Boolean!) {
  setTeamTwoFactorRequired(required: $required) {
    id
    requireTwoFactor
  }
}
    `) as unknown as TypedDocumentString<DashboardRequireTwoFactorMutation, DashboardRequireTwoFactorMutationVariables>;
export const DashboardAuditDocument = new TypedDocumentString(`
    query DashboardAudit($first: Int, $after: String, $action: String) {
  auditEvents(first: $first, after: $after, action: $action) {
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        at
        action
        actorKind
        actorLabel
        actorQualifier
        target
        details
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardAuditQuery, DashboardAuditQueryVariables>;
export const DashboardUpdateProfileDocument = new TypedDocumentString(`
    mutation DashboardUpdateProfile($name: String, $sector: String) {
  updateBusinessProfile(name: $name, sector: $sector) {
    id
    name
    businessSector
  }
}
    `) as unknown as TypedDocumentString<DashboardUpdateProfileMutation, DashboardUpdateProfileMutationVariables>;