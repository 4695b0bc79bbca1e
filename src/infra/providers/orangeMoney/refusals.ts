/**
 * Orange Money's refusals as the merchant and the operator should read them. Sonatel's API answers
 * a refused request with a problem+json body carrying a business `code` and a `detail`
 * (developer.orange-sonatel.com, "Orange Money API" v1.1.0); code 2000 is "customer account does
 * not exist" (issue 28, from Sonatel's error list). Codes we know get a sentence of ours; any other
 * keeps Orange's code and detail, without numbers that could be a wallet.
 */
import { withoutPhoneNumbers } from '../withoutPhoneNumbers.js';

const OPERATOR = 'the gateway operator must act';

const MESSAGES: Record<string, string> = {
  '2000': 'there is no Orange Money account for this mobile number',
  '4003': `the gateway's Orange Money PIN encryption key was rotated; the next try uses the new one (${OPERATOR} if it persists)`,
  '4030': `the gateway's Orange Money distributor wallet is not accepted for this application (${OPERATOR})`,
  '4031': `the gateway's Orange Money distributor PIN was refused (${OPERATOR})`,
};

export function orangeRefusalReason(httpStatus: number, body: unknown): string {
  const problem = (body ?? {}) as { code?: unknown; detail?: unknown };
  const code = typeof problem.code === 'string' || typeof problem.code === 'number' ? String(problem.code) : undefined;
  const known = code ? MESSAGES[code] : undefined;
  if (known) return `orange money: ${known}`;
  if (httpStatus === 401 || httpStatus === 403) return `orange money refused the gateway's credentials (HTTP ${httpStatus}; ${OPERATOR})`;
  const detail = typeof problem.detail === 'string' ? withoutPhoneNumbers(problem.detail).slice(0, 200) : '';
  return `orange money refused the request (HTTP ${httpStatus}${code ? `, code ${code}` : ''}${detail ? `: ${detail}` : ''})`;
}
