/**
 * The one catalogue of errors. Operations throw `DomainError(code)`; the REST v2, REST v1 and
 * GraphQL renderers read status, public wording and GraphQL code from here and nowhere else.
 * Wordings are the spec's (clients key on status codes; the text may change).
 */

interface ErrorSpec {
  status: number;
  /** Public message; some take a detail (e.g. the method name or which field is invalid). */
  message: string | ((detail: string) => string);
  /** GraphQL `extensions.code`. */
  graphqlCode: string;
}

import { PAYMENT_METHODS } from './enums.js';
import { UNVERIFIED_MONTHLY_LIMIT } from './money.js';

const defineCatalogue = <T extends Record<string, ErrorSpec>>(catalogue: T) => catalogue;

export const ERROR_CATALOGUE = defineCatalogue({
  // Any endpoint
  invalid_api_key: { status: 401, message: 'Invalid API key', graphqlCode: 'UNAUTHENTICATED' },
  organization_inactive: { status: 401, message: 'Organization is not active', graphqlCode: 'ORGANIZATION_INACTIVE' },
  permission_denied: { status: 403, message: "You don't have permission to perform this action", graphqlCode: 'FORBIDDEN' },
  organization_blocked: {
    status: 403,
    message: 'Organization is blocked. Please contact the operator to restore access.',
    graphqlCode: 'ORGANIZATION_BLOCKED',
  },
  rate_limited: { status: 429, message: 'Rate limit exceeded. Try again later.', graphqlCode: 'RATE_LIMITED' },
  too_many_exports: { status: 429, message: 'Too many exports are running. Try again later.', graphqlCode: 'TOO_MANY_EXPORTS' },
  internal: { status: 500, message: 'Internal server error', graphqlCode: 'INTERNAL_SERVER_ERROR' },
  /**
   * The database link failed under the request (its session terminated, a failover, a connection
   * refused), not the request itself: nothing it did committed, or its key replays what did, so the
   * same request may simply be sent again (with its Idempotency-Key). 503 with Retry-After, worded
   * as the spec's retryable 503s ("please try again shortly"), never the 500 of a bug.
   */
  database_unavailable: {
    status: 503,
    message: 'The service is temporarily unavailable, please try again shortly',
    graphqlCode: 'SERVICE_UNAVAILABLE',
  },
  route_not_found: { status: 404, message: 'Not found', graphqlCode: 'NOT_FOUND' },
  http_method_not_allowed: { status: 405, message: 'Method not allowed', graphqlCode: 'METHOD_NOT_ALLOWED' },
  body_too_large: { status: 413, message: 'Request body too large', graphqlCode: 'BAD_USER_INPUT' },
  unsupported_media_type: {
    status: 415,
    message: 'Content-Type must be application/json',
    graphqlCode: 'BAD_USER_INPUT',
  },

  // Request shape
  invalid_request: { status: 400, message: 'Invalid request', graphqlCode: 'BAD_USER_INPUT' },
  invalid_request_body: {
    status: 400,
    message: (detail) => (detail ? `Invalid request body: ${detail}` : 'Invalid request body'),
    graphqlCode: 'BAD_USER_INPUT',
  },
  invalid_query: {
    status: 400,
    message: (detail) => `Invalid query parameter: ${detail}`,
    graphqlCode: 'BAD_USER_INPUT',
  },
  invalid_phone: { status: 400, message: 'Invalid phone number format', graphqlCode: 'BAD_USER_INPUT' },
  invalid_global_id: { status: 400, message: 'Invalid id: not the nodeId of any object', graphqlCode: 'BAD_USER_INPUT' },
  unsupported_payment_method: { status: 400, message: 'Unsupported payment method', graphqlCode: 'UNSUPPORTED_PAYMENT_METHOD' },

  // POST /transactions
  no_payment_method: { status: 400, message: 'Add minimum one payment method', graphqlCode: 'NO_PAYMENT_METHOD' },
  no_product: { status: 400, message: 'Add minimum one product', graphqlCode: 'NO_PRODUCT' },
  invalid_total: {
    status: 400,
    message: 'Total price must be greater than 10 and the quantity must be non-zero',
    graphqlCode: 'INVALID_TOTAL',
  },
  amount_out_of_limits: {
    status: 400,
    message: (detail) => `Amount is outside the allowed transaction limits: ${detail}`,
    graphqlCode: 'AMOUNT_OUT_OF_LIMITS',
  },
  invalid_url: { status: 400, message: 'Invalid url', graphqlCode: 'INVALID_URL' },
  encoded_url: {
    status: 400,
    message: 'URLs cannot contain encoded special characters. Send the URL without percent-encoding.',
    graphqlCode: 'ENCODED_URL',
  },
  escrow_not_enabled: {
    status: 403,
    message: 'Escrow is not enabled for this organization. Contact the operator to enable it.',
    graphqlCode: 'ESCROW_NOT_ENABLED',
  },
  method_not_allowed: {
    status: 403,
    message: (method) => `${method} payment is not allowed for this organization. Contact the operator to enable it.`,
    graphqlCode: 'PAYMENT_METHOD_NOT_ALLOWED',
  },
  monthly_limit_reached: {
    status: 403,
    message: `Monthly transaction limit of ${UNVERIFIED_MONTHLY_LIMIT} XOF reached for unverified organizations. Verify your organization to lift the limit.`,
    graphqlCode: 'MONTHLY_LIMIT_REACHED',
  },
  business_profile_incomplete: {
    status: 403,
    message:
      'Complete your business profile (business sector) before making new requests. Ask your operator to set it (gateway org update ID --sector SECTOR).',
    graphqlCode: 'BUSINESS_PROFILE_INCOMPLETE',
  },
  transactions_disabled: { status: 503, message: 'Transaction creation is temporarily disabled', graphqlCode: 'TRANSACTIONS_DISABLED' },
  merchant_account_unavailable: {
    status: 503,
    message: 'Unable to prepare merchant account, please try again shortly',
    graphqlCode: 'MERCHANT_ACCOUNT_UNAVAILABLE',
  },

  payment_method_unavailable: {
    status: 503,
    message: (method) => `${method} payments are temporarily unavailable. Offer another payment method or try again later.`,
    graphqlCode: 'PAYMENT_METHOD_UNAVAILABLE',
  },

  // GET / DELETE transactions
  transaction_not_found: { status: 404, message: 'Transaction not found', graphqlCode: 'TRANSACTION_NOT_FOUND' },
  cannot_delete_paid: { status: 400, message: 'Cannot delete a paid transaction', graphqlCode: 'CANNOT_DELETE_PAID' },
  already_deleted: { status: 400, message: 'Transaction is already deleted', graphqlCode: 'ALREADY_DELETED' },

  // Payment links (issue 30: a REST v2 extension)
  payment_link_not_found: { status: 404, message: 'Payment link not found', graphqlCode: 'PAYMENT_LINK_NOT_FOUND' },
  payment_link_invalid: {
    status: 400,
    message: (detail) => `Invalid payment link: ${detail}`,
    graphqlCode: 'BAD_USER_INPUT',
  },
  payment_link_gone: {
    status: 410,
    message: (state) => `This payment link takes no more payments: it is ${state}`,
    graphqlCode: 'PAYMENT_LINK_GONE',
  },
  payment_link_throttled: {
    status: 429,
    message: 'Too many orders through this payment link from this address. Try again later.',
    graphqlCode: 'RATE_LIMITED',
  },
  payment_link_in_use: {
    status: 409,
    message: 'This single-use payment link is being paid by another customer',
    graphqlCode: 'PAYMENT_LINK_IN_USE',
  },

  // Paying (checkout, sandbox pay)
  transaction_not_payable: {
    status: 400,
    message: (status) => `This transaction cannot be paid: it is ${status}`,
    graphqlCode: 'TRANSACTION_NOT_PAYABLE',
  },
  payment_in_progress: {
    status: 409,
    message: 'A payment of this transaction is already in progress. Wait for its outcome before trying again.',
    graphqlCode: 'PAYMENT_IN_PROGRESS',
  },
  method_not_offered: {
    status: 400,
    message: (method) => `${method} is not offered for this transaction`,
    graphqlCode: 'METHOD_NOT_OFFERED',
  },

  // GET /refund/{order_id}, escrow, balances
  cannot_refund: { status: 400, message: 'This Transaction cannot be refund', graphqlCode: 'CANNOT_REFUND' },
  insufficient_balance: { status: 400, message: 'Insufficient balance', graphqlCode: 'INSUFFICIENT_BALANCE' },
  refund_in_progress: {
    status: 409,
    message: 'A refund of this transaction is already in progress. Read the transaction before trying again.',
    graphqlCode: 'REFUND_IN_PROGRESS',
  },
  refund_failed: {
    status: 500,
    message: 'Failed to refund: the refund failed at the wallet provider level. Nothing was debited.',
    graphqlCode: 'REFUND_FAILED',
  },
  not_in_escrow: { status: 400, message: 'This transaction is not held in escrow', graphqlCode: 'NOT_IN_ESCROW' },

  // POST /payouts, GET payouts, the operator's review
  invalid_amount: {
    status: 400,
    message: (detail) => (detail ? `Invalid amount: ${detail}` : 'Invalid amount'),
    graphqlCode: 'INVALID_AMOUNT',
  },
  payout_not_enabled: {
    status: 403,
    message: 'Payout is not enabled for this organization. Contact the operator to enable it.',
    graphqlCode: 'PAYOUT_NOT_ENABLED',
  },
  payout_in_progress: { status: 409, message: 'A payout is already in progress. Please wait.', graphqlCode: 'PAYOUT_IN_PROGRESS' },
  // REST v1 only: a keyless cashout repeated after the SDKs' retry window (domain/blindRetries.ts gives the times).
  repeated_payout: {
    status: 409,
    message: 'Not sent: an identical payout to this phone number was received less than 5 minutes ago.',
    graphqlCode: 'REPEATED_PAYOUT',
  },
  payout_failed: {
    status: 500,
    // The detail is the provider's name as its payment method row gives it (payoutProviderName).
    message: (providerName) =>
      `Failed to withdraw: the withdrawal failed at the ${providerName} provider level. The amount and fees were returned to your balance.`,
    graphqlCode: 'PAYOUT_FAILED',
  },
  // Live updates (GraphQL subscriptions)
  too_many_subscriptions: {
    status: 429,
    message: 'Too many live subscriptions are open. Close one, or try again later.',
    graphqlCode: 'TOO_MANY_SUBSCRIPTIONS',
  },
  live_updates_unavailable: { status: 503, message: 'Live updates are temporarily unavailable. Try again later.', graphqlCode: 'LIVE_UPDATES_UNAVAILABLE' },
  payouts_disabled: { status: 503, message: 'Payout is temporarily disabled', graphqlCode: 'PAYOUTS_DISABLED' },
  payout_method_unavailable: {
    status: 503,
    message: (method) =>
      `The ${method} provider is unavailable: payouts with ${method} are temporarily disabled. Please use the other payment method (${PAYMENT_METHODS.filter((other) => other !== method).join(' or ')}) or try again later.`,
    graphqlCode: 'PAYOUT_METHOD_UNAVAILABLE',
  },
  payout_not_found: { status: 404, message: 'Payout not found', graphqlCode: 'PAYOUT_NOT_FOUND' },
  // Payout batches (an extension of this gateway: docs/payouts.md#batch-payouts)
  payout_batch_not_found: { status: 404, message: 'Payout batch not found', graphqlCode: 'PAYOUT_BATCH_NOT_FOUND' },
  payout_batch_not_draft: {
    status: 409,
    message: (status) => `This payout batch is not a draft any more: it is ${status}`,
    graphqlCode: 'PAYOUT_BATCH_NOT_DRAFT',
  },
  payout_batch_has_errors: {
    status: 400,
    message: (detail) => `This payout batch has refused lines: ${detail}`,
    graphqlCode: 'PAYOUT_BATCH_HAS_ERRORS',
  },
  payout_batch_finished: {
    status: 409,
    message: (status) => `This payout batch has ended: it is ${status}`,
    graphqlCode: 'PAYOUT_BATCH_FINISHED',
  },
  reconciliation_unavailable: {
    status: 409,
    message: (method) => `${method} uses the sandbox provider: there are no provider records to reconcile with`,
    graphqlCode: 'RECONCILIATION_UNAVAILABLE',
  },
  provider_records_unavailable: {
    status: 503,
    message: (method) => `The ${method} provider did not answer with its records. Try again later.`,
    graphqlCode: 'PROVIDER_RECORDS_UNAVAILABLE',
  },
  provider_call_not_open: {
    status: 409,
    message: 'This provider call is not open: it was settled already, or no such call exists',
    graphqlCode: 'PROVIDER_CALL_NOT_OPEN',
  },
  payout_not_awaiting_review: {
    status: 400,
    message: (state) => `This payout is not awaiting review: it is ${state}`,
    graphqlCode: 'PAYOUT_NOT_AWAITING_REVIEW',
  },

  // GET accounts
  invalid_account_id: { status: 400, message: 'Invalid account ID', graphqlCode: 'INVALID_ACCOUNT_ID' },
  account_not_found: { status: 404, message: 'Account not found', graphqlCode: 'ACCOUNT_NOT_FOUND' },

  // Idempotency-Key (an extension of this gateway)
  invalid_idempotency_key: {
    status: 400,
    message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
    graphqlCode: 'BAD_USER_INPUT',
  },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
    graphqlCode: 'IDEMPOTENCY_KEY_IN_USE',
  },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request',
    graphqlCode: 'IDEMPOTENCY_KEY_REUSED',
  },

  // Operator (admin) API
  operator_forbidden: { status: 403, message: 'This operator role cannot perform this action', graphqlCode: 'FORBIDDEN' },
  organization_not_found: { status: 404, message: 'Organization not found', graphqlCode: 'ORGANIZATION_NOT_FOUND' },
  api_key_not_found: { status: 404, message: 'API key not found', graphqlCode: 'API_KEY_NOT_FOUND' },
  operator_token_not_found: { status: 404, message: 'Operator token not found', graphqlCode: 'OPERATOR_TOKEN_NOT_FOUND' },
  too_many_operator_tokens: {
    status: 400,
    message: (max) => `At most ${max} operator tokens may be in use at once: revoke one first`,
    graphqlCode: 'TOO_MANY_OPERATOR_TOKENS',
  },
  invalid_input: { status: 400, message: (detail) => `Invalid input: ${detail}`, graphqlCode: 'BAD_USER_INPUT' },

  // Webhooks
  invalid_webhook_url: { status: 400, message: (detail) => `Invalid webhook URL: ${detail}`, graphqlCode: 'INVALID_WEBHOOK_URL' },
  private_webhook_url: {
    status: 400,
    message: 'Webhook URLs may not point at loopback, private or link-local addresses',
    graphqlCode: 'PRIVATE_WEBHOOK_URL',
  },
  too_many_webhooks: { status: 400, message: (max) => `An organization may have at most ${max} webhooks`, graphqlCode: 'TOO_MANY_WEBHOOKS' },
  webhook_not_found: { status: 404, message: 'Webhook not found', graphqlCode: 'WEBHOOK_NOT_FOUND' },
  webhook_delivery_not_found: { status: 404, message: 'Webhook delivery not found', graphqlCode: 'WEBHOOK_DELIVERY_NOT_FOUND' },

  // Merchant dashboard: sign-in, sessions, two-factor, team (src/domain/users). Sign-in refusals
  // never say whether the email exists.
  not_signed_in: { status: 401, message: 'Sign in to continue', graphqlCode: 'UNAUTHENTICATED' },
  invalid_credentials: { status: 401, message: 'Invalid email or password', graphqlCode: 'UNAUTHENTICATED' },
  sign_in_throttled: { status: 429, message: 'Too many sign-in attempts. Try again later.', graphqlCode: 'RATE_LIMITED' },
  invalid_second_factor: { status: 401, message: 'Invalid or already used two-factor code', graphqlCode: 'INVALID_SECOND_FACTOR' },
  second_factor_pending: { status: 401, message: 'Enter your two-factor code to finish signing in', graphqlCode: 'UNAUTHENTICATED' },
  two_factor_enrolment_required: {
    status: 403,
    message: 'Your organization requires two-factor sign-in: set it up to continue',
    graphqlCode: 'TWO_FACTOR_ENROLMENT_REQUIRED',
  },
  two_factor_already_enabled: { status: 409, message: 'Two-factor sign-in is already enabled', graphqlCode: 'TWO_FACTOR_ALREADY_ENABLED' },
  two_factor_not_enabled: { status: 409, message: 'Two-factor sign-in is not enabled', graphqlCode: 'TWO_FACTOR_NOT_ENABLED' },
  two_factor_enrolment_not_started: { status: 409, message: 'Start two-factor enrolment first', graphqlCode: 'TWO_FACTOR_ENROLMENT_NOT_STARTED' },
  two_factor_required_by_team: {
    status: 409,
    message: 'Your organization requires two-factor sign-in: it cannot be disabled',
    graphqlCode: 'TWO_FACTOR_REQUIRED_BY_TEAM',
  },
  invalid_password: { status: 400, message: 'Password must be 12 to 128 characters', graphqlCode: 'BAD_USER_INPUT' },
  invalid_email: { status: 400, message: 'Invalid email address', graphqlCode: 'BAD_USER_INPUT' },
  invitation_invalid: { status: 400, message: 'This invitation link is invalid, has expired or was already used', graphqlCode: 'INVITATION_INVALID' },
  member_exists: { status: 409, message: 'This email already belongs to a dashboard user', graphqlCode: 'MEMBER_EXISTS' },
  member_not_found: { status: 404, message: 'Team member not found', graphqlCode: 'MEMBER_NOT_FOUND' },
  last_owner: { status: 409, message: 'An organization must keep at least one owner', graphqlCode: 'LAST_OWNER' },
  team_full: { status: 409, message: (max) => `A team has at most ${max} members and pending invitations`, graphqlCode: 'TEAM_FULL' },
  csrf_refused: { status: 403, message: 'Missing or invalid X-CSRF-Token', graphqlCode: 'CSRF_REFUSED' },
  cross_origin_refused: { status: 403, message: 'Cross-origin request refused', graphqlCode: 'CSRF_REFUSED' },

  // GET /refund/{order_id} when the wallet provider did not answer in time: the amount IS debited
  // while the refund is confirmed, so refund_failed's "Nothing was debited" would be false. 500
  // because the spec's 500 row says "read the transaction before trying again", which is exactly
  // what the caller must do.
  refund_unconfirmed: {
    status: 500,
    message:
      'The refund was sent to the wallet provider, which has not confirmed it yet. The amount stays debited while it is confirmed: read the transaction before trying again (it becomes refunded, or the amount returns to the balance).',
    graphqlCode: 'REFUND_UNCONFIRMED',
  },
});

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly graphqlCode: string;
  /** True when an Idempotency-Key replayed this refusal instead of running the request again. */
  readonly replayed: boolean;

  constructor(code: ErrorCode, detail = '', options: { message?: string; replayed?: boolean } = {}) {
    const spec: ErrorSpec = ERROR_CATALOGUE[code];
    super(options.message ?? (typeof spec.message === 'function' ? spec.message(detail) : spec.message));
    this.name = 'DomainError';
    this.code = code;
    this.status = spec.status;
    this.graphqlCode = spec.graphqlCode;
    this.replayed = options.replayed ?? false;
  }
}

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_CATALOGUE, value);
