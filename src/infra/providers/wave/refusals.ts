/**
 * Wave's refusals as the merchant and the operator should read them. Wave answers a refused
 * request with `{code, message}` (docs.wave.com/business "Errors"; docs.wave.com/payout "Error
 * codes") and a failed payout with `payout_error: {error_code, error_message}`. Codes we know get
 * a sentence of ours; any other keeps Wave's own code and message (bounded, without numbers that
 * could be a phone). A cause only the operator can fix (the business wallet is empty, the key is
 * revoked or lacks a permission) says so, so that the merchant knows it is not their input.
 */
import { withoutPhoneNumbers } from '../withoutPhoneNumbers.js';

const OPERATOR = 'the gateway operator must act';

/** Wave's code -> our sentence. */
const MESSAGES: Record<string, string> = {
  // Authentication (docs.wave.com/payout "Error codes", 401 / 403)
  'missing-auth-header': `the gateway's Wave API key was not accepted (${OPERATOR})`,
  'invalid-auth': `the gateway's Wave API key was not accepted (${OPERATOR})`,
  'api-key-not-provided': `the gateway's Wave API key was not accepted (${OPERATOR})`,
  'no-matching-api-key': `the gateway's Wave API key is unknown to Wave (${OPERATOR})`,
  'api-key-revoked': `the gateway's Wave API key was revoked (${OPERATOR})`,
  'missing-permission': `the gateway's Wave API key lacks the permission for this operation (${OPERATOR})`,
  'invalid-wallet': `the gateway's Wave business wallet cannot be used (${OPERATOR})`,
  // Payouts
  'insufficient-funds': `the gateway's Wave business wallet does not hold enough funds for this payout (${OPERATOR}; the recipient is not at fault)`,
  'recipient-limit-exceeded': 'the recipient’s Wave wallet cannot receive this amount (its limit is reached)',
  'payout-limit-exceeded': `the gateway's Wave payout limit is reached (${OPERATOR})`,
  'blocked-account': 'the recipient’s Wave account is blocked',
  'recipient-not-found': 'there is no Wave account for this mobile number',
  'mobile-number-not-supported': 'this mobile number cannot receive Wave payouts (invalid, or of another country)',
  'invalid-mobile-number': 'this mobile number is not a valid Wave mobile number (invalid, or of another country)',
  'name-mismatch': 'the recipient’s name does not match the Wave account',
  'request-validation-error': 'Wave refused the request as invalid',
  // Checkout refunds
  'checkout-refund-failed': 'Wave could not refund this payment (it is not a completed payment)',
};

/** A clear reason from Wave's code and message; '' code: only the HTTP status is known. */
export function waveRefusalReason(code: string | undefined, message: string | undefined, httpStatus: number): string {
  const known = code ? MESSAGES[code] : undefined;
  if (known) return `wave: ${known}`;
  const words = [code, message === undefined ? undefined : withoutPhoneNumbers(message).slice(0, 200)].filter(Boolean).join(': ');
  return `wave refused the request (HTTP ${httpStatus}${words ? `, ${words}` : ''})`;
}
