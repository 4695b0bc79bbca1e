import { API_SCOPES, ORGANIZATION_STATUSES, PAYMENT_METHODS, PAYOUT_BATCH_STATUSES, PAYOUT_STATUSES, TRANSACTION_STATUSES } from '../../domain/enums.js';
import { SWITCH_NAMES } from '../../domain/organizations/switches.js';
import { builder } from '../builder.js';

export const PaymentMethodEnum = builder.enumType('PaymentMethod', { values: PAYMENT_METHODS });
export const TransactionStatusEnum = builder.enumType('TransactionStatus', { values: TRANSACTION_STATUSES });
export const PayoutStatusEnum = builder.enumType('PayoutStatus', { values: PAYOUT_STATUSES });
export const PayoutBatchStatusEnum = builder.enumType('PayoutBatchStatus', { values: PAYOUT_BATCH_STATUSES });
export const ApiScopeEnum = builder.enumType('ApiScope', { values: API_SCOPES });
export const OrganizationStatusEnum = builder.enumType('OrganizationStatus', { values: ORGANIZATION_STATUSES });
export const SwitchNameEnum = builder.enumType('SwitchName', { values: SWITCH_NAMES });
