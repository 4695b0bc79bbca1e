/**
 * The one HTTP transport every wallet provider connector sends through (docs/providers.md "One
 * transport"). A connector is a set of per-flow request builders and answer readers (the shape
 * juspay/hyperswitch gives its connectors); this file owns what is common to all of them:
 *
 *   - a deadline (the connector's own bound) AND the caller's AbortSignal (the provider flow's);
 *   - no redirect is followed (a provider API never redirects; a redirect is a misconfigured URL or
 *     someone in the middle, and following it would send our bearer key elsewhere);
 *   - the answer is read as a stream, up to a byte bound, whether or not it announces its length
 *     (a chunked answer is cut off at the bound, never buffered whole);
 *   - ONE classification of every outcome:
 *       `not_sent`  the request certainly never reached the provider (connection refused, unknown
 *                   host, no route) or the provider refused to serve it without acting (429, still
 *                   limited after its Retry-After within the deadline): safe to send again;
 *       `refused`   the provider read it and said no (a 4xx): nothing was done, with its reason;
 *                   401/403 are flagged `credentialsRefused` (a revoked key, an API not granted);
 *       `accepted`  a 2xx with a readable body;
 *       `unknown`   anything else (timeout, reset, 408, 5xx, a redirect, an unreadable or oversized
 *                   answer): the provider may have acted. Never "failed".
 *   - ONE log event per call: provider, operation, method, path without its query, status,
 *     outcome and duration. Never a header (the key), a body or a query string (phone numbers).
 *   - a 429 is sent again after its Retry-After when that still fits in the deadline (Wave: "wait
 *     a few seconds and retry"); past it the outcome is `not_sent` with the wait the provider asked.
 *
 * Every outcome also goes to the provider's health (providerHealth.ts): credentials refused or a
 * provider unreachable for a sustained period is what an operator must be told.
 */
import type { Logger } from '../../domain/ports.js';
import { ProviderHealthTracker } from './providerHealth.js';

export interface ProviderHttpRequest {
  /** `wave`, `orange_money`, ...: logs and health. */
  provider: string;
  /** What the call is for (`payout`, `payout.search`, ...): logs only. */
  operation: string;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The connector's own bound of one call (ms); the caller's signal may cut it shorter. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Most bytes of the answer read. */
  maxBytes: number;
}

export type ProviderExchange =
  | { outcome: 'accepted'; status: number; body: unknown }
  | { outcome: 'refused'; status: number; body: unknown; credentialsRefused: boolean }
  | { outcome: 'not_sent'; reason: string; status?: number; retryAfterMs?: number }
  | { outcome: 'unknown'; reason: string; status?: number; body?: unknown };

export interface TransportOptions {
  log?: Logger;
  /** The clock of Retry-After waits (tests shorten them). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Longest Retry-After honoured inside one call (ms); a longer one ends the call `not_sent`. */
  maxRetryAfterMs?: number;
  now?: () => number;
}

/** Connection failures that mean the request never left this host for the provider. */
const NOT_REACHED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Wave asks for "a few seconds": more than this inside a merchant's request is the background's job. */
const DEFAULT_MAX_RETRY_AFTER_MS = 10_000;
/** Tries of one call under 429 before it is `not_sent` (each after the Retry-After asked). */
const RATE_LIMIT_TRIES = 3;

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return '?';
  }
};

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Retry-After in ms: seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMsOf(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d{1,6}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function createProviderTransport(options: TransportOptions = {}) {
  const sleep = options.sleep ?? defaultSleep;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const now = options.now ?? Date.now;
  const health = new ProviderHealthTracker(now);

  const send = async (request: ProviderHttpRequest): Promise<ProviderExchange> => {
    const started = Date.now();
    const deadline = AbortSignal.any([AbortSignal.timeout(request.timeoutMs), ...(request.signal ? [request.signal] : [])]);
    let exchange: ProviderExchange;
    for (let attempt = 1; ; attempt += 1) {
      exchange = await sendOnce(request, deadline);
      if (exchange.outcome !== 'not_sent' || exchange.status !== 429) break;
      const wait = exchange.retryAfterMs ?? 1000;
      const left = request.timeoutMs - (Date.now() - started);
      // Only while the wait still leaves the call time to be answered within the deadline.
      if (attempt >= RATE_LIMIT_TRIES || wait > maxRetryAfterMs || wait >= left - 1000 || deadline.aborted) break;
      await sleep(wait, deadline);
      if (deadline.aborted) break;
    }
    const event = {
      provider: request.provider,
      operation: request.operation,
      method: request.method,
      path: pathOf(request.url),
      outcome: exchange.outcome,
      status: 'status' in exchange ? exchange.status : undefined,
      ms: Date.now() - started,
    };
    if (exchange.outcome === 'accepted' || exchange.outcome === 'refused') options.log?.info(event, 'provider call');
    else options.log?.warn({ ...event, reason: exchange.reason }, 'provider call without a definite answer');
    health.record(exchange);
    return exchange;
  };

  return { send, health };
}

export type ProviderTransport = ReturnType<typeof createProviderTransport>;

async function sendOnce(request: ProviderHttpRequest, signal: AbortSignal): Promise<ProviderExchange> {
  let response: Response;
  try {
    response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body, signal, redirect: 'manual' });
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (typeof code === 'string' && NOT_REACHED_CODES.has(code)) return { outcome: 'not_sent', reason: `the provider could not be reached (${code})` };
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { outcome: 'unknown', reason: 'no answer in time' };
    return { outcome: 'unknown', reason: 'the connection failed' };
  }
  const status = response.status;
  if (status >= 300 && status < 400) {
    await response.body?.cancel().catch(() => undefined);
    return { outcome: 'unknown', reason: `the provider answered a redirect (${status}), not followed`, status };
  }
  let text: string;
  try {
    text = await readBounded(response, request.maxBytes);
  } catch (error) {
    return { outcome: 'unknown', reason: (error as Error).message, status };
  }
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (status === 429)
    return { outcome: 'not_sent', reason: 'the provider is rate limiting (429)', status, retryAfterMs: retryAfterMsOf(response.headers.get('retry-after')) };
  if (status === 408 || status >= 500) return { outcome: 'unknown', reason: `the provider answered ${status}`, status, body };
  if (status >= 400) return { outcome: 'refused', status, body, credentialsRefused: status === 401 || status === 403 };
  if (status >= 200 && status < 300) {
    if (text !== '' && body === undefined) return { outcome: 'unknown', reason: 'the provider answered a body that is not JSON', status };
    return { outcome: 'accepted', status, body };
  }
  return { outcome: 'unknown', reason: `the provider answered ${status}`, status };
}

/** The body, streamed up to `maxBytes` (with or without a content-length); over it, or cut off, throws. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const announced = Number(response.headers.get('content-length') ?? 0);
  if (announced > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw new Error(`the provider answered ${announced} bytes, more than ${maxBytes}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) {
        await response.body.cancel().catch(() => undefined);
        throw new RangeError(`the provider answered more than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof RangeError) throw error;
    throw new Error('the answer was cut off');
  }
  return Buffer.concat(chunks).toString('utf8');
}
