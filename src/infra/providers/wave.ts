/**
 * The Wave provider: an HTTP client of Wave's Business API (docs.wave.com), behind the one
 * PaymentProvider port. Enabled by WAVE_API_KEY (docs/providers.md).
 *
 *   collect   -> POST /v1/checkout/sessions (Idempotency-Key = our attempt id, client_reference = it
 *                too): answers `pending` with the session's wave_launch_url; the checkout sends the
 *                customer there. Wave sends the customer back to the gateway's own return pages
 *                (returnUrls), which settle through the provider flow and redirect to the merchant.
 *   status    -> GET /v1/checkout/sessions/search?client_reference=<attempt id>
 *   refund    -> POST /v1/checkout/sessions/<session id>/refund: idempotent on the session (docs.wave.com/checkout:
 *                a session refunded again refunds nothing and answers 200); our refund reference goes along
 *                as Idempotency-Key, which the page does not document for this call and nothing relies on
 *   payout    -> POST /v1/payout (idempotency-key = our payout id, client_reference = it too);
 *                status: GET /v1/payouts/search?client_reference=<payout id>
 *   webhooks  -> Wave-Signature (t=..,v1=..: HMAC-SHA256 of timestamp + raw body) or the shared-secret
 *                strategy (Authorization: Bearer <secret>), with WAVE_WEBHOOK_SECRET
 *   records   -> GET /v1/transactions?date=YYYY-MM-DD (paged), read by records/wave.ts (reconciliation,
 *                and a refund's status: its `api_checkout_refund` line)
 *
 * Errors: a network failure, a timeout and 5xx are "unknown" (thrown: the flow leaves the call open
 * and asks later; a payout or a refund Wave does not know then is sent again, safely: `resendsSafely`);
 * a 429 past the request's deadline leaves a payout or refund pending; a 4xx refusal of a request is
 * a definite "failed" (Wave did nothing). The API key goes only into the Authorization header: it is never
 * logged nor put into an error message, and Wave's answers are not logged whole (they carry phones).
 *
 * Where Wave's pages are silent we chose the safe side (docs/providers.md lists each choice):
 * a refund's status is read from the transaction history (no refund lookup exists), and a refund
 * not found there stays open (never "failed"); an expired session is "not confirmed".
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  NotificationRejected,
  ProviderUnavailable,
  ProviderUnreachable,
  type ClosesCollections,
  type ReportsHealth,
  type ResendsSafely,
  type InboundNotification,
  type PaymentProvider,
  type ProviderAnswer,
  type ProviderNotification,
  type ProviderRecord,
  type ProviderRequest,
  type ProviderStatusAnswer,
  type Logger,
} from '../../domain/ports.js';
import { findCheckoutRefund, historyPageOf, readWaveRecords, type ReadWaveHistoryPage } from './records/wave.js';
import { createProviderTransport, type ProviderTransport } from './transport.js';
import { isHttpsUrl, waveXofMobileProblem } from './wave/addresses.js';
import { waveRefusalReason } from './wave/refusals.js';
import { withoutPhoneNumbers } from './withoutPhoneNumbers.js';

export interface WaveOptions {
  apiKey: string;
  /** WAVE_API_URL, default https://api.wave.com. */
  apiUrl?: string;
  /** WAVE_WEBHOOK_SECRET: without it every webhook is refused (nothing unsigned settles money). */
  webhookSecret?: string;
  /** Longest one HTTP call to Wave may take (the flow's own deadline may cut it shorter). */
  timeoutMs?: number;
  /** How far a signed webhook's timestamp may be from now (replays of old ones are refused). */
  webhookToleranceMs?: number;
  now?: () => Date;
  /** One log event per call goes here (transport.ts): never the key, a body or a phone number. */
  log?: Logger;
  /** The transport (tests give one with short Retry-After waits). */
  transport?: ProviderTransport;
}

export const WAVE_DEFAULT_URL = 'https://api.wave.com';
/** Wave answers in well under a second; 20 s leaves room for a slow network, below the flow's 30 s. */
const DEFAULT_TIMEOUT_MS = 20_000;
/** Wave's own recommendation for webhook timestamps is minutes; 5 minutes tolerates clock skew. */
const DEFAULT_WEBHOOK_TOLERANCE_MS = 5 * 60_000;
/** Days of history a refund's status is looked up in (a refund is booked the day it is sent). */
const REFUND_LOOKBACK_DAYS = 3;
/** A call that never reached Wave is a definite failure of its kind: nothing was done. */
async function unlessUnreachable(send: () => Promise<ProviderAnswer>): Promise<ProviderAnswer> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ProviderUnreachable) return { status: 'failed', providerReference: '', reason: error.message, unavailable: true };
    throw error;
  }
}
/** Most bytes of a Wave answer read (a search result or a page of history is far smaller). */
const MAX_ANSWER_BYTES = 1024 * 1024;

interface WaveSession {
  id: string;
  amount: string;
  checkout_status: 'open' | 'complete' | 'expired';
  payment_status: 'processing' | 'cancelled' | 'succeeded';
  client_reference: string | null;
  wave_launch_url: string;
  last_payment_error?: { code?: string; message?: string } | null;
  transaction_id?: string | null;
}

interface WavePayout {
  id: string;
  status: 'processing' | 'succeeded' | 'failed' | 'reversed';
  receive_amount: string;
  client_reference: string | null;
  payout_error?: { error_code?: string; error_message?: string } | null;
}

/**
 * A Wave answer's JSON body before its kind is known: an error ({code, message}), a search
 * ({result}), a page of history ({items, page_info}), or the resource itself (cast by the caller).
 */
interface WaveBody {
  code?: unknown;
  message?: unknown;
  result?: unknown;
  items?: unknown;
  page_info?: { has_next_page?: unknown; end_cursor?: unknown };
}

interface WaveAnswer {
  status: number;
  /** undefined: an empty or non-JSON body. */
  body: WaveBody | undefined;
}

/** A refusal of the request (a 4xx): Wave did nothing; the reason as the merchant should read it. */
const refusal = (answer: WaveAnswer): ProviderAnswer => ({
  status: 'failed',
  providerReference: '',
  reason: waveRefusalReason(
    typeof answer.body?.code === 'string' ? answer.body.code : undefined,
    typeof answer.body?.message === 'string' ? answer.body.message : undefined,
    answer.status,
  ),
});

/**
 * A call Wave de-duplicates by its idempotency key, refused for now by a rate limit that outlasted
 * the request's deadline: nothing was done, and it is sent again with the same key by the
 * background resumption (providerFlow.ts), so it stays pending rather than failing.
 */
async function pendingWhenRateLimited(send: () => Promise<ProviderAnswer>): Promise<ProviderAnswer> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ProviderUnreachable && error.httpStatus === 429)
      return { status: 'pending', providerReference: '', reason: 'wave is rate limiting (429): the call is sent again with the same key in the background' };
    throw error;
  }
}

/** Wave's error body: {code, message}. */
const errorOf = (answer: WaveAnswer): string => {
  const code = typeof answer.body?.code === 'string' ? answer.body.code : `http-${answer.status}`;
  // Wave's words may echo the mobile: masked, since this text reaches errors and log lines.
  const message = typeof answer.body?.message === 'string' ? `: ${withoutPhoneNumbers(answer.body.message).slice(0, 200)}` : '';
  return `wave ${code}${message}`;
};

export function createWaveProvider(options: WaveOptions): PaymentProvider & ClosesCollections & ResendsSafely & ReportsHealth {
  const apiUrl = (options.apiUrl || WAVE_DEFAULT_URL).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? (() => new Date());

  const transport = options.transport ?? createProviderTransport({ log: options.log });

  /**
   * One HTTP call through the provider transport (transport.ts). Answered (2xx, or a 4xx refusal)
   * returns Wave's answer; not sent throws ProviderUnreachable (nothing reached Wave, or it was
   * rate limited past its Retry-After); unknown throws ProviderUnavailable (Wave may have acted).
   */
  const call = async (
    method: 'GET' | 'POST',
    path: string,
    init: { body?: unknown; idempotencyKey?: string; idempotencyHeader?: string; signal?: AbortSignal; operation?: string } = {},
  ): Promise<WaveAnswer> => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.idempotencyKey) headers[init.idempotencyHeader ?? 'Idempotency-Key'] = init.idempotencyKey;
    const exchange = await transport.send({
      provider: 'wave',
      operation: init.operation ?? `${method} ${path.split('?')[0]}`,
      method,
      url: `${apiUrl}${path}`,
      headers,
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      timeoutMs,
      ...(init.signal && { signal: init.signal }),
      maxBytes: MAX_ANSWER_BYTES,
    });
    if (exchange.outcome === 'accepted' || exchange.outcome === 'refused') return { status: exchange.status, body: exchange.body as WaveBody | undefined };
    const answer = { status: exchange.status ?? 0, body: exchange.outcome === 'unknown' ? (exchange.body as WaveBody | undefined) : undefined };
    const what = `wave ${method} ${path.split('?')[0]}: ${exchange.reason}${answer.body ? ` (${errorOf(answer)})` : ''}`;
    if (exchange.outcome === 'not_sent') throw new ProviderUnreachable(what, exchange.status, exchange.retryAfterMs);
    throw new ProviderUnavailable(what, exchange.status);
  };

  const ok = (answer: WaveAnswer) => answer.status >= 200 && answer.status < 300;
  /** A 409 idempotency-mismatch: something was sent before under this key; what became of it is asked, not assumed. */
  const unknownAfterConflict = (answer: WaveAnswer) => answer.status === 409 && answer.body?.code === 'idempotency-mismatch';

  const sessionFor = async (reference: string, signal?: AbortSignal): Promise<WaveSession | null> => {
    const answer = await call('GET', `/v1/checkout/sessions/search?client_reference=${encodeURIComponent(reference)}`, { signal });
    if (!ok(answer)) throw new ProviderUnavailable(errorOf(answer), answer.status);
    const sessions = (answer.body?.result ?? []) as WaveSession[];
    // One session per attempt (created under its idempotency key); a completed one wins if ever two.
    return sessions.find((session) => session.checkout_status === 'complete') ?? sessions[0] ?? null;
  };

  const payoutFor = async (reference: string, signal?: AbortSignal): Promise<WavePayout | null> => {
    const answer = await call('GET', `/v1/payouts/search?client_reference=${encodeURIComponent(reference)}`, { signal });
    if (!ok(answer)) throw new ProviderUnavailable(errorOf(answer), answer.status);
    const payouts = (answer.body?.result ?? []) as WavePayout[];
    return payouts.find((payout) => payout.status !== 'failed') ?? payouts[0] ?? null;
  };

  const collect = async (request: ProviderRequest): Promise<ProviderAnswer> => {
    if (!request.returnUrls) throw new Error('a Wave collection needs the gateway return pages (returnUrls)');
    // docs.wave.com/checkout: Wave sends the customer back to https addresses only (wave/addresses.ts).
    if (!isHttpsUrl(request.returnUrls.success) || !isHttpsUrl(request.returnUrls.error))
      return {
        status: 'failed',
        providerReference: '',
        unavailable: true,
        reason: 'wave sends customers back to https addresses only: CHECKOUT_PUBLIC_URL must be https (nothing was sent)',
      };
    const answer = await call('POST', '/v1/checkout/sessions', {
      idempotencyKey: request.reference,
      signal: request.signal,
      body: {
        amount: String(request.amount),
        currency: 'XOF',
        success_url: request.returnUrls.success,
        error_url: request.returnUrls.error,
        client_reference: request.reference,
      },
    });
    if (ok(answer)) {
      const session = answer.body as WaveSession;
      return { status: 'pending', providerReference: session.id, redirectUrl: session.wave_launch_url, reason: 'the customer pays on Wave' };
    }
    if (unknownAfterConflict(answer)) throw new ProviderUnavailable(errorOf(answer), answer.status);
    return refusal(answer);
  };

  const collectStatus = async (reference: string): Promise<ProviderStatusAnswer> => {
    const session = await sessionFor(reference);
    if (!session) return { status: 'not_found', providerReference: '', reason: 'wave has no checkout session for this reference' };
    return sessionStatus(session);
  };

  /** Expires the open session (Wave: POST .../expire); a session paid or expired meanwhile answers what it is. */
  const cancelCollection = async (reference: string): Promise<ProviderStatusAnswer> => {
    const session = await sessionFor(reference);
    if (!session) return { status: 'processing', providerReference: '', reason: 'wave has no checkout session for this reference yet' };
    if (session.checkout_status === 'open') {
      const answer = await call('POST', `/v1/checkout/sessions/${encodeURIComponent(session.id)}/expire`);
      // 409: no longer open (paid or expired meanwhile): what it is now is asked below.
      if (!ok(answer) && answer.status !== 409) return { status: 'processing', providerReference: session.id, reason: errorOf(answer) };
    }
    const now = await sessionFor(reference);
    return now ? sessionStatus(now) : { status: 'processing', providerReference: session.id };
  };

  const refund = async (request: ProviderRequest): Promise<ProviderAnswer> => {
    if (!request.paymentReference) return { status: 'failed', providerReference: '', reason: 'no Wave checkout session is recorded for this payment' };
    const answer = await call('POST', `/v1/checkout/sessions/${encodeURIComponent(request.paymentReference)}/refund`, {
      idempotencyKey: request.reference,
      signal: request.signal,
    });
    if (ok(answer)) return { status: 'succeeded', providerReference: request.paymentReference };
    if (unknownAfterConflict(answer)) throw new ProviderUnavailable(errorOf(answer), answer.status);
    return refusal(answer);
  };

  /**
   * Wave has no refund lookup: the refund is looked for in the transaction history of the last few
   * days, by the refunded session's client_reference. Not found stays open (never failed).
   */
  const refundStatus = async (_reference: string, _method?: unknown, paymentReference?: string): Promise<ProviderStatusAnswer> => {
    if (!paymentReference) return { status: 'not_found', providerReference: '', reason: 'no Wave checkout session is recorded for this payment' };
    const answer = await call('GET', `/v1/checkout/sessions/${encodeURIComponent(paymentReference)}`);
    if (answer.status === 404) return { status: 'not_found', providerReference: '', reason: 'wave has no such checkout session' };
    if (!ok(answer)) throw new ProviderUnavailable(errorOf(answer), answer.status);
    const session = answer.body as WaveSession;
    if (session.checkout_status !== 'complete' || session.payment_status !== 'succeeded')
      return { status: 'failed', providerReference: '', reason: 'the session was never paid: nothing to refund' };
    // A checkout refund is booked as `api_checkout_refund` (records/wave.ts).
    const found = await findCheckoutRefund(
      readHistoryPage,
      { id: session.id, clientReference: session.client_reference },
      { today: now(), days: REFUND_LOOKBACK_DAYS },
    );
    if (found) return { status: 'succeeded', providerReference: paymentReference };
    return { status: 'not_found', providerReference: '', reason: 'no refund of this session in the last days of Wave history' };
  };

  const payout = async (request: ProviderRequest): Promise<ProviderAnswer> => {
    // docs.wave.com/payout: `mobile` in E.164, a wallet Wave can pay in XOF (wave/addresses.ts).
    const mobileProblem = waveXofMobileProblem(request.phone);
    if (mobileProblem) return { status: 'failed', providerReference: '', reason: `wave: ${mobileProblem}; nothing was sent` };
    const answer = await call('POST', '/v1/payout', {
      idempotencyKey: request.reference,
      idempotencyHeader: 'idempotency-key',
      signal: request.signal,
      body: {
        currency: 'XOF',
        receive_amount: String(request.amount),
        mobile: request.phone,
        client_reference: request.reference,
        ...(request.recipientName && { name: request.recipientName.slice(0, 100) }),
      },
    });
    if (ok(answer)) return payoutAnswer(answer.body as WavePayout);
    if (unknownAfterConflict(answer)) throw new ProviderUnavailable(errorOf(answer), answer.status);
    return refusal(answer);
  };

  const payoutStatus = async (reference: string): Promise<ProviderStatusAnswer> => {
    const found = await payoutFor(reference);
    if (!found) return { status: 'not_found', providerReference: '', reason: 'wave has no payout for this reference' };
    const answer = payoutAnswer(found);
    return answer.status === 'pending' ? { ...answer, status: 'processing' } : answer;
  };

  // -------------------------------------------------------------------------------------------
  // Wave's books (reconciliation, the lookup of a refund): records/wave.ts reads the history; only
  // the HTTP call of one page is the connector's.

  const readHistoryPage: ReadWaveHistoryPage = async ({ date, after }, signal) => {
    const query = new URLSearchParams({ date, ...(after !== undefined && { after }) });
    const answer = await call('GET', `/v1/transactions?${query}`, { signal });
    if (!ok(answer)) throw new ProviderUnavailable(errorOf(answer), answer.status);
    return historyPageOf(answer.body);
  };

  const listRecords = (range: { from: Date; to: Date; signal?: AbortSignal }): Promise<ProviderRecord[]> => readWaveRecords(readHistoryPage, range);

  const parseNotification = (input: InboundNotification): ProviderNotification[] => {
    verifyWebhook(input, options.webhookSecret, now(), options.webhookToleranceMs ?? DEFAULT_WEBHOOK_TOLERANCE_MS);
    let event: { id?: unknown; type?: unknown; data?: unknown };
    try {
      event = JSON.parse(input.rawBody.toString('utf8'));
    } catch {
      throw new NotificationRejected('the webhook body is not JSON', 400);
    }
    if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.data !== 'object' || event.data === null)
      throw new NotificationRejected('the webhook is not a Wave event', 400);
    if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.payment_failed') return [];
    const session = event.data as WaveSession;
    if (typeof session.id !== 'string' || typeof session.client_reference !== 'string') return [];
    const status = sessionStatus(session);
    return [
      {
        kind: 'payment',
        reference: session.client_reference,
        status: status.status === 'not_found' ? 'processing' : status.status,
        providerReference: session.id,
        eventId: event.id,
        ...(status.reason && { reason: status.reason }),
        ...(/^[0-9]{1,15}$/.test(session.amount ?? '') && { amount: BigInt(session.amount) }),
      },
    ];
  };

  return {
    collect: (request) => unlessUnreachable(() => collect(request)),
    collectStatus,
    refund: (request) => unlessUnreachable(() => pendingWhenRateLimited(() => refund(request))),
    refundStatus,
    payout: (request) => unlessUnreachable(() => pendingWhenRateLimited(() => payout(request))),
    payoutStatus,
    cancelCollection,
    parseNotification,
    listRecords,
    // docs.wave.com/payout: several requests with the same idempotency key never send money more
    // than once. docs.wave.com/checkout: a checkout refund is idempotent on its session (refunding
    // it again refunds nothing), so re-sending the refund of one session is safe whatever its key.
    resendsSafely: (kind) => kind === 'payout' || kind === 'refund',
    health: () => transport.health.state(),
  };
}

/** A session as our status: paid; open (the customer may still pay, even after a failed try); expired = never confirmed. */
function sessionStatus(session: WaveSession): ProviderStatusAnswer {
  if (session.checkout_status === 'complete' && session.payment_status === 'succeeded') return { status: 'succeeded', providerReference: session.id };
  if (session.checkout_status === 'expired')
    return { status: 'pending', providerReference: session.id, reason: 'the Wave checkout session expired without payment' };
  const lastError = session.last_payment_error?.message;
  return { status: 'processing', providerReference: session.id, ...(lastError && { reason: `wave: ${lastError.slice(0, 200)}` }) };
}

function payoutAnswer(payout: WavePayout): ProviderAnswer {
  if (payout.status === 'succeeded') return { status: 'succeeded', providerReference: payout.id };
  if (payout.status === 'failed' || payout.status === 'reversed') {
    const reason = payout.payout_error
      ? waveRefusalReason(payout.payout_error.error_code, payout.payout_error.error_message, 200)
      : `wave: the payout is ${payout.status}`;
    return { status: 'failed', providerReference: payout.id, reason };
  }
  return { status: 'pending', providerReference: payout.id, reason: 'wave is processing the payout' };
}

/**
 * Wave's signing strategies: `Wave-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]` over the
 * timestamp followed by the raw body, within the tolerance; or `Authorization: Bearer <secret>`.
 * Compared in constant time. Without a configured secret nothing is accepted.
 */
function verifyWebhook(input: InboundNotification, secret: string | undefined, now: Date, toleranceMs: number): void {
  if (!secret) throw new NotificationRejected('WAVE_WEBHOOK_SECRET is not set: Wave webhooks cannot be verified');
  const signatureHeader = headerOf(input, 'wave-signature');
  if (signatureHeader) {
    const parts = signatureHeader.split(',').map((part) => part.trim().split('='));
    const timestamp = parts.find(([key]) => key === 't')?.[1];
    const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
    if (!timestamp || !/^[0-9]{1,12}$/.test(timestamp) || !signatures.length) throw new NotificationRejected('malformed Wave-Signature header');
    if (Math.abs(now.getTime() - Number(timestamp) * 1000) > toleranceMs)
      throw new NotificationRejected('the Wave-Signature timestamp is outside the tolerance (a replay or a skewed clock)');
    const expected = createHmac('sha256', secret).update(timestamp).update(input.rawBody).digest();
    if (!signatures.some((signature) => /^[0-9a-f]{64}$/i.test(signature) && timingSafeEqual(Buffer.from(signature, 'hex'), expected)))
      throw new NotificationRejected('the Wave-Signature does not match the body');
    return;
  }
  const authorization = headerOf(input, 'authorization');
  if (authorization?.startsWith('Bearer ')) {
    const given = createHmac('sha256', 'wave-shared-secret').update(authorization.slice(7)).digest();
    const wanted = createHmac('sha256', 'wave-shared-secret').update(secret).digest();
    if (timingSafeEqual(given, wanted)) return;
  }
  throw new NotificationRejected('the webhook is not signed by Wave');
}

const headerOf = (input: InboundNotification, name: string): string | undefined => {
  const value = input.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
