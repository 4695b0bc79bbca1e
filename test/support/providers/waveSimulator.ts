/**
 * A Wave Business API simulator: a real HTTP server that behaves, for the calls the gateway makes,
 * as Wave's public documentation describes. Pages followed (docs.wave.com):
 *
 *   - https://docs.wave.com/business            API keys (Bearer), errors, idempotency, rate limits
 *   - https://docs.wave.com/checkout            Checkout API: POST /v1/checkout/sessions, GET
 *                                              /v1/checkout/sessions/:id, GET /v1/checkout/sessions/search
 *                                              ?client_reference=, POST .../:id/refund, POST .../:id/expire;
 *                                              checkout_status open|complete|expired, payment_status
 *                                              processing|cancelled|succeeded, wave_launch_url
 *   - https://docs.wave.com/payout              Payout API: POST /v1/payout (idempotency-key header),
 *                                              GET /v1/payout/:id, GET /v1/payouts/search?client_reference=,
 *                                              POST /v1/payout/:id/reverse; status processing|succeeded|failed|reversed
 *   - https://docs.wave.com/balance-api         Balance & Reconciliation API: GET /v1/balance, GET /v1/transactions
 *                                              ?date=YYYY-MM-DD&after=<cursor> -> {page_info{has_next_page,end_cursor}, date,
 *                                              items}; a line's transaction_type (api_checkout, api_checkout_refund,
 *                                              api_payout, api_payout_reversal, merchant_payment, merchant_payment_refund),
 *                                              amount = the change of the balance with the fee apart (the page's example: a
 *                                              1,000 payment is amount "990", fee "10"), checkout_api_session_id,
 *                                              client_reference (see "Bookkeeping" below for each line the simulator books)
 *   - https://docs.wave.com/webhook             events {id, type, data}; `Wave-Signature: t=<unix>,v1=<hex>`,
 *                                              HMAC-SHA256(secret, t + raw body); or the shared-secret strategy
 *                                              (`Authorization: Bearer <secret>`)
 *
 * Refunds (https://docs.wave.com/checkout, "Refund a checkout session", POST /v1/checkout/sessions/:id/refund):
 * no request body; HTTP 200 with an empty body; the whole session amount goes back; and the call is
 * idempotent ON THE SESSION: refunding a session again refunds nothing more and answers 200. The page
 * documents no Idempotency-Key for this call, so the simulator de-duplicates refunds by the session
 * alone and ignores any Idempotency-Key sent with one (`refundSession`): a connector that re-sends an
 * unanswered refund is safe because the session is refunded at most once, not because of its key.
 * (We could not load the page itself here; its reading is that of three independent public
 * summaries of it, which agree: "idempotent: calling it twice creates one refund", "a repeated
 * refund answers 200 and debits nothing", and a simulator answering an already refunded session 200.)
 *
 * Addresses and numbers, as the pages ask for them:
 *   - docs.wave.com/checkout: `success_url` and `error_url` are https URLs (Wave sends the customer's
 *     browser there); anything else is 400 `request-validation-error`, and no session is made;
 *   - docs.wave.com/payout: `mobile` is the recipient's number in E.164 (`+` country code, national
 *     number). The simulator checks it per country, with each country's national numbering plan
 *     (ITU-T E.164 assignments, the national regulators' plans) for the countries where Wave runs
 *     XOF wallets (wave.com: Senegal, Côte d'Ivoire, Mali, Burkina Faso): +221 and 9 digits starting
 *     with 7 (ARTP), +225 and 10 digits starting 01, 05 or 07 (ARTCI, since 2021), +223 and 8 digits,
 *     +226 and 8 digits. A number that is not that is 400 `request-validation-error`; a Wave country
 *     of another currency (The Gambia +220, Uganda +256) cannot receive an XOF payout: 400
 *     `request-validation-error` too (the pages name no code for it: our choice), nothing created.
 *
 * Where those pages are silent we chose (and the connector must survive either way):
 *   - an idempotency key sent again with a DIFFERENT body: 409 `idempotency-mismatch`; the same body: the
 *     first answer again, nothing done twice (payouts, where docs.wave.com/payout documents the key, and
 *     the Idempotency-Key on checkout sessions; not refunds, above);
 *   - refund of a session that is not complete+succeeded: 409 `checkout-refund-failed`;
 *   - expire of a session that is not open: 409 `checkout-session-not-open`;
 *   - amounts are strings of whole XOF; anything else 400 `request-validation-error`;
 *   - fees (the pages give the field, not the rates): a checkout payment costs the merchant 1 % (the
 *     page's 1,000 -> fee 10), a payout 1 % on top of the receive amount; a checkout refund gives the
 *     customer the whole session amount back and Wave returns its fee (amount -990, fee -10); a payout
 *     reversal gives back the amount and its fee (amount +1,010, fee -10). Either way gross = amount + fee;
 *   - the history's page size is 100 lines (`historyPageSize`), its cursor opaque.
 *
 * Faults (the section "Faults" below; issue 28 part A), each as Wave's pages describe it:
 *   - docs.wave.com/payout "Idempotency" / "Handling errors": a 408, 500 or 503, or a timeout, leaves the
 *     payout's fate unknown; it may or may not have been created, and a new request with the same
 *     idempotency key never sends money twice -> `failNext(.., 503)` (a 5xx that created nothing),
 *     `failAfterDoingNext` (a 5xx after doing the work), `loseNextCall` / `loseNextAnswer` (timeouts);
 *   - docs.wave.com/business "Rate limiting": 429 `too-many-requests`, wait a few seconds and retry ->
 *     `rateLimitNext(match, retryAfterSeconds)` answers 429 with a `Retry-After` header;
 *   - docs.wave.com/payout "Error codes": 401 `api-key-revoked` for a revoked key -> `revokeKey()`;
 *     refusals `{code, message}` such as `insufficient-funds` (the business wallet),
 *     `recipient-limit-exceeded`; a payout may also be created `failed` with `payout_error`
 *     (`refusedPayoutMobiles`).
 *
 * Its books (sessions, payouts, the transaction history) are in this process's memory: it stands for ONE
 * Wave shared by every gateway instance of a test. Tests drive the customer's side (`completeSession`,
 * `failSessionPayment`, `expireSession`) and its faults (`failNext`, `loseNextAnswer`, `loseNextCall`,
 * `latencyMs`, webhook duplicates / replays / late or lost deliveries).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WaveSession {
  id: string;
  amount: string;
  checkout_status: 'open' | 'complete' | 'expired';
  client_reference: string | null;
  currency: 'XOF';
  error_url: string;
  success_url: string;
  last_payment_error: { code: string; message: string } | null;
  business_name: string;
  payment_status: 'processing' | 'cancelled' | 'succeeded';
  transaction_id: string | null;
  wave_launch_url: string;
  when_completed: string | null;
  when_created: string;
  when_expires: string;
  /** Not on Wave's wire: whether it was refunded (the simulator's own book). */
  refunded?: boolean;
}

export interface WavePayout {
  id: string;
  currency: 'XOF';
  receive_amount: string;
  fee: string;
  mobile: string;
  name: string | null;
  client_reference: string | null;
  payment_reason: string | null;
  status: 'processing' | 'succeeded' | 'failed' | 'reversed';
  timestamp: string;
  payout_error?: { error_code: string; error_message: string };
}

/** One line of Wave's transaction history (GET /v1/transactions): signed amounts, the merchant's view. */
export interface WaveHistoryItem {
  timestamp: string;
  transaction_id: string;
  transaction_type: 'api_checkout' | 'api_checkout_refund' | 'merchant_payment' | 'merchant_payment_refund' | 'api_payout' | 'api_payout_reversal';
  amount: string;
  fee: string;
  balance: string;
  currency: 'XOF';
  client_reference: string | null;
  checkout_api_session_id: string | null;
  counterparty_mobile: string | null;
}

interface RecordedCall {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
  status: number;
}

type Fault = { status: number; code: string; message: string; headers?: Record<string, string>; afterDoing?: boolean } | 'lose-answer' | 'lose-call';

export interface WaveSimulatorOptions {
  apiKey?: string;
  webhookSecret?: string;
  /** `signature` (Wave-Signature header) or `shared-secret` (Authorization: Bearer). */
  webhookStrategy?: 'signature' | 'shared-secret';
  /** Where the gateway receives Wave's webhooks ({PUBLIC_URL}/providers/wave/webhook). */
  webhookUrl?: string;
  /** Checkout sessions expire after this (Wave: 30 minutes by default). */
  sessionLifetimeMs?: number;
}

/** Most bytes of a request body the simulator reads: Wave's requests are small JSON documents. */
const MAX_BODY_BYTES = 64 * 1024;

const newId = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;
const WHOLE_XOF = /^[1-9][0-9]{0,11}$/;

export class WaveSimulator {
  readonly apiKey: string;
  readonly webhookSecret: string;
  webhookStrategy: 'signature' | 'shared-secret';
  webhookUrl: string | undefined;
  sessionLifetimeMs: number;
  /** Added to every answer (a slow Wave). */
  latencyMs = 0;
  /** Payouts stay `processing` until `settlePayout` (else they succeed at once). */
  payoutsStayProcessing = false;
  /** Webhooks sent twice each. */
  duplicateWebhooks = false;
  /** The next webhook is never delivered (lost). */
  loseNextWebhook = false;
  /** Mobiles whose payouts Wave refuses (a definite failure), with the error code. */
  readonly refusedPayoutMobiles = new Map<string, string>();
  balance = 100_000_000n;

  readonly sessions = new Map<string, WaveSession>();
  readonly payouts = new Map<string, WavePayout>();
  readonly history: WaveHistoryItem[] = [];
  readonly calls: RecordedCall[] = [];
  /** Every webhook sent: its event id, raw body and headers (for replays). */
  readonly webhooksSent: Array<{ id: string; type: string; body: string; headers: Record<string, string>; status: number | null }> = [];

  private readonly idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  private readonly faults: Array<{ match: RegExp; fault: Fault }> = [];
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | undefined;
  url = '';

  constructor(options: WaveSimulatorOptions = {}) {
    this.apiKey = options.apiKey ?? `wave_sn_prod_${randomBytes(12).toString('hex')}`;
    this.webhookSecret = options.webhookSecret ?? `wave_sn_WHS_${randomBytes(12).toString('hex')}`;
    this.webhookStrategy = options.webhookStrategy ?? 'signature';
    this.webhookUrl = options.webhookUrl;
    this.sessionLifetimeMs = options.sessionLifetimeMs ?? 30 * 60_000;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  // -------------------------------------------------------------------------------------------
  // Faults

  /** The next call whose "METHOD path" matches answers this error (Wave's error body). */
  failNext(
    match: RegExp,
    status: number,
    code = status === 429 ? 'rate-limit-exceeded' : status >= 500 ? 'internal-server-error' : 'request-validation-error',
    message = code,
  ): void {
    this.faults.push({ match, fault: { status, code, message } });
  }

  /** The next matching call is DONE, but its answer never comes back (a timeout after the act). */
  loseNextAnswer(match: RegExp): void {
    this.faults.push({ match, fault: 'lose-answer' });
  }

  /** The next matching call never arrives: nothing done, no answer (a timeout before the act). */
  loseNextCall(match: RegExp): void {
    this.faults.push({ match, fault: 'lose-call' });
  }

  // ---- Faults of issue 28 part A (transport, resumption, rate limits, revoked keys) ------------

  /** The next matching call answers 429 `too-many-requests` with `Retry-After: <seconds>`, doing nothing. */
  rateLimitNext(match: RegExp, retryAfterSeconds = 1, times = 1): void {
    for (let i = 0; i < times; i += 1)
      this.faults.push({
        match,
        fault: { status: 429, code: 'too-many-requests', message: 'Too many requests', headers: { 'retry-after': String(retryAfterSeconds) } },
      });
  }

  /** The next matching call is DONE (a payout created, booked), then answered with a 5xx: Wave's "it may have been created". */
  failAfterDoingNext(match: RegExp, status = 500): void {
    this.faults.push({ match, fault: { status, code: 'internal-server-error', message: 'Internal server error', afterDoing: true } });
  }

  /** The API key is revoked at the portal: every call answers 401 `api-key-revoked` from now on. */
  revokeKey(): void {
    this.keyRevoked = true;
  }

  private keyRevoked = false;

  /**
   * Wave stops answering (an outage): `closed` refuses every connection (nothing listens on its
   * port), `hanging` takes every request and never answers (each call runs into its deadline).
   */
  async stopAnswering(how: 'closed' | 'hanging'): Promise<void> {
    if (how === 'hanging') {
      await this.listenAgain();
      this.hangEverything = true;
      return;
    }
    this.server!.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Wave answers again, at the same address. */
  async answerAgain(): Promise<void> {
    this.hangEverything = false;
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
    await this.listenAgain();
  }

  private async listenAgain(): Promise<void> {
    if (this.server?.listening) return;
    const port = Number(new URL(this.url).port);
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
  }

  private hangEverything = false;

  // ---- end of issue 28 part A faults -------------------------------------------------------------

  private takeFault(signature: string): Fault | null {
    const index = this.faults.findIndex(({ match }) => match.test(signature));
    if (index < 0) return null;
    return this.faults.splice(index, 1)[0]!.fault;
  }

  // -------------------------------------------------------------------------------------------
  // The customer's side and Wave's own events

  /** The customer pays the session in the Wave app: complete + succeeded, the money is booked, the webhook sent. */
  async completeSession(id: string, payerMobile = '+221770000001'): Promise<WaveSession> {
    const session = this.mustSession(id);
    if (session.checkout_status !== 'open') throw new Error(`session ${id} is ${session.checkout_status}`);
    const now = new Date().toISOString();
    Object.assign(session, {
      checkout_status: 'complete',
      payment_status: 'succeeded',
      transaction_id: newId('T_'),
      when_completed: now,
      last_payment_error: null,
    });
    this.bookCheckout(session, payerMobile);
    await this.sendWebhook('checkout.session.completed', session);
    return session;
  }

  /** A payment try inside the session failed (insufficient funds): the session stays open. */
  async failSessionPayment(id: string, code = 'insufficient-funds', message = 'The payer does not have enough funds'): Promise<WaveSession> {
    const session = this.mustSession(id);
    Object.assign(session, { payment_status: 'cancelled', last_payment_error: { code, message } });
    await this.sendWebhook('checkout.session.payment_failed', session);
    return session;
  }

  /** The session's lifetime ends without payment. */
  expireSession(id: string): WaveSession {
    const session = this.mustSession(id);
    if (session.checkout_status === 'open') session.checkout_status = 'expired';
    return session;
  }

  /** A processing payout ends. */
  settlePayout(id: string, status: 'succeeded' | 'failed'): WavePayout {
    const payout = this.payouts.get(id);
    if (!payout) throw new Error(`no payout ${id}`);
    payout.status = status;
    if (status === 'failed') {
      payout.payout_error = { error_code: 'recipient-limit-exceeded', error_message: 'The recipient cannot receive this amount' };
      this.bookPayoutReversal(payout);
    }
    return payout;
  }

  /** The session created for our reference (client_reference). */
  sessionFor(clientReference: string): WaveSession | undefined {
    return [...this.sessions.values()].find((session) => session.client_reference === clientReference);
  }

  /** Sends an event again exactly as first sent (same id, same signature: a replay). */
  async replayWebhook(eventId: string): Promise<number | null> {
    const sent = this.webhooksSent.find((event) => event.id === eventId);
    if (!sent || !this.webhookUrl) throw new Error(`no webhook ${eventId}`);
    return this.post(sent.body, sent.headers);
  }

  /** Sends an event now about `session` (e.g. a late one after the gateway closed the attempt). */
  async sendWebhook(type: string, session: WaveSession): Promise<void> {
    if (!this.webhookUrl) return;
    const body = JSON.stringify({ id: newId('EV_'), type, data: this.wireSession(session) });
    if (this.loseNextWebhook) {
      this.loseNextWebhook = false;
      this.webhooksSent.push({ id: JSON.parse(body).id, type, body, headers: {}, status: null });
      return;
    }
    const headers = this.webhookHeaders(body);
    const status = await this.post(body, headers);
    this.webhooksSent.push({ id: JSON.parse(body).id, type, body, headers, status });
    if (this.duplicateWebhooks) await this.post(body, headers);
  }

  /** The headers Wave signs a body with, at `timestamp` (seconds). */
  webhookHeaders(body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
    if (this.webhookStrategy === 'shared-secret') return { 'content-type': 'application/json', authorization: `Bearer ${this.webhookSecret}` };
    const signature = createHmac('sha256', this.webhookSecret).update(`${timestamp}${body}`).digest('hex');
    return { 'content-type': 'application/json', 'wave-signature': `t=${timestamp},v1=${signature}` };
  }

  private async post(body: string, headers: Record<string, string>): Promise<number | null> {
    try {
      const response = await fetch(this.webhookUrl!, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return null;
    }
  }

  // -------------------------------------------------------------------------------------------
  // The API

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return this.send(response, 413, { code: 'request-too-large', message: 'Request body too large' });
      chunks.push(chunk as Buffer);
    }
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://wave');
    const signature = `${request.method} ${url.pathname}`;
    const idempotencyKey = header(request, 'idempotency-key');
    const call: RecordedCall = { method: request.method ?? '', path: url.pathname + url.search, idempotencyKey, body: rawBody, status: 0 };

    const fault = this.hangEverything ? 'lose-call' : this.takeFault(signature);
    if (fault === 'lose-call') {
      this.hanging.add(response);
      return;
    }
    this.calls.push(call);
    if (this.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    if (fault && fault !== 'lose-answer' && !fault.afterDoing) {
      call.status = fault.status;
      return this.send(response, fault.status, { code: fault.code, message: fault.message }, fault.headers);
    }
    const auth = header(request, 'authorization');
    if (this.keyRevoked && auth === `Bearer ${this.apiKey}`)
      return this.answer(call, response, 401, { code: 'api-key-revoked', message: 'Your API key has been revoked' }, null);
    if (!auth) return this.answer(call, response, 401, { code: 'missing-auth-header', message: 'Missing Authorization header' }, fault);
    if (auth !== `Bearer ${this.apiKey}`) return this.answer(call, response, 401, { code: 'invalid-auth', message: 'Invalid API key' }, fault);

    let body: Record<string, unknown> = {};
    if (request.method === 'POST' && rawBody) {
      try {
        body = JSON.parse(rawBody) as Record<string, unknown>;
      } catch {
        return this.answer(call, response, 400, { code: 'request-validation-error', message: 'Body is not JSON' }, fault);
      }
    }
    // Idempotency: the same key and body answer the first answer; another body is refused. A refund
    // is idempotent by its session instead (docs.wave.com/checkout): its key plays no part.
    const isRefund = /^POST \/v1\/checkout\/sessions\/[^/]+\/refund$/.test(signature);
    const idempotencyScope = idempotencyKey && request.method === 'POST' && !isRefund ? `${signature} ${idempotencyKey}` : null;
    if (idempotencyScope) {
      const earlier = this.idempotency.get(idempotencyScope);
      if (earlier && earlier.fingerprint !== rawBody)
        return this.answer(call, response, 409, { code: 'idempotency-mismatch', message: 'This idempotency key was used with a different request' }, fault);
      if (earlier) return this.answer(call, response, earlier.status, earlier.body, fault);
    }
    const [status, answer] = this.route(request.method ?? '', url, body, idempotencyKey);
    if (idempotencyScope && status < 500) this.idempotency.set(idempotencyScope, { fingerprint: rawBody, status, body: answer });
    if (fault && fault !== 'lose-answer' && fault.afterDoing) {
      call.status = fault.status;
      return this.send(response, fault.status, { code: fault.code, message: fault.message });
    }
    return this.answer(call, response, status, answer, fault);
  }

  private answer(call: RecordedCall, response: ServerResponse, status: number, body: unknown, fault: Fault | null): void {
    call.status = status;
    if (fault === 'lose-answer') {
      this.hanging.add(response);
      return;
    }
    this.send(response, status, body);
  }

  private send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = body === undefined ? '' : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
  }

  private route(method: string, url: URL, body: Record<string, unknown>, idempotencyKey: string | undefined): [number, unknown] {
    const path = url.pathname;
    /** The id `pattern` captures when the call is a `wanted` one to a path it matches. */
    const idIn = (wanted: string, pattern: RegExp): string | undefined => (method === wanted ? path.match(pattern)?.[1] : undefined);
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.createSession(body);
    if (method === 'GET' && path === '/v1/checkout/sessions/search') {
      const reference = url.searchParams.get('client_reference');
      if (!reference) return validation('client_reference is required');
      return [200, { result: [...this.sessions.values()].filter((s) => s.client_reference === reference).map((s) => this.wireSession(s)) }];
    }
    const shownSessionId = idIn('GET', /^\/v1\/checkout\/sessions\/([^/]+)$/);
    if (shownSessionId) {
      const session = this.sessions.get(shownSessionId);
      return session ? [200, this.wireSession(session)] : notFound('checkout session');
    }
    const refundedSessionId = idIn('POST', /^\/v1\/checkout\/sessions\/([^/]+)\/refund$/);
    if (refundedSessionId) return this.refundSession(refundedSessionId);
    const expiredSessionId = idIn('POST', /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/);
    if (expiredSessionId) {
      const session = this.sessions.get(expiredSessionId);
      if (!session) return notFound('checkout session');
      if (session.checkout_status !== 'open')
        return [409, { code: 'checkout-session-not-open', message: `The checkout session is ${session.checkout_status}` }];
      session.checkout_status = 'expired';
      return [200, undefined];
    }
    if (method === 'POST' && path === '/v1/payout') {
      if (!idempotencyKey) return validation('the idempotency-key header is required');
      return this.createPayout(body);
    }
    if (method === 'GET' && path === '/v1/payouts/search') {
      const reference = url.searchParams.get('client_reference');
      if (!reference) return validation('client_reference is required');
      return [200, { result: [...this.payouts.values()].filter((p) => p.client_reference === reference) }];
    }
    const shownPayoutId = idIn('GET', /^\/v1\/payout\/([^/]+)$/);
    if (shownPayoutId) {
      const payout = this.payouts.get(shownPayoutId);
      return payout ? [200, payout] : notFound('payout');
    }
    const reversedPayoutId = idIn('POST', /^\/v1\/payout\/([^/]+)\/reverse$/);
    if (reversedPayoutId) {
      const payout = this.payouts.get(reversedPayoutId);
      if (!payout) return notFound('payout');
      if (payout.status !== 'succeeded') return [409, { code: 'payout-reversal-not-allowed', message: `The payout is ${payout.status}` }];
      payout.status = 'reversed';
      this.bookPayoutReversal(payout);
      return [200, undefined];
    }
    if (method === 'GET' && path === '/v1/balance') return [200, { amount: String(this.balance), currency: 'XOF' }];
    if (method === 'GET' && path === '/v1/transactions') return this.transactions(url);
    return notFound('route');
  }

  private createSession(body: Record<string, unknown>): [number, unknown] {
    const { amount, currency, success_url, error_url, client_reference } = body;
    if (typeof amount !== 'string' || !WHOLE_XOF.test(amount)) return validation('amount must be a string of whole XOF');
    if (currency !== 'XOF') return validation('currency must be XOF');
    // docs.wave.com/checkout: the customer is sent back to https URLs only.
    if (typeof success_url !== 'string' || !isHttpsUrl(success_url)) return validation('success_url must be an https URL');
    if (typeof error_url !== 'string' || !isHttpsUrl(error_url)) return validation('error_url must be an https URL');
    if (client_reference !== undefined && (typeof client_reference !== 'string' || client_reference.length > 255))
      return validation('client_reference must be a string of at most 255 characters');
    const id = newId('cos-');
    const now = Date.now();
    const session: WaveSession = {
      id,
      amount,
      checkout_status: 'open',
      client_reference: (client_reference as string | undefined) ?? null,
      currency: 'XOF',
      error_url,
      success_url,
      last_payment_error: null,
      business_name: 'Gateway Test Merchant',
      payment_status: 'processing',
      transaction_id: null,
      wave_launch_url: `${this.url}/c/${id}`,
      when_completed: null,
      when_created: new Date(now).toISOString(),
      when_expires: new Date(now + this.sessionLifetimeMs).toISOString(),
    };
    this.sessions.set(id, session);
    return [200, this.wireSession(session)];
  }

  /** docs.wave.com/checkout: 200 with an empty body; idempotent on the session (a refunded one answers 200, refunds nothing). */
  private refundSession(id: string): [number, unknown] {
    const session = this.sessions.get(id);
    if (!session) return notFound('checkout session');
    if (session.refunded) return [200, undefined];
    if (session.checkout_status !== 'complete' || session.payment_status !== 'succeeded')
      return [409, { code: 'checkout-refund-failed', message: 'Only a completed, paid session can be refunded' }];
    session.refunded = true;
    this.bookCheckoutRefund(session);
    return [200, undefined];
  }

  private createPayout(body: Record<string, unknown>): [number, unknown] {
    const { currency, receive_amount, mobile, name, client_reference, payment_reason } = body;
    if (currency !== 'XOF') return validation('currency must be XOF');
    if (typeof receive_amount !== 'string' || !WHOLE_XOF.test(receive_amount)) return validation('receive_amount must be a string of whole XOF');
    if (typeof mobile !== 'string') return validation('mobile must be a string');
    const mobileProblem = xofMobileProblem(mobile);
    if (mobileProblem) return validation(mobileProblem);
    if (name !== undefined && typeof name !== 'string') return validation('name must be a string');
    if (client_reference !== undefined && (typeof client_reference !== 'string' || client_reference.length > 255))
      return validation('client_reference must be a string');
    if (payment_reason !== undefined && (typeof payment_reason !== 'string' || payment_reason.length > 40))
      return validation('payment_reason must be at most 40 characters');
    const amount = BigInt(receive_amount);
    // Wave takes its payout fee from the merchant's balance (1 %, here).
    const fee = (amount + 99n) / 100n;
    const refused = this.refusedPayoutMobiles.get(mobile);
    const payout: WavePayout = {
      id: newId('pt-'),
      currency: 'XOF',
      receive_amount,
      fee: String(fee),
      mobile,
      name: (name as string | undefined) ?? null,
      client_reference: (client_reference as string | undefined) ?? null,
      payment_reason: (payment_reason as string | undefined) ?? null,
      status: refused ? 'failed' : this.payoutsStayProcessing ? 'processing' : 'succeeded',
      timestamp: new Date().toISOString(),
      ...(refused && { payout_error: { error_code: refused, error_message: 'The recipient cannot receive this payout' } }),
    };
    if (!refused && this.balance < amount + fee) return [400, { code: 'insufficient-funds', message: 'Your wallet does not have enough funds' }];
    this.payouts.set(payout.id, payout);
    if (!refused) this.book({ type: 'api_payout', amount: -(amount + fee), fee, clientReference: payout.client_reference, mobile });
    return [200, payout];
  }

  private wireSession(session: WaveSession): Omit<WaveSession, 'refunded'> {
    const { refunded: _refunded, ...wire } = session;
    return { ...wire };
  }

  private mustSession(id: string): WaveSession {
    const session = this.sessions.get(id);
    if (!session) throw new Error(`no session ${id}`);
    return session;
  }

  // ===========================================================================================
  // Bookkeeping: Wave's transaction history (https://docs.wave.com/balance-api, GET /v1/transactions).
  // Every money movement books one line, as that page describes it: `amount` is the change of the
  // wallet's balance, Wave's `fee` apart, so gross = amount + fee. Checkout payments are
  // `api_checkout` lines and their refunds `api_checkout_refund` (each with checkout_api_session_id
  // and client_reference); payouts `api_payout` / `api_payout_reversal`; payments to the merchant's
  // QR code or app `merchant_payment`. One day per request, pages of `historyPageSize` lines, an
  // opaque cursor. Tests can make Wave's books disagree with the gateway's (`bookForeignCheckout`,
  // `changeLineAmount`, `removeLine`) or add what is none of the gateway's (`bookMerchantPayment`).

  /** Lines per page of the history (the Balance API pages its answers). */
  historyPageSize = 100;
  /** Wave's fee on a checkout payment, in percent of the session amount (the page's example: 1,000 -> 10). */
  checkoutFeePercent = 1n;

  private checkoutFee(amount: bigint): bigint {
    return (amount * this.checkoutFeePercent + 99n) / 100n;
  }

  /** The customer paid a session: the merchant gets the amount less Wave's fee. */
  private bookCheckout(session: WaveSession, payerMobile: string): void {
    const gross = BigInt(session.amount);
    const fee = this.checkoutFee(gross);
    this.book({
      type: 'api_checkout',
      transactionId: session.transaction_id ?? undefined,
      amount: gross - fee,
      fee,
      clientReference: session.client_reference,
      sessionId: session.id,
      mobile: payerMobile,
    });
  }

  /** A session refunded: the customer gets the whole amount back, Wave returns its fee. */
  private bookCheckoutRefund(session: WaveSession): void {
    const gross = BigInt(session.amount);
    const fee = this.checkoutFee(gross);
    this.book({ type: 'api_checkout_refund', amount: -(gross - fee), fee: -fee, clientReference: session.client_reference, sessionId: session.id });
  }

  /** A payout failed after it was paid, or was reversed: the amount and its fee come back. */
  private bookPayoutReversal(payout: WavePayout): void {
    const fee = BigInt(payout.fee);
    this.book({
      type: 'api_payout_reversal',
      amount: BigInt(payout.receive_amount) + fee,
      fee: -fee,
      clientReference: payout.client_reference,
      mobile: payout.mobile,
    });
  }

  private book(line: {
    type: WaveHistoryItem['transaction_type'];
    amount: bigint;
    fee?: bigint;
    transactionId?: string;
    clientReference?: string | null;
    sessionId?: string;
    mobile?: string | null;
    at?: Date;
  }): WaveHistoryItem {
    this.balance += line.amount;
    const item: WaveHistoryItem = {
      timestamp: (line.at ?? new Date()).toISOString(),
      transaction_id: line.transactionId ?? newId('T_'),
      transaction_type: line.type,
      amount: String(line.amount),
      fee: String(line.fee ?? 0n),
      balance: String(this.balance),
      currency: 'XOF',
      client_reference: line.clientReference ?? null,
      checkout_api_session_id: line.sessionId ?? null,
      counterparty_mobile: line.mobile ?? null,
    };
    this.history.push(item);
    return item;
  }

  /** GET /v1/transactions?date=YYYY-MM-DD[&after=<cursor>]: one day, one page, oldest first. */
  private transactions(url: URL): [number, unknown] {
    const date = url.searchParams.get('date') ?? new Date().toISOString().slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return validation('date must be YYYY-MM-DD');
    const items = this.history.filter((item) => item.timestamp.startsWith(date));
    const cursor = url.searchParams.get('after');
    const start =
      cursor === null
        ? 0
        : Number(
            Buffer.from(cursor, 'base64url')
              .toString('utf8')
              .replace(/^offset:/, ''),
          );
    if (!Number.isSafeInteger(start) || start < 0) return validation('after is not a cursor of this history');
    const page = items.slice(start, start + this.historyPageSize);
    const end = start + page.length;
    const endCursor = Buffer.from(`offset:${end}`).toString('base64url');
    return [200, { page_info: { start_cursor: cursor, end_cursor: endCursor, has_next_page: end < items.length }, date, items: page }];
  }

  /** Every line of the history about one of our references (client_reference) or sessions. */
  linesOf(reference: string): WaveHistoryItem[] {
    return this.history.filter((item) => item.client_reference === reference || item.checkout_api_session_id === reference);
  }

  /**
   * A checkout payment Wave has that the gateway does not (a session created and paid with this
   * key by something else, or a record the gateway lost): a completed session and its line.
   */
  bookForeignCheckout(amount: bigint, clientReference: string | null = `foreign-${randomBytes(4).toString('hex')}`): WaveHistoryItem {
    const now = new Date().toISOString();
    const id = newId('cos-');
    const session: WaveSession = {
      id,
      amount: String(amount),
      checkout_status: 'complete',
      client_reference: clientReference,
      currency: 'XOF',
      error_url: 'https://merchant.example/error',
      success_url: 'https://merchant.example/success',
      last_payment_error: null,
      business_name: 'Gateway Test Merchant',
      payment_status: 'succeeded',
      transaction_id: newId('T_'),
      wave_launch_url: `${this.url}/c/${id}`,
      when_completed: now,
      when_created: now,
      when_expires: now,
    };
    this.sessions.set(id, session);
    this.bookCheckout(session, '+221770000009');
    return this.history[this.history.length - 1]!;
  }

  /** A payment to the merchant's QR code or app (not through the Checkout API): none of the gateway's. */
  bookMerchantPayment(amount: bigint, mobile = '+221770000008'): WaveHistoryItem {
    const fee = this.checkoutFee(amount);
    return this.book({ type: 'merchant_payment', amount: amount - fee, fee, mobile });
  }

  /** Wave's line says another gross amount than it did (same fee): an amount changed at Wave. */
  changeLineAmount(transactionId: string, gross: bigint): void {
    const line = this.history.find((item) => item.transaction_id === transactionId);
    if (!line) throw new Error(`no history line ${transactionId}`);
    line.amount = String((gross < 0n ? -gross : gross) * (BigInt(line.amount) < 0n ? -1n : 1n) - BigInt(line.fee));
  }

  /** A line missing from Wave's history (Wave lost it, or never booked it). */
  removeLine(transactionId: string): void {
    const index = this.history.findIndex((item) => item.transaction_id === transactionId);
    if (index < 0) throw new Error(`no history line ${transactionId}`);
    this.history.splice(index, 1);
  }
  // ===========================================================================================
}

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
const validation = (message: string): [number, unknown] => [400, { code: 'request-validation-error', message }];
const notFound = (what: string): [number, unknown] => [404, { code: 'not-found', message: `No such ${what}` }];
const isHttpsUrl = (value: string): boolean => {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * Wave's countries by calling code: the national number's length and, where the plan reserves a
 * range for mobiles, its start; and the wallets' currency (see the header for the sources).
 */
const WAVE_COUNTRIES: Record<string, { digits: number; mobile?: RegExp; currency: string }> = {
  '221': { digits: 9, mobile: /^7/, currency: 'XOF' }, // Senegal
  '225': { digits: 10, mobile: /^0[157]/, currency: 'XOF' }, // Côte d'Ivoire
  '223': { digits: 8, currency: 'XOF' }, // Mali
  '226': { digits: 8, currency: 'XOF' }, // Burkina Faso
  '220': { digits: 7, currency: 'GMD' }, // The Gambia
  '256': { digits: 9, mobile: /^7/, currency: 'UGX' }, // Uganda
};

/** Why `mobile` cannot receive an XOF payout (E.164, per country), or null when it can. */
function xofMobileProblem(mobile: string): string | null {
  if (!/^\+[1-9][0-9]{7,14}$/.test(mobile)) return 'mobile must be an E.164 number (+ country code and number, no spaces)';
  const code = Object.keys(WAVE_COUNTRIES).find((prefix) => mobile.startsWith(`+${prefix}`));
  if (!code) return 'mobile is not a number of a country Wave serves';
  const country = WAVE_COUNTRIES[code]!;
  const national = mobile.slice(1 + code.length);
  if (national.length !== country.digits || (country.mobile && !country.mobile.test(national)))
    return `mobile is not a valid mobile number of +${code} (${country.digits} digits after the country code)`;
  if (country.currency !== 'XOF') return `an XOF payout cannot go to a ${country.currency} wallet (+${code})`;
  return null;
}

export async function startWaveSimulator(options: WaveSimulatorOptions = {}): Promise<WaveSimulator> {
  return new WaveSimulator(options).start();
}
