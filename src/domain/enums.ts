/**
 * The value lists of the data model's enums, derived from Prisma's generated enums so that a
 * value added to prisma/schema.prisma reaches validation, GraphQL and the CLI without a copy.
 */
import {
  ApiScope,
  OrganizationStatus,
  PaymentMethod,
  PayoutBatchStatus,
  PayoutStatus,
  TransactionStatus,
  WebhookDeliveryStatus,
} from '../generated/prisma/enums.js';

export const PAYMENT_METHODS: readonly PaymentMethod[] = Object.values(PaymentMethod);
export const TRANSACTION_STATUSES: readonly TransactionStatus[] = Object.values(TransactionStatus);
export const PAYOUT_STATUSES: readonly PayoutStatus[] = Object.values(PayoutStatus);
export const PAYOUT_BATCH_STATUSES: readonly PayoutBatchStatus[] = Object.values(PayoutBatchStatus);
export const API_SCOPES: readonly ApiScope[] = Object.values(ApiScope);
export const ORGANIZATION_STATUSES: readonly OrganizationStatus[] = Object.values(OrganizationStatus);
export const WEBHOOK_DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = Object.values(WebhookDeliveryStatus);

/** True when `value` is one of `values` (narrows a string read from the outside). */
export const isOneOf = <T extends string>(values: readonly T[], value: string): value is T => (values as readonly string[]).includes(value);
