/** Every operation of the gateway: the only entry points adapters call. */
import { listTransactionsOfOrganizations } from './transactions/listTransactions.js';
import { listPayoutsOfOrganizations } from './payouts/listPayouts.js';
import { listPaymentLinksWindow } from './paymentLinks/listPaymentLinks.js';
import { listPaymentLinkTransactions } from './paymentLinks/listPaymentLinkTransactions.js';
export { createTransaction } from './transactions/createTransaction.js';
export { getTransaction } from './transactions/getTransaction.js';
export { listTransactions } from './transactions/listTransactions.js';
export { exportTransactions } from './transactions/exportTransactions.js';
export { cancelTransaction } from './transactions/cancelTransaction.js';
export { createOrganization } from './organizations/createOrganization.js';
export { updateOrganization } from './organizations/updateOrganization.js';
export { createApiKey } from './organizations/createApiKey.js';
export { revokeApiKey } from './organizations/revokeApiKey.js';
export { setSwitch, listSwitches } from './organizations/setSwitch.js';
export { getOrganization } from './organizations/getOrganization.js';
export { getCheckout } from './payments/getCheckout.js';
export { listOrganizations } from './organizations/listOrganizations.js';
export { listApiKeys } from './organizations/listApiKeys.js';
export { createOperatorToken } from './access/createOperatorToken.js';
export { listOperatorTokens } from './access/listOperatorTokens.js';
export { revokeOperatorToken } from './access/revokeOperatorToken.js';
export { payTransaction } from './payments/payTransaction.js';
export { refundTransaction } from './refunds/refundTransaction.js';
export { cancelOrRefundTransaction } from './refunds/cancelOrRefundTransaction.js';
export { releaseEscrow } from './payments/releaseEscrow.js';
export { adjustAccount } from './ledger/adjustAccount.js';
export { listAccounts } from './ledger/listAccounts.js';
export { getAccountStats } from './ledger/getAccountStats.js';
export { getAccount } from './ledger/getAccount.js';
export { listAccountEntries } from './ledger/listAccountEntries.js';
export { createPayout } from './payouts/createPayout.js';
export { getPayout } from './payouts/getPayout.js';
export { listPayouts } from './payouts/listPayouts.js';
export { createPayoutBatch } from './payoutBatches/createPayoutBatch.js';
export { startPayoutBatch, cancelPayoutBatch } from './payoutBatches/startPayoutBatch.js';
export { getPayoutBatch, listPayoutBatchItems, exportPayoutBatchItems } from './payoutBatches/getPayoutBatch.js';
export { exportPayouts } from './payouts/exportPayouts.js';
export { approvePayout } from './payouts/approvePayout.js';
export { rejectPayout } from './payouts/rejectPayout.js';
export { listOpenProviderCalls, settleProviderCall } from './providerCalls/providerCalls.js';
export { listProviderStatuses } from './providerCalls/providerHealth.js';
export { listLatePayments } from './payments/latePayments.js';
export { listPendingPayouts } from './payouts/listPendingPayouts.js';
export { createWebhook } from './webhooks/createWebhook.js';
export { rotateWebhookSecret } from './webhooks/rotateWebhookSecret.js';
export { deleteWebhook } from './webhooks/deleteWebhook.js';
export { listWebhooks } from './webhooks/listWebhooks.js';
export { listWebhookDeliveries } from './webhooks/listWebhookDeliveries.js';
export { redeliverWebhook } from './webhooks/redeliverWebhook.js';
export { sendTestWebhook } from './webhooks/sendTestWebhook.js';
export { redeliverFailedWebhooks } from './webhooks/redeliverFailedWebhooks.js';
export { updateBusinessProfile } from './organizations/updateBusinessProfile.js';
export { me } from './users/me.js';
export { startTwoFactorEnrolment } from './users/startTwoFactorEnrolment.js';
export { confirmTwoFactorEnrolment } from './users/confirmTwoFactorEnrolment.js';
export { disableTwoFactor } from './users/disableTwoFactor.js';
export { regenerateRecoveryCodes } from './users/regenerateRecoveryCodes.js';
export { listMembers } from './users/listMembers.js';
export { inviteMember } from './users/inviteMember.js';
export { changeMemberRole } from './users/changeMemberRole.js';
export { removeMember } from './users/removeMember.js';
export { setTeamTwoFactorRequired } from './users/setTeamTwoFactorRequired.js';
export { listAuditEvents } from './audit/listAuditEvents.js';
export { transactionStatusChanged } from './liveUpdates/transactionStatusChanged.js';
export { payoutStatusChanged } from './liveUpdates/payoutStatusChanged.js';
export { payoutBatchStatusChanged } from './liveUpdates/payoutBatchStatusChanged.js';
export { payoutBatchProgress } from './payoutBatches/payoutBatchProgress.js';
export { transactionStats } from './analytics/transactionStats.js';
export { getCapabilities, getMerchantHome } from './home/merchantHome.js';
export { payoutStats } from './analytics/payoutStats.js';
export { refundStats } from './analytics/refundStats.js';
export { conversionStats } from './analytics/conversionStats.js';
export { timeToPayStats } from './analytics/timeToPayStats.js';
export { topOrganizations } from './analytics/topOrganizations.js';
export { createPaymentLink } from './paymentLinks/createPaymentLink.js';
export { getPaymentLink } from './paymentLinks/getPaymentLink.js';
export { listPaymentLinks } from './paymentLinks/listPaymentLinks.js';
export { deactivatePaymentLink } from './paymentLinks/deactivatePaymentLink.js';
export { getPaymentLinkPage } from './paymentLinks/getPaymentLinkPage.js';
export { payPaymentLink } from './paymentLinks/payPaymentLink.js';
export { reconcileProvider } from './reconciliation/reconcileProvider.js';

/**
 * Batched forms of an operation (one statement for many organisations, for GraphQL's nested
 * connections): authorised per organisation as the operation they batch, so they have no row of
 * their own in the access policy and live apart from the operations above.
 */
export const BATCHED_READS = {
  listTransactions: listTransactionsOfOrganizations,
  listPayouts: listPayoutsOfOrganizations,
} as const;

/**
 * Reads of payment links in another form, authorised as the operation they serve (so no row of
 * their own): the list by offset (GraphQL's connection; listPaymentLinks) and a link's
 * transactions (PaymentLink.transactions; getPaymentLink).
 */
export const PAYMENT_LINK_READS = {
  listPaymentLinks: listPaymentLinksWindow,
  linkTransactions: listPaymentLinkTransactions,
} as const;
