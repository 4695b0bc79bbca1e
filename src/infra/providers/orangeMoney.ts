/**
 * Orange Money (Sonatel's "Orange Money API", Senegal, XOF) behind the one provider port. Why this
 * API and not the Orange Developer Web Payment API: docs/providers.md "Orange Money".
 *
 *   collect        POST /api/eWallet/v4/qrcode: a single-use merchant-payment QR code whose deep
 *                  link (Max It / Orange Money app) the checkout sends the customer to; the outcome
 *                  comes by callback or by searching the transactions for our reference.
 *   payout         POST /api/eWallet/v1/cashins: our distributor wallet credits the recipient, the
 *                  partner PIN RSA-encrypted with the key of GET /api/account/v1/publicKeys.
 *   refund         the API has no refund of a merchant payment: a cash in of the refunded amount
 *                  to the wallet that paid (docs/providers.md says why this is the safe choice).
 *   *Status        GET /api/eWallet/v1/transactions?reference=... (OUR reference; never re-sends).
 *   notifications  callbacks verified by X-Sonatel-Signature (HMAC-SHA256 over "<t>,<raw body>")
 *                  and/or Authorization: Basic <apiKey>, stale timestamps refused.
 *   listRecords    GET /api/eWallet/v1/transactions?fromDateTime&toDateTime, paged.
 *
 * Our reference goes to Orange with a prefix naming the operation (`pay-`, `refund-`, `payout-`):
 * refunds and payouts are both cash ins, and the prefix is what tells them apart in a callback or
 * in the history without trusting metadata to be echoed.
 *
 * "Unknown" is never "failed": a timeout, a network error, a 5xx, a 429 or any answer we cannot
 * read throws ProviderUnavailable (the flow keeps the call open and asks later). A cash in is never
 * sent twice by this connector (the API documents no de-duplication of `reference`): a 401 is the
 * only answer after which a request is sent again, since the API did nothing with it.
 * Credentials and phone numbers never reach a log line.
 */
import { constants, createHmac, publicEncrypt, timingSafeEqual } from 'node:crypto';
import type { InboundNotification, PaymentProvider, ProviderAnswer, ProviderNotification, ProviderRequest, ProviderStatusAnswer } from '../../domain/ports.js';
import type { Logger, ReportsHealth } from '../../domain/ports.js';
import { NotificationRejected, ProviderUnavailable, ProviderUnreachable } from '../../domain/ports.js';
import { senegalMsisdn } from './orangeMoney/msisdn.js';
import { orangeRefusalReason } from './orangeMoney/refusals.js';
import { createProviderTransport, type ProviderTransport } from './transport.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { TokenSource } from './orangeMoney/tokens.js';
import {
  METADATA_REFERENCE,
  ORANGE_TYPE,
  REFUND_OF,
  carriesReference,
  orangeReferenceOf,
  ourReferenceOf,
  providerRecordsOf,
  statusOf,
} from './records/orangeMoney.js';
import { withoutPhoneNumbers } from './withoutPhoneNumbers.js';
import { loadOnce } from '../../domain/loadOnce.js';

export interface OrangeMoneySettings {
  /** ORANGE_MONEY_API_URL: https://api.orange-sonatel.com (production) or the sandbox. */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** ORANGE_MONEY_MERCHANT_CODE: the 6-digit merchant code the QR codes pay. */
  merchantCode: string;
  /** ORANGE_MONEY_MERCHANT_NAME: shown to the payer in the app. */
  merchantName: string;
  /** ORANGE_MONEY_PARTNER_MSISDN / _PIN: the distributor wallet that funds cash ins (payouts, refunds). */
  partner?: { msisdn: string; pin: string };
  /** ORANGE_MONEY_WEBHOOK_SECRET: the key of X-Sonatel-Signature. */
  webhookSecret?: string;
  /** ORANGE_MONEY_CALLBACK_API_KEY: the apiKey registered with the callback, sent back as Basic. */
  callbackApiKey?: string;
  /** Where callbacks are sent (X-Callback-Url): {PUBLIC_URL}/providers/orange_money/callback. */
  callbackUrl?: string;
  /** ORANGE_MONEY_QR_VALIDITY_SECONDS: how long a QR code can be paid. */
  qrValiditySeconds: number;
  /** ORANGE_MONEY_TIMEOUT_MS: the bound of one HTTP call. */
  timeoutMs: number;
}

export interface OrangeMoneyDeps {
  /** The clock (token expiry, QR code age, signature freshness). */
  now?: () => number;
  /** One log event per call goes here (transport.ts): never a secret, a body or a phone number. */
  log?: Logger;
  transport?: ProviderTransport;
}

type OmStatus = 'ACCEPTED' | 'CANCELLED' | 'FAILED' | 'INITIATED' | 'PENDING' | 'PRE_INITIATED' | 'REJECTED' | 'SUCCESS';

interface OmTransaction {
  transactionId: string;
  metadata?: Record<string, string>;
  /** Absent or '' when Orange keeps our reference only in metadata (records/orangeMoney.ts). */
  reference?: string;
  type: string;
  status: OmStatus | string;
  amount: { value: number; unit: string };
  customer?: { idType?: string; id?: string };
  createdAt?: string;
  description?: string;
}

type Kind = ProviderNotification['kind'];

/** A signed callback older (or newer) than this is a replay: Sonatel's clients use 300 s. */
const SIGNATURE_TOLERANCE_SECONDS = 300;
/** After a QR code's validity, how long a payment may still appear (clocks apart, a payment in flight). */
const QR_EXPIRY_GRACE_SECONDS = 60;
/** Page size of the transaction search (the API's documented bound is what the simulator enforces). */
const SEARCH_PAGE_SIZE = 100;
/** Pages read for one status question: more than 500 calls with one reference is not ours. */
const STATUS_SEARCH_PAGES = 5;
/** Pages read for one reconciliation period (100,000 records): a longer period is asked in parts. */
const HISTORY_PAGES = 1_000;
/** Longest body read from Orange (a transaction page is ~40 kB; an HTML error page is cut off). */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

const SUCCEEDED = new Set(['SUCCESS']);
const FAILED = new Set(['FAILED', 'CANCELLED', 'REJECTED']);

const describe = (status: number, body: unknown): string => {
  const problem = (body ?? {}) as { detail?: unknown; code?: unknown; error_description?: unknown; error?: unknown };
  const words = [problem.code ?? problem.error, problem.detail ?? problem.error_description].filter(
    (part) => typeof part === 'string' || typeof part === 'number',
  );
  return withoutPhoneNumbers(`Orange Money answered ${status}${words.length ? ` (${words.join(': ')})` : ''}`);
};

const reasonOf = (transaction: OmTransaction): string => withoutPhoneNumbers(transaction.description ?? `Orange Money status ${transaction.status}`);

function isTransaction(value: unknown): value is OmTransaction {
  const item = value as Partial<OmTransaction> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.transactionId === 'string' &&
    (item.reference === undefined || typeof item.reference === 'string') &&
    typeof item.type === 'string' &&
    typeof item.status === 'string' &&
    typeof item.amount?.value === 'number' &&
    Number.isSafeInteger(item.amount.value)
  );
}

/** The transaction list of a search answer (a JSON array; some deployments wrap it). */
function transactionsOf(body: unknown): OmTransaction[] {
  const list = Array.isArray(body)
    ? body
    : ((body as { transactions?: unknown; content?: unknown } | null)?.transactions ?? (body as { content?: unknown } | null)?.content);
  if (!Array.isArray(list)) throw new ProviderUnavailable('Orange Money answered a transaction search that is not a list');
  return list.filter(isTransaction);
}

const header = (headers: InboundNotification['headers'], name: string): string | undefined => {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The PEM of the key GET /api/account/v1/publicKeys gives (base64 DER, or already PEM). */
function pemOf(key: string): string {
  if (key.includes('-----BEGIN')) return key.replace(/\\n/g, '\n');
  const body =
    key
      .replace(/\s+/g, '')
      .match(/.{1,64}/g)
      ?.join('\n') ?? '';
  return `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----`;
}

/** The port, with the attempt's opening time on collectStatus (an unpaid QR code leaves no record to ask about). */
export type OrangeMoneyProvider = Required<PaymentProvider> &
  ReportsHealth & {
    collectStatus(reference: string, method?: PaymentMethod, openedAt?: Date): Promise<ProviderStatusAnswer>;
  };

export function createOrangeMoneyProvider(settings: OrangeMoneySettings, deps: OrangeMoneyDeps = {}): OrangeMoneyProvider {
  const base = settings.apiUrl.replace(/\/+$/, '');
  const now = deps.now ?? Date.now;

  const transport = deps.transport ?? createProviderTransport({ ...(deps.log && { log: deps.log }) });

  /**
   * One HTTP exchange through the provider transport (transport.ts): an answer (2xx or a 4xx) is
   * returned; not sent throws ProviderUnreachable (nothing reached Orange, or it was rate limited
   * past its Retry-After); unknown throws ProviderUnavailable (Orange may have acted).
   */
  const exchange = async (
    path: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<{ status: number; body: unknown; refused: boolean }> => {
    const route = `${init.method} ${path.split('?')[0]}`;
    const answer = await transport.send({
      provider: 'orange_money',
      operation: route,
      method: init.method,
      url: `${base}${path}`,
      headers: init.headers,
      ...(init.body !== undefined && { body: init.body }),
      timeoutMs: settings.timeoutMs,
      ...(init.signal && { signal: init.signal }),
      maxBytes: MAX_RESPONSE_BYTES,
    });
    // `refused`: the transport's one classification (a 4xx Orange read and did nothing on), which
    // callers decide by, never the status alone (a 408 is a 4xx and unknown).
    if (answer.outcome === 'accepted' || answer.outcome === 'refused')
      return { status: answer.status, body: answer.body, refused: answer.outcome === 'refused' };
    // A 5xx or 408 with its body: the callers' `ok` says it unknown in Orange's (masked) words.
    if (answer.outcome === 'unknown' && answer.status && answer.body !== undefined) return { status: answer.status, body: answer.body, refused: false };
    if (answer.outcome === 'not_sent') throw new ProviderUnreachable(`Orange Money: ${answer.reason} (${route})`, answer.status, answer.retryAfterMs);
    throw new ProviderUnavailable(`Orange Money: ${answer.reason} (${route})`, answer.status);
  };

  const tokens = new TokenSource(
    {
      async fetchToken() {
        const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: settings.clientId, client_secret: settings.clientSecret });
        const { status, body } = await exchange('/oauth/v1/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: form.toString(),
        });
        const token = body as { access_token?: unknown; expires_in?: unknown } | undefined;
        if (status !== 200 || typeof token?.access_token !== 'string') {
          // The secret is never part of the message: only what Orange said.
          throw new ProviderUnavailable(`Orange Money refused a token: ${describe(status, body)}`, status);
        }
        const expiresIn = typeof token.expires_in === 'number' && token.expires_in > 0 ? token.expires_in : 60;
        return { accessToken: token.access_token, expiresInSeconds: expiresIn };
      },
    },
    now,
  );

  /**
   * An authenticated call. On 401 the token is dropped and the call made ONCE more with a fresh
   * one: a 401 means the API did nothing with the request, so sending it again is safe.
   */
  const api = async (method: 'GET' | 'POST', path: string, options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}) => {
    for (let attempt = 1; ; attempt += 1) {
      options.signal?.throwIfAborted();
      const token = await tokens.get();
      const answer = await exchange(path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          // Sonatel's gateway wants it on GETs too (415 without it, per public clients).
          'content-type': 'application/json',
          ...options.headers,
        },
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
        ...(options.signal && { signal: options.signal }),
      });
      if (answer.status !== 401) return answer;
      tokens.invalidate(token);
      if (attempt >= 2) throw new ProviderUnavailable('Orange Money refused a fresh access token (401)', 401);
    }
  };

  /** A 2xx answer's body, else ProviderUnavailable (unknown for the flow). */
  const ok = (answer: { status: number; body: unknown }, what: string): unknown => {
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    throw new ProviderUnavailable(`${what}: ${describe(answer.status, answer.body)}`, answer.status);
  };

  // -------------------------------------------------------------------------------------------
  // Searching Orange's books by our reference

  const search = async (query: Record<string, string>, signal?: AbortSignal): Promise<OmTransaction[]> => {
    const answer = await api('GET', `/api/eWallet/v1/transactions?${new URLSearchParams(query)}`, { ...(signal && { signal }) });
    return transactionsOf(ok(answer, 'Orange Money transaction search'));
  };

  /** Every transaction Orange keeps under our reference for `kind` (the type filter is applied here). */
  const findByReference = async (kind: Kind, reference: string): Promise<OmTransaction[]> => {
    const orangeReference = orangeReferenceOf(kind, reference);
    const found: OmTransaction[] = [];
    for (let page = 0; page < STATUS_SEARCH_PAGES; page += 1) {
      const batch = await search({ reference: orangeReference, page: String(page), size: String(SEARCH_PAGE_SIZE) });
      // Filtered again here: a search that widened its filter must never settle another operation.
      found.push(...batch.filter((item) => carriesReference(item, orangeReference) && item.type === ORANGE_TYPE[kind]));
      if (batch.length < SEARCH_PAGE_SIZE) break;
    }
    return found;
  };

  /** The `kind` transactions since `since` whose metadata carries our reference (bounded pages). */
  const findInMetadataSince = async (kind: Kind, reference: string, since: Date): Promise<OmTransaction[]> => {
    const orangeReference = orangeReferenceOf(kind, reference);
    const at = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    const period = {
      type: ORANGE_TYPE[kind],
      fromDateTime: at(since.getTime() - QR_EXPIRY_GRACE_SECONDS * 1000),
      toDateTime: at(now() + QR_EXPIRY_GRACE_SECONDS * 1000),
    };
    const found: OmTransaction[] = [];
    for (let page = 0; page < STATUS_SEARCH_PAGES; page += 1) {
      const batch = await search({ ...period, page: String(page), size: String(SEARCH_PAGE_SIZE) });
      found.push(...batch.filter((item) => item.metadata?.[METADATA_REFERENCE] === orangeReference && item.type === ORANGE_TYPE[kind]));
      if (batch.length < SEARCH_PAGE_SIZE) break;
    }
    return found;
  };

  /** One answer from all of an operation's transactions: a success wins, then work in progress. */
  const statusFrom = (found: OmTransaction[], notFound: string): ProviderStatusAnswer => {
    const succeeded = found.find((item) => SUCCEEDED.has(item.status));
    if (succeeded) return { status: 'succeeded', providerReference: succeeded.transactionId };
    const working = found.find((item) => !FAILED.has(item.status));
    if (working) return { status: 'processing', providerReference: working.transactionId, reason: `Orange Money status ${working.status}` };
    const failed = found[0];
    if (failed) return { status: 'failed', providerReference: failed.transactionId, reason: reasonOf(failed) };
    return { status: 'not_found', providerReference: '', reason: notFound };
  };

  // -------------------------------------------------------------------------------------------
  // Cash in (payouts and refunds)

  // A failed fetch is not kept: the next cash in asks again.
  const partnerPublicKey = loadOnce(async (signal?: AbortSignal): Promise<string> => {
    const body = ok(await api('GET', '/api/account/v1/publicKeys', { ...(signal && { signal }) }), 'Orange Money public key') as { key?: unknown };
    if (typeof body?.key !== 'string') throw new ProviderUnavailable('Orange Money gave no public key');
    return pemOf(body.key);
  });

  const cashIn = async (kind: 'refund' | 'payout', request: ProviderRequest, msisdn: string, metadata?: Record<string, string>): Promise<ProviderAnswer> => {
    const partner = settings.partner;
    if (!partner)
      return {
        status: 'failed',
        providerReference: '',
        reason: 'Orange Money cash in is not configured (ORANGE_MONEY_PARTNER_MSISDN / _PIN): nothing was sent',
      };
    const key = await partnerPublicKey(request.signal);
    // PKCS#1 v1.5, as Sonatel's documentation and clients encrypt the PIN.
    const encryptedPinCode = publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(partner.pin, 'utf8')).toString('base64');
    const answer = await api('POST', '/api/eWallet/v1/cashins', {
      body: {
        partner: { idType: 'MSISDN', id: partner.msisdn, encryptedPinCode },
        customer: { idType: 'MSISDN', id: msisdn, walletType: 'PRINCIPAL' },
        amount: { unit: 'XOF', value: Number(request.amount) },
        reference: orangeReferenceOf(kind, request.reference),
        receiveNotification: true,
        requestDate: new Date(now()).toISOString(),
        ...(metadata && { metadata }),
      },
      ...(request.signal && { signal: request.signal }),
    });
    // 4003: the PIN was encrypted with a key Orange has since revoked; the next cash in fetches the new one.
    if ((answer.body as { code?: unknown } | undefined)?.code === '4003') partnerPublicKey.forget();
    // Refused (a 4xx: Orange read the request and did nothing; e.g. code 2000, no such account): a
    // definite failure with its reason, funds returned. A 409 could mean the reference exists: unknown.
    if (answer.refused && answer.status !== 409) return { status: 'failed', providerReference: '', reason: orangeRefusalReason(answer.status, answer.body) };
    const body = ok(answer, `Orange Money cash in (${kind})`);
    if (!isTransaction(body)) throw new ProviderUnavailable(`Orange Money answered a cash in (${kind}) we cannot read`);
    const status = statusOf(body.status);
    if (status === 'succeeded') return { status: 'succeeded', providerReference: body.transactionId };
    if (status === 'failed') return { status: 'failed', providerReference: body.transactionId, reason: reasonOf(body) };
    return { status: 'pending', providerReference: body.transactionId, reason: `Orange Money status ${body.status}` };
  };

  /**
   * The wallet that paid a payment (Orange's record of it, else the phone given at checkout) and
   * our reference of that payment (the attempt id), which the refund carries in its metadata so
   * that reconciliation files the refund under the payment it returns.
   */
  const paymentRefunded = async (request: ProviderRequest): Promise<{ msisdn: string | undefined; attemptId?: string }> => {
    if (request.paymentReference) {
      const [payment] = (await search({ transactionId: request.paymentReference }, request.signal)).filter(
        (item) => item.transactionId === request.paymentReference && item.type === 'MERCHANT_PAYMENT' && SUCCEEDED.has(item.status),
      );
      const payer = payment?.customer?.id;
      const attemptId = payment && ourReferenceOf(payment)?.reference;
      const payerMsisdn = payer && senegalMsisdn(payer);
      if (payerMsisdn) return { msisdn: payerMsisdn, ...(attemptId && { attemptId }) };
    }
    return { msisdn: senegalMsisdn(request.phone) };
  };

  // -------------------------------------------------------------------------------------------
  // Callbacks

  const verify = (input: InboundNotification): void => {
    if (!settings.webhookSecret && !settings.callbackApiKey)
      throw new NotificationRejected('Orange Money callbacks are refused: neither ORANGE_MONEY_WEBHOOK_SECRET nor ORANGE_MONEY_CALLBACK_API_KEY is set');
    if (settings.webhookSecret) verifySignature(settings.webhookSecret, input, now());
    if (settings.callbackApiKey && !sameSecret(header(input.headers, 'authorization') ?? '', `Basic ${settings.callbackApiKey}`)) {
      throw new NotificationRejected('Orange Money callback without the registered apiKey');
    }
  };

  const parseNotification = (input: InboundNotification): ProviderNotification[] => {
    verify(input);
    let body: unknown;
    try {
      body = JSON.parse(input.rawBody.toString('utf8'));
    } catch {
      throw new NotificationRejected('Orange Money callback is not JSON', 400);
    }
    if (!isTransaction(body)) throw new NotificationRejected('Orange Money callback is not a transaction', 400);
    const ours = ourReferenceOf(body);
    // Not one of ours (a payment made at the counter, another application's cash in): nothing to settle.
    if (!ours) return [];
    const eventId = header(input.headers, 'x-sonatel-idempotency-key') ?? `${body.transactionId}:${body.status}`;
    const status = statusOf(body.status);
    return [
      {
        kind: ours.kind,
        reference: ours.reference,
        status,
        providerReference: body.transactionId,
        eventId,
        amount: BigInt(body.amount.value),
        ...(status === 'failed' && { reason: reasonOf(body) }),
      },
    ];
  };

  // -------------------------------------------------------------------------------------------
  // The port

  /** Nothing reached Orange (connection refused, rate limited past the deadline): a failure of its kind, nothing was done. */
  const unlessNotSent = async (send: () => Promise<ProviderAnswer>): Promise<ProviderAnswer> => {
    try {
      return await send();
    } catch (error) {
      if (error instanceof ProviderUnreachable) return { status: 'failed', providerReference: '', reason: error.message, unavailable: true };
      throw error;
    }
  };

  const port: OrangeMoneyProvider = {
    health: () => transport.health.state(),
    async collect(request) {
      const body = {
        code: settings.merchantCode,
        name: settings.merchantName,
        amount: { unit: 'XOF', value: Number(request.amount) },
        validity: settings.qrValiditySeconds,
        reference: orangeReferenceOf('payment', request.reference),
        // Also in metadata: a payment record carries the QR code's metadata, whatever it does with `reference`.
        metadata: { [METADATA_REFERENCE]: orangeReferenceOf('payment', request.reference) },
        // One payment per QR code: a second scan must not take the money twice.
        restrictions: { isSingleUse: true },
        ...(request.returnUrls && { callbackSuccessUrl: request.returnUrls.success, callbackCancelUrl: request.returnUrls.error }),
      };
      const answer = await api('POST', '/api/eWallet/v4/qrcode', {
        body,
        ...(settings.callbackUrl && { headers: { 'x-callback-url': settings.callbackUrl } }),
        ...(request.signal && { signal: request.signal }),
      });
      const qr = ok(answer, 'Orange Money QR code') as
        | { qrId?: unknown; deepLink?: unknown; deepLinks?: { MAXIT?: unknown; OM?: unknown }; shortLink?: unknown }
        | undefined;
      const link = [qr?.deepLinks?.MAXIT, qr?.deepLink, qr?.shortLink, qr?.deepLinks?.OM].find(
        (item): item is string => typeof item === 'string' && /^https:\/\//.test(item),
      );
      if (!link) throw new ProviderUnavailable('Orange Money answered a QR code without a link to send the customer to');
      return {
        status: 'pending',
        providerReference: typeof qr?.qrId === 'string' ? qr.qrId : '',
        redirectUrl: link,
        reason: 'waiting for the customer to pay in the Orange Money app',
      };
    },
    async collectStatus(reference, _method, openedAt?: Date) {
      const found = await findByReference('payment', reference);
      // Not found under `reference`: Orange may keep it only in the payment's metadata, which the
      // search cannot filter on; the payments since the QR code was made are read instead.
      if (!found.length && openedAt) found.push(...(await findInMetadataSince('payment', reference, openedAt)));
      const answer = statusFrom(found, 'Orange Money has no payment with this reference (the customer has not paid)');
      if (answer.status !== 'not_found') return answer;
      // Orange keeps no record of an unpaid QR code: only its age tells "still payable" from "expired".
      const payableUntil = openedAt ? openedAt.getTime() + (settings.qrValiditySeconds + QR_EXPIRY_GRACE_SECONDS) * 1000 : undefined;
      if (payableUntil !== undefined && now() > payableUntil)
        return { status: 'pending', providerReference: '', reason: 'the Orange Money QR code expired unpaid' };
      return { status: 'processing', providerReference: '', reason: 'waiting for the customer to pay in the Orange Money app' };
    },
    async refund(request) {
      const { msisdn, attemptId } = await paymentRefunded(request);
      if (!msisdn)
        return { status: 'failed', providerReference: '', reason: 'the payer is not an Orange Money Senegal wallet (+221 7X XXX XX XX): nothing was sent' };
      return cashIn('refund', request, msisdn, attemptId ? { [REFUND_OF]: attemptId } : undefined);
    },
    async refundStatus(reference) {
      return statusFrom(await findByReference('refund', reference), 'Orange Money has no refund (cash in) with this reference');
    },
    async payout(request) {
      const msisdn = senegalMsisdn(request.phone);
      if (!msisdn)
        return { status: 'failed', providerReference: '', reason: 'the recipient is not an Orange Money Senegal wallet (+221 7X XXX XX XX): nothing was sent' };
      return cashIn('payout', request, msisdn);
    },
    async payoutStatus(reference) {
      return statusFrom(await findByReference('payout', reference), 'Orange Money has no payout (cash in) with this reference');
    },
    parseNotification,
    async listRecords({ from, to, signal }) {
      const items: OmTransaction[] = [];
      // Orange reads these to the second, as Senegal time (UTC): widened to whole seconds, not narrowed.
      const at = (ms: number) => new Date(ms).toISOString().slice(0, 19);
      const period = { fromDateTime: at(Math.floor(from.getTime() / 1000) * 1000), toDateTime: at(Math.ceil(to.getTime() / 1000) * 1000) };
      for (let page = 0; ; page += 1) {
        if (page >= HISTORY_PAGES)
          throw new ProviderUnavailable(`Orange Money holds more than ${HISTORY_PAGES * SEARCH_PAGE_SIZE} records in this period: reconcile a shorter one`);
        const batch = await search({ ...period, page: String(page), size: String(SEARCH_PAGE_SIZE) }, signal);
        items.push(...batch);
        // What each record is: records/orangeMoney.ts.
        if (batch.length < SEARCH_PAGE_SIZE) return providerRecordsOf(items, from);
      }
    },
  };
  return {
    ...port,
    collect: (request) => unlessNotSent(() => port.collect(request)),
    refund: (request) => unlessNotSent(() => port.refund(request)),
    payout: (request) => unlessNotSent(() => port.payout(request)),
  };
}

/** X-Sonatel-Signature: t=<unix>,v1=<hex>[,v1=<hex>] (several during a secret rotation). */
function verifySignature(secret: string, input: InboundNotification, nowMs: number): void {
  const value = header(input.headers, 'x-sonatel-signature');
  if (!value) throw new NotificationRejected('Orange Money callback without X-Sonatel-Signature');
  let timestamp: number | undefined;
  const digests: string[] = [];
  for (const part of value.split(',')) {
    const [key, ...rest] = part.trim().split('=');
    const item = rest.join('=');
    if (key === 't' && /^\d{1,12}$/.test(item)) timestamp = Number(item);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(item)) digests.push(item.toLowerCase());
  }
  if (timestamp === undefined || digests.length === 0) throw new NotificationRejected('Orange Money callback with a malformed X-Sonatel-Signature');
  if (Math.abs(nowMs / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS) throw new NotificationRejected('Orange Money callback signed too long ago (a replay?)');
  const expected = createHmac('sha256', secret).update(`${timestamp},`).update(input.rawBody).digest();
  if (!digests.some((digest) => timingSafeEqual(Buffer.from(digest, 'hex'), expected)))
    throw new NotificationRejected('Orange Money callback signature does not match');
}
