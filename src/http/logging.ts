/**
 * The gateway's log: pino, with nothing personal or secret in it.
 *
 * Request URLs carry query strings, and clients put things there: phone numbers (`customer_phone`,
 * `recipient_phone` — the spec's own recovery query for a payout —, `search`), and sometimes a
 * credential (`?api_key=`, `?token=`, or one of our keys under any name). Every URL that reaches a log line goes through `redactUrl`:
 * personal values are replaced by "[redacted]" (the parameter stays, so the log still says what
 * was asked), credential-like parameters are dropped whole, and any other value, parameter name or
 * path segment that looks like a phone number (9 digits or more, encoded or not) is redacted too. Error messages and stacks get the same treatment
 * (`redactText`), since some errors quote the URL they failed on. Headers are never logged by the
 * request serializer; if one ever is, Authorization, X-Api-Key and cookies are censored.
 */
import pino, { type Logger } from 'pino';

const REDACTED = '[redacted]';

/** Parameters whose value identifies a person: kept, value replaced. */
const PERSONAL_PARAMETER = /phone|msisdn|mobile|e-?mail|search|^q$|name|address|customer|recipient/i;
/** Parameters that may carry a credential: dropped entirely (not even the name's value length stays). */
const CREDENTIAL_PARAMETER = /key|token|secret|passw|pwd|auth|bearer|session|signature|^sig$|credential|jwt|cookie|csrf|otp|^code$/i;
/**
 * Our own secrets are recognisable by their prefixes (API keys and operator tokens: auth.ts;
 * webhook signing secrets: webhooks/secrets.ts): wherever one appears, it goes.
 */
const OUR_SECRET = /(?:gw_(?:sk|op)|whsec)_[A-Za-z0-9_-]+/g;
const hasOurSecret = (text: string): boolean => /gw_(?:sk|op)_|whsec_/.test(decoded(text));
/** A value with this many digits (spaces, dots, dashes, +, parentheses aside) may be a phone number. */
const PHONE_LIKE = /\d{9,}/;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

const looksLikePhone = (value: string): boolean => PHONE_LIKE.test(decoded(value).replace(/[\s.()+-]/g, ''));

/** One `name=value` of a query string: kept, with its value redacted, or null (dropped). */
function redactParameter(parameter: string): string | null {
  if (parameter === '') return parameter;
  const equals = parameter.indexOf('=');
  const rawName = equals === -1 ? parameter : parameter.slice(0, equals);
  const value = equals === -1 ? '' : parameter.slice(equals + 1);
  const name = decoded(rawName);
  if (CREDENTIAL_PARAMETER.test(name) || hasOurSecret(parameter)) return null;
  // A phone may be the parameter's name too (`?+221771234567`, `?771234567=1`).
  const shownName = looksLikePhone(rawName) ? REDACTED : rawName;
  if (equals === -1) return shownName;
  if (shownName === REDACTED || PERSONAL_PARAMETER.test(name) || looksLikePhone(value)) return `${shownName}=${REDACTED}`;
  return parameter;
}

/** Our ids (orders, payouts, refunds...) are UUIDs: their digits are never a phone. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One path segment fit for a log line: redacted when it holds a phone number (9 digits or more once
 * separators are set aside), written raw (`+221...`), percent-encoded (`%2B221%2077...`), or as a
 * bare local number (`771234567`); a UUID stays.
 */
function redactPathSegment(segment: string): string {
  if (UUID.test(segment)) return segment;
  let text = segment;
  // Decoded twice at most: a doubly encoded phone (`%252B221...`) is still a phone.
  for (let round = 0; round < 2; round++) {
    try {
      text = decodeURIComponent(text);
    } catch {
      break;
    }
  }
  return PHONE_LIKE.test(text.replace(/[\s.()+%-]/g, '')) ? REDACTED : segment;
}

/**
 * A request URL (path + query, or absolute) fit for a log line: the path as it is, the query with
 * personal values redacted and credential parameters removed, the fragment dropped.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  const question = withoutFragment.indexOf('?');
  const path = (question === -1 ? withoutFragment : withoutFragment.slice(0, question))
    .replace(OUR_SECRET, REDACTED)
    .split('/')
    .map(redactPathSegment)
    .join('/');
  if (question === -1) return path;
  const query = withoutFragment
    .slice(question + 1)
    .split('&')
    .map(redactParameter)
    .filter((parameter): parameter is string => parameter !== null)
    .join('&');
  return `${path}${query ? `?${query}` : ''}`;
}

/** Query strings inside free text (an error message quoting a URL). */
const QUERY_IN_TEXT = /\?[^\s"'<>`]*/g;

/**
 * A phone number written anywhere in free text (a provider's or PostgreSQL's message quoting a
 * row): 9 or more digits, with the separators people write between them.
 */
const PHONE_IN_TEXT = /\+?\d(?:[\s.-]?\d){8,}/g;

/** Free text with every query string in it redacted as `redactUrl` does, and phone numbers hidden. */
export function redactText(text: string): string {
  return text
    .replace(QUERY_IN_TEXT, (query) => redactUrl(query))
    .replace(OUR_SECRET, REDACTED)
    .replace(PHONE_IN_TEXT, REDACTED);
}

interface RequestLike {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
  headers?: Record<string, unknown>;
}

/**
 * Fastify's request serializer with the URL redacted. It takes precedence over fastify's own (a
 * logger instance's serializers win over the framework's), so the "incoming request" and
 * "request completed" lines and every `req` logged go through it.
 */
export function serializeRequest(req: RequestLike): Record<string, unknown> {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * pino's error serializer, with every string in the error redacted: its message and stack, and
 * whatever else a driver attached (PostgreSQL's `detail` quotes the failing row; Prisma's `meta`).
 */
export function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  return redactStrings(serialized, 0);
}

/** Errors nest (cause, meta); deeper than this is cut rather than walked. */
const MAX_ERROR_DEPTH = 6;

function redactStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (!value || typeof value !== 'object') return value;
  if (depth >= MAX_ERROR_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, depth + 1));
  const record = value as Record<string, unknown>;
  for (const [field, item] of Object.entries(record)) record[field] = redactStrings(item, depth + 1);
  return record;
}

/** Headers and fields that hold secrets, wherever a log line might carry them. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'res.headers["set-cookie"]',
  'adminToken',
  'token',
  'secret',
  'apiKey',
  'password',
];

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    serializers: { req: serializeRequest, err: serializeError },
  });
}
