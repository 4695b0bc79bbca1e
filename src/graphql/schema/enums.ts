import { API_SCOPES } from '../../domain/scopes.js';
import { PAYMENT_METHODS, SWITCH_NAMES } from '../../domain/rules.js';
import { TRANSACTION_STATUSES } from '../../domain/transactions.js';
import { builder } from '../builder.js';

export const PaymentMethodEnum = builder.enumType('PaymentMethod', { values: PAYMENT_METHODS });
export const TransactionStatusEnum = builder.enumType('TransactionStatus', { values: TRANSACTION_STATUSES });
export const ApiScopeEnum = builder.enumType('ApiScope', { values: API_SCOPES });
export const OrganizationStatusEnum = builder.enumType('OrganizationStatus', { values: ['active', 'inactive', 'blocked'] as const });
export const SwitchNameEnum = builder.enumType('SwitchName', { values: SWITCH_NAMES });
