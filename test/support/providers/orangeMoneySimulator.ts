/**
 * A simulator of Sonatel's Orange Money API (Senegal, XOF): a real HTTP server on 127.0.0.1 that
 * the Orange Money connector (src/infra/providers/orangeMoney.ts) talks to exactly as it talks to
 * https://api.orange-sonatel.com. Built from the public documentation and the public clients that
 * follow it:
 *
 *   - https://developer.orange-sonatel.com/dev/docs/orange-money — OpenAPI "Orange Money API" v1.1.0:
 *     POST /oauth/v1/token (OAuth2 client credentials, form-encoded), GET /api/account/v1/publicKeys
 *     (RSA key that encrypts the partner PIN), POST /api/eWallet/v4/qrcode (merchant payment by QR
 *     code / deep links), POST /api/eWallet/v1/cashins (cash in: the partner wallet credits a
 *     customer), GET /api/eWallet/v1/transactions (search by reference, transactionId, status,
 *     type, fromDateTime/toDateTime, page/size), GET /api/eWallet/v1/transactions/{id}/status,
 *     POST|GET /api/notification/v1/merchantcallback (the merchant's callback URL and apiKey);
 *     transaction statuses ACCEPTED, CANCELLED, FAILED, INITIATED, PENDING, PRE_INITIATED,
 *     REJECTED, SUCCESS (final status guaranteed within 24 h); errors as application/problem+json.
 *   - https://developer.orange-sonatel.com/qr-code — the QR code product page and its Postman
 *     collection: body {code, name, amount{unit,value}, validity, reference, metadata,
 *     callbackSuccessUrl, callbackCancelUrl, restrictions}, answer {qrId, qrCode, deepLink,
 *     deepLinks{MAXIT,OM}, shortLink, validity, metadata}; header X-Callback-Url overrides the
 *     registered callback for one request.
 *   - https://beta.developer.orange-sonatel.com/cash-in — the Cash In product page: a distributor
 *     deposits a defined amount into a customer's wallet.
 *   - https://developer.orange-sonatel.com/documentation — callbacks: POSTed JSON of the transaction
 *     (transactionId, reference, type, status, amount, partner, customer, channel, metadata),
 *     signed `X-Sonatel-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>,<raw body>")>`, one
 *     `X-Sonatel-Idempotency-Key` per event (the same on every redelivery), `Authorization: Basic
 *     <apiKey>` when an apiKey was registered; delivered at least once: a timeout or 5xx is retried,
 *     a 4xx is final.
 *
 * Where the documentation is silent the simulator takes the answer that is hardest on a client:
 *   - a cash in is NOT de-duplicated on `reference` (nothing documents it): sending one twice pays
 *     twice, and `cashinCalls(reference)` lets a test prove the connector sent it once;
 *   - access tokens expire after `tokenTtlSeconds` (production announces 299 s) and any call with
 *     an expired or unknown token answers 401 `invalid_token` without doing anything;
 *   - request bodies are checked field by field: an unknown field, a wrong type, a non-integer XOF
 *     amount or a number that is not a Senegal mobile MSISDN is a 400 problem.
 *
 * Numbers (Sonatel's formats): the API names a wallet by `idType: MSISDN` and its `id`, the national
 * number without the country code (the OpenAPI's examples and the public clients: 9 digits,
 * `77xxxxxxx`), in Senegal's numbering plan (ARTP): 9 digits, mobiles starting with 7 (70, 75, 76,
 * 77, 78). `+221…`, `00221…`, a fixed line (`33…`) or another length is a 400 problem (code 4000),
 * for the customer of a cash in and for the distributor (partner) alike.
 *
 * Bookkeeping (the records GET /api/eWallet/v1/transactions answers): a QR-code payment record
 * carries the QR code's metadata (the QR-code page: the answer and the records echo `metadata`);
 * where it carries the QR code's `reference` is not documented, so `books.paymentReferenceIn`
 * chooses: `reference` (the record's own field, the default) or `metadata` (the record's
 * `reference` is empty; the QR code's reference is in `metadata.reference`, and a search by
 * `reference` does not find it). A connector must find its payments either way.
 *
 * Refusals (issue 28 part A): a cash in to an MSISDN that has no Orange Money account is refused with
 * business code 2000 "customer account does not exist" (the code of Sonatel's error list the issue's
 * probe met; the HTTP status is not documented: 400 problem+json, as the API's other request refusals),
 * and nothing is recorded (`unknownWallet`).
 *
 * Tests drive the customer (`pay`, `decline`), the wallets (`blockWallet`, `holdWallet`), and the
 * faults (`fault(route, ...)`: fail, slow, hang, lose the call, lose the answer; notifications
 * duplicated, delayed, lost, replayed). `transactions()` are the provider's own records.
 */
import { constants, createHmac, generateKeyPairSync, privateDecrypt, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type OmStatus = 'ACCEPTED' | 'CANCELLED' | 'FAILED' | 'INITIATED' | 'PENDING' | 'PRE_INITIATED' | 'REJECTED' | 'SUCCESS';
type OmTransactionType = 'MERCHANT_PAYMENT' | 'CASHIN';

interface OmTransaction {
  transactionId: string;
  /** '' on a payment record when the simulator keeps the reference in metadata (`books.paymentReferenceIn`). */
  reference: string;
  type: OmTransactionType;
  status: OmStatus;
  amount: { value: number; unit: 'XOF' };
  partner: { idType: 'MSISDN' | 'CODE'; id: string };
  customer: { idType: 'MSISDN'; id: string };
  channel: 'API';
  paymentMethod?: 'QRCODE';
  metadata?: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  /** Why it failed (simulator's own words; the real API gives a description). */
  description?: string;
}

interface OmQrCode {
  qrId: string;
  reference: string | undefined;
  amount: number;
  metadata: Record<string, string> | undefined;
  expiresAt: number;
  singleUse: boolean;
  used: boolean;
  callbackUrl: string | undefined;
  callbackSuccessUrl: string | undefined;
  callbackCancelUrl: string | undefined;
}

type OmRoute = 'token' | 'publicKeys' | 'qrcode' | 'cashin' | 'transactions' | 'status' | 'merchantcallback';

/**
 * fail: answer `status` without acting. slow: act, answer after `delayMs`. hang: act, never answer
 * (the client times out). dropRequest: close the connection without acting (the call is lost).
 * dropAnswer: act, then close the connection (the answer is lost).
 */
type OmFault =
  | { kind: 'fail'; status: number; body?: unknown }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'hang' }
  | { kind: 'dropRequest' }
  | { kind: 'dropAnswer' };

interface SentNotification {
  eventId: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  /** HTTP status the receiver answered (0: no answer). */
  answeredStatus: number;
  at: number;
}

export interface OrangeMoneySimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  merchantCode?: string;
  /** The distributor (retailer) wallet that funds cash ins, and its PIN. */
  partnerMsisdn?: string;
  partnerPin?: string;
  partnerBalance?: number;
  /** Lifetime of an access token (production: 299 s). */
  tokenTtlSeconds?: number;
  /** HMAC key of X-Sonatel-Signature (the partner endpoint secret). */
  webhookSecret?: string;
  /** A callback registered beforehand (what POST /api/notification/v1/merchantcallback records). */
  callback?: { url: string; apiKey?: string };
  /** Pauses before redelivering a notification that got no 2xx (default 200, 1000, 3000 ms). */
  notificationRetryDelaysMs?: number[];
}

export interface OrangeMoneySimulator {
  url: string;
  clientId: string;
  clientSecret: string;
  merchantCode: string;
  partnerMsisdn: string;
  partnerPin: string;
  webhookSecret: string;
  /** Requests received per route (every request, answered or not). */
  calls: Record<OmRoute, number>;
  /** The provider's own books. */
  transactions(): OmTransaction[];
  qrCodes(): OmQrCode[];
  /** How many cash-in requests carried `reference` (a connector must send each once). */
  cashinCalls(reference: string): number;
  partnerBalance(): number;
  /** The next `times` requests on `route` meet `fault`. */
  fault(route: OmRoute, fault: OmFault, times?: number): void;
  clearFaults(): void;
  /** Revokes every access token issued so far (the next call with one gets 401). */
  expireTokens(): void;
  tokensIssued(): number;
  /** The customer pays the newest QR code carrying `reference` (or with that qrId) from `msisdn`. */
  pay(referenceOrQrId: string, msisdn?: string): Promise<OmTransaction>;
  /** The customer refuses (wrong PIN, cancels in the app): a FAILED merchant payment. */
  decline(referenceOrQrId: string, msisdn?: string): Promise<OmTransaction>;
  /** Cash ins to this wallet fail (the wallet cannot receive). */
  blockWallet(msisdn: string): void;
  /** No Orange Money account has this MSISDN: a cash in to it is refused (code 2000), nothing recorded. */
  unknownWallet(msisdn: string): void;
  /** Cash ins to this wallet stay PENDING until `settle`. */
  holdWallet(msisdn: string): void;
  /** Moves a PENDING transaction to its final status (and notifies). */
  settle(transactionId: string, status: 'SUCCESS' | 'FAILED'): Promise<OmTransaction>;
  /** Bookkeeping choices where the documentation is silent (see the header). */
  books: { paymentReferenceIn: 'reference' | 'metadata' };
  /** Makes Orange's books disagree with the gateway's: a record's amount or status changed at Orange. */
  alterRecord(transactionId: string, change: { amount?: number; status?: OmStatus }): void;
  /** A record missing from Orange's books. */
  removeRecord(transactionId: string): void;
  /** Notification behaviour: duplicates of each, delay before sending, how many to lose. */
  notifications: { duplicates: number; delayMs: number; lose: number; paused: boolean };
  sentNotifications(): SentNotification[];
  /** Sends a transaction's notification again, as a redelivery would (same event id). */
  redeliver(transactionId: string): Promise<void>;
  /** Every notification delivery attempted so far has finished (answered, lost or given up). */
  notificationsSettled(): Promise<void>;
  close(): Promise<void>;
}

/** Bounds of the documented fields (the simulator refuses what the real API would). */
const MAX_QR_VALIDITY_SECONDS = 86_400;
const MAX_METADATA_KEYS = 10;
const MAX_PAGE_SIZE = 100;
const MAX_BODY_BYTES = 64 * 1024;
/** A Senegal mobile number as Sonatel's API takes it (the header's "Numbers"). */
const MSISDN = /^7[05-8]\d{7}$/;
const REFERENCE = /^[\w.:-]{1,64}$/;

type Json = Record<string, unknown>;

class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function onlyFields(body: Json, allowed: string[], where: string): void {
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length) throw new Problem(400, '4000', `${where}: unknown field(s) ${unknown.join(', ')}`);
}

function requireObject(value: unknown, where: string): Json {
  if (!isObject(value)) throw new Problem(400, '4000', `${where} must be an object`);
  return value;
}

function requireString(value: unknown, where: string, pattern?: RegExp): string {
  if (typeof value !== 'string' || value === '' || (pattern && !pattern.test(value))) throw new Problem(400, '4000', `${where} is missing or invalid`);
  return value;
}

function xofAmount(value: unknown, where: string): number {
  const amount = requireObject(value, where);
  onlyFields(amount, ['unit', 'value'], where);
  if (amount.unit !== 'XOF') throw new Problem(400, '4000', `${where}.unit must be XOF`);
  if (typeof amount.value !== 'number' || !Number.isSafeInteger(amount.value) || amount.value <= 0)
    throw new Problem(400, '4000', `${where}.value must be a positive integer`);
  return amount.value;
}

function metadataOf(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const metadata = requireObject(value, 'metadata');
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_KEYS || entries.some(([, item]) => typeof item !== 'string')) {
    throw new Problem(400, '4000', `metadata takes at most ${MAX_METADATA_KEYS} string values`);
  }
  return metadata as Record<string, string>;
}

function optionalUrl(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^https?:\/\//.test(value)) throw new Problem(400, '4000', `${where} must be a URL`);
  return value;
}

/** Removes PKCS#1 v1.5 type-2 padding (Node 20 refuses that padding in privateDecrypt). */
function unpadPkcs1(block: Buffer): Buffer {
  if (block[0] !== 0 || block[1] !== 2) throw new Error('bad padding');
  const separator = block.indexOf(0, 2);
  if (separator < 10) throw new Error('bad padding');
  return block.subarray(separator + 1);
}

function decryptPin(privateKey: KeyObject, encrypted: string): string {
  const block = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, Buffer.from(encrypted, 'base64'));
  return unpadPkcs1(block).toString('utf8');
}

/** MP220928.1029.C58502-like ids: type prefix, date, time, random. */
function transactionIdFor(type: OmTransactionType): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${String(now.getUTCFullYear()).slice(2)}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`;
  return `${type === 'CASHIN' ? 'CI' : 'MP'}${date}.${time}.${randomBytes(3).toString('hex').toUpperCase()}`;
}

/** fromDateTime / toDateTime: ISO date-time, with or without a zone (Senegal is UTC). */
function dateParam(value: string | null, name: string): number | undefined {
  if (value === null) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.test(value)) throw new Problem(400, '4000', `${name} must be a date-time`);
  const at = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(at)) throw new Problem(400, '4000', `${name} must be a date-time`);
  return at;
}

function intParam(value: string | null, name: string, fallback: number, min: number, max: number): number {
  if (value === null) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) throw new Problem(400, '4000', `${name} must be an integer from ${min} to ${max}`);
  return parsed;
}

export function signOrangeMoneyNotification(secret: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const digest = createHmac('sha256', secret).update(`${timestamp},`).update(rawBody).digest('hex');
  return `t=${timestamp},v1=${digest}`;
}

/**
 * The RSA key pair whose public half GET /api/account/v1/publicKeys hands out, to encrypt the
 * partner PIN: one per test worker (a module's state; the workers are threads). The OpenAPI
 * (v1.1.0) gives that endpoint no argument naming a partner and says nothing of rotation, and no
 * test needs two simulators to hold different keys. Generating a 2048-bit pair costs ~0.1-0.3 s
 * of CPU, which every simulator start paid.
 */
let pinKey: { publicKey: KeyObject; privateKey: KeyObject } | undefined;
const sonatelPinKey = () => (pinKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }));

export async function startOrangeMoneySimulator(options: OrangeMoneySimulatorOptions = {}): Promise<OrangeMoneySimulator> {
  const clientId = options.clientId ?? `om-client-${randomUUID()}`;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const merchantCode = options.merchantCode ?? '478209';
  const partnerMsisdn = options.partnerMsisdn ?? '771234567';
  const partnerPin = options.partnerPin ?? '2468';
  const webhookSecret = options.webhookSecret ?? randomBytes(32).toString('hex');
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 299;
  const retryDelays = options.notificationRetryDelaysMs ?? [200, 1_000, 3_000];
  const { publicKey, privateKey } = sonatelPinKey();
  const keyId = randomUUID();

  const tokens = new Map<string, number>();
  let tokensIssued = 0;
  let balance = options.partnerBalance ?? 100_000_000;
  const transactions: OmTransaction[] = [];
  const qrCodes: OmQrCode[] = [];
  const cashinCounts = new Map<string, number>();
  const blocked = new Set<string>();
  // ---- issue 28 part A: refusals ----
  const unknownWallets = new Set<string>();
  // ---- end ----
  const held = new Set<string>();
  const callbacks = new Map<string, { url: string; apiKey?: string; name: string }>();
  if (options.callback) callbacks.set(merchantCode, { ...options.callback, name: 'preregistered' });
  const faults = new Map<OmRoute, { fault: OmFault; left: number }[]>();
  const calls: Record<OmRoute, number> = { token: 0, publicKeys: 0, qrcode: 0, cashin: 0, transactions: 0, status: 0, merchantcallback: 0 };
  const sent: SentNotification[] = [];
  const eventIds = new Map<string, string>();
  const inFlight = new Set<Promise<void>>();
  const notifications = { duplicates: 0, delayMs: 0, lose: 0, paused: false };
  // Bookkeeping: where a payment record carries the QR code's reference (the header says why both).
  const books: { paymentReferenceIn: 'reference' | 'metadata' } = { paymentReferenceIn: 'reference' };
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const takeFault = (route: OmRoute): OmFault | undefined => {
    const queue = faults.get(route);
    const head = queue?.[0];
    if (!head) return undefined;
    head.left -= 1;
    if (head.left <= 0) queue.shift();
    return head.fault;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  // ---------------------------------------------------------------------------------------------
  // Notifications (at least once; 4xx final, 5xx / no answer retried)

  const notificationTarget = (qr?: OmQrCode) => {
    const registered = callbacks.get(merchantCode);
    return { url: qr?.callbackUrl ?? registered?.url, apiKey: registered?.apiKey };
  };

  const deliverOnce = async (url: string, body: string, headers: Record<string, string>, eventId: string): Promise<number> => {
    const record: SentNotification = { eventId, url, body, headers, answeredStatus: 0, at: Date.now() };
    sent.push(record);
    try {
      const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer().catch(() => undefined);
      record.answeredStatus = response.status;
    } catch {
      record.answeredStatus = 0;
    }
    return record.answeredStatus;
  };

  const deliver = async (transaction: OmTransaction, qr?: OmQrCode): Promise<void> => {
    const { url, apiKey } = notificationTarget(qr);
    if (!url) return;
    const eventKey = `${transaction.transactionId}:${transaction.status}`;
    const eventId = eventIds.get(eventKey) ?? randomUUID();
    eventIds.set(eventKey, eventId);
    const body = JSON.stringify(transaction);
    const headersNow = (): Record<string, string> => ({
      'content-type': 'application/json',
      'x-sonatel-signature': signOrangeMoneyNotification(webhookSecret, body),
      'x-sonatel-idempotency-key': eventId,
      ...(apiKey && { authorization: `Basic ${apiKey}` }),
    });
    for (let attempt = 0; attempt <= retryDelays.length && !closed; attempt += 1) {
      const status = await deliverOnce(url, body, headersNow(), eventId);
      if (status >= 200 && status < 500) return;
      await sleep(retryDelays[attempt] ?? 0);
    }
  };

  const notify = (transaction: OmTransaction, qr?: OmQrCode): void => {
    if (closed || notifications.paused) return;
    if (notifications.lose > 0) {
      notifications.lose -= 1;
      return;
    }
    const snapshot = structuredClone(transaction);
    const copies = 1 + notifications.duplicates;
    const run = (async () => {
      if (notifications.delayMs) await sleep(notifications.delayMs);
      await Promise.all(Array.from({ length: copies }, () => deliver(snapshot, qr)));
    })();
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  };

  // ---------------------------------------------------------------------------------------------
  // The books

  const record = (transaction: Omit<OmTransaction, 'transactionId' | 'createdAt' | 'updatedAt' | 'channel'>): OmTransaction => {
    const at = new Date().toISOString();
    const created: OmTransaction = { transactionId: transactionIdFor(transaction.type), channel: 'API', createdAt: at, updatedAt: at, ...transaction };
    transactions.push(created);
    return created;
  };

  const findQr = (referenceOrQrId: string): OmQrCode => {
    const qr = [...qrCodes].reverse().find((code) => code.qrId === referenceOrQrId || code.reference === referenceOrQrId);
    if (!qr) throw new Error(`no QR code for ${referenceOrQrId}`);
    return qr;
  };

  const customerPays = async (referenceOrQrId: string, msisdn: string, refuses: boolean): Promise<OmTransaction> => {
    const qr = findQr(referenceOrQrId);
    if (qr.expiresAt < Date.now()) throw new Error('the QR code has expired (code 4004)');
    if (qr.singleUse && qr.used) throw new Error('the QR code was already used');
    if (!refuses) qr.used = true;
    // ---- bookkeeping: the reference in `reference`, or only in metadata (books.paymentReferenceIn)
    const inMetadata = books.paymentReferenceIn === 'metadata' && qr.reference !== undefined;
    const transaction = record({
      reference: inMetadata ? '' : (qr.reference ?? ''),
      type: 'MERCHANT_PAYMENT',
      status: refuses ? 'FAILED' : 'SUCCESS',
      amount: { value: qr.amount, unit: 'XOF' },
      partner: { idType: 'CODE', id: merchantCode },
      customer: { idType: 'MSISDN', id: msisdn },
      paymentMethod: 'QRCODE',
      ...((qr.metadata || inMetadata) && { metadata: { ...qr.metadata, ...(inMetadata && { reference: qr.reference! }) } }),
      ...(refuses && { description: 'the customer did not confirm the payment' }),
    });
    if (!refuses) balance += qr.amount;
    notify(transaction, qr);
    return structuredClone(transaction);
  };

  // ---------------------------------------------------------------------------------------------
  // Routes

  const bearer = (request: IncomingMessage): void => {
    const header = request.headers.authorization ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1];
    const expiresAt = token === undefined ? undefined : tokens.get(token);
    if (expiresAt === undefined || expiresAt <= Date.now()) throw new Problem(401, 'invalid_token', 'the access token is missing, invalid or expired');
  };

  const issueToken = (request: IncomingMessage, raw: string): Json => {
    if (!(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      throw new Problem(415, '4150', 'Content-Type must be application/x-www-form-urlencoded');
    const form = new URLSearchParams(raw);
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (basic) [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':') as [string, string];
    if (form.get('grant_type') !== 'client_credentials') throw new Problem(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    if (id !== clientId || secret !== clientSecret) throw new Problem(401, 'invalid_client', 'Invalid client credentials');
    const token = randomBytes(32).toString('base64url');
    tokens.set(token, Date.now() + tokenTtlSeconds * 1000);
    tokensIssued += 1;
    return { access_token: token, token_type: 'Bearer', expires_in: tokenTtlSeconds, refresh_expires_in: 0, scope: 'email profile' };
  };

  const createQrCode = (request: IncomingMessage, body: Json): Json => {
    onlyFields(body, ['code', 'name', 'amount', 'validity', 'reference', 'metadata', 'callbackSuccessUrl', 'callbackCancelUrl', 'restrictions'], 'qrcode');
    if (requireString(body.code, 'code', /^\d{6}$/) !== merchantCode) throw new Problem(403, '4030', 'code is not a merchant code of this application');
    requireString(body.name, 'name');
    const amount = xofAmount(body.amount, 'amount');
    const validity = body.validity ?? 300;
    if (typeof validity !== 'number' || !Number.isSafeInteger(validity) || validity < 1 || validity > MAX_QR_VALIDITY_SECONDS)
      throw new Problem(400, '4000', `validity must be 1 to ${MAX_QR_VALIDITY_SECONDS} seconds`);
    const reference = body.reference === undefined ? undefined : requireString(body.reference, 'reference', REFERENCE);
    const restrictions = body.restrictions === undefined ? {} : requireObject(body.restrictions, 'restrictions');
    onlyFields(restrictions, ['isSingleUse', 'minAmount', 'maxAmount', 'allowedMsisdns'], 'restrictions');
    if (restrictions.isSingleUse !== undefined && typeof restrictions.isSingleUse !== 'boolean')
      throw new Problem(400, '4000', 'restrictions.isSingleUse must be a boolean');
    const callbackHeader = request.headers['x-callback-url'];
    const qr: OmQrCode = {
      qrId: randomUUID(),
      reference,
      amount,
      metadata: metadataOf(body.metadata),
      expiresAt: Date.now() + validity * 1000,
      singleUse: restrictions.isSingleUse === true,
      used: false,
      callbackUrl: typeof callbackHeader === 'string' ? optionalUrl(callbackHeader, 'X-Callback-Url') : undefined,
      callbackSuccessUrl: optionalUrl(body.callbackSuccessUrl, 'callbackSuccessUrl'),
      callbackCancelUrl: optionalUrl(body.callbackCancelUrl, 'callbackCancelUrl'),
    };
    qrCodes.push(qr);
    const link = `https://sugu.orange-sonatel.com/mp/${qr.qrId}`;
    return {
      qrId: qr.qrId,
      // A 1x1 PNG stands for the QR image.
      qrCode: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      deepLink: link,
      deepLinks: { MAXIT: link, OM: `https://orangemoneysn.page.link/${qr.qrId.slice(0, 12)}` },
      shortLink: link,
      validity,
      ...(qr.metadata && { metadata: qr.metadata }),
    };
  };

  const cashIn = (body: Json): Json => {
    onlyFields(body, ['partner', 'customer', 'amount', 'reference', 'receiveNotification', 'requestDate', 'metadata'], 'cashin');
    const partner = requireObject(body.partner, 'partner');
    onlyFields(partner, ['idType', 'id', 'encryptedPinCode'], 'partner');
    if (partner.idType !== 'MSISDN' || requireString(partner.id, 'partner.id', MSISDN) !== partnerMsisdn)
      throw new Problem(403, '4030', 'partner is not the distributor of this application');
    let pin: string;
    try {
      pin = decryptPin(privateKey, requireString(partner.encryptedPinCode, 'partner.encryptedPinCode'));
    } catch (error) {
      if (error instanceof Problem) throw error;
      throw new Problem(400, '4003', 'encryptedPinCode cannot be decrypted with the current public key');
    }
    if (pin !== partnerPin) throw new Problem(403, '4031', 'invalid partner PIN');
    const customer = requireObject(body.customer, 'customer');
    onlyFields(customer, ['idType', 'id', 'walletType'], 'customer');
    if (customer.idType !== 'MSISDN') throw new Problem(400, '4000', 'customer.idType must be MSISDN');
    const msisdn = requireString(customer.id, 'customer.id', MSISDN);
    if (customer.walletType !== undefined && customer.walletType !== 'PRINCIPAL') throw new Problem(400, '4000', 'customer.walletType must be PRINCIPAL');
    const amount = xofAmount(body.amount, 'amount');
    const reference = requireString(body.reference, 'reference', REFERENCE);
    if (body.receiveNotification !== undefined && typeof body.receiveNotification !== 'boolean')
      throw new Problem(400, '4000', 'receiveNotification must be a boolean');
    if (body.requestDate !== undefined) requireString(body.requestDate, 'requestDate');
    const metadata = metadataOf(body.metadata);
    // ---- issue 28 part A: a refusal before anything is done (counted as a call, nothing recorded) ----
    if (unknownWallets.has(msisdn)) {
      cashinCounts.set(reference, (cashinCounts.get(reference) ?? 0) + 1);
      throw new Problem(400, '2000', 'customer account does not exist');
    }
    // ---- end ----
    cashinCounts.set(reference, (cashinCounts.get(reference) ?? 0) + 1);
    const failure = blocked.has(msisdn)
      ? 'the customer wallet cannot receive this deposit'
      : balance < amount
        ? 'insufficient balance on the distributor wallet'
        : undefined;
    const status: OmStatus = failure ? 'FAILED' : held.has(msisdn) ? 'PENDING' : 'SUCCESS';
    if (status !== 'FAILED') balance -= amount;
    const transaction = record({
      reference,
      type: 'CASHIN',
      status,
      amount: { value: amount, unit: 'XOF' },
      partner: { idType: 'MSISDN', id: partnerMsisdn },
      customer: { idType: 'MSISDN', id: msisdn },
      ...(metadata && { metadata }),
      ...(failure && { description: failure }),
    });
    if (status !== 'PENDING') notify(transaction);
    return structuredClone(transaction) as unknown as Json;
  };

  const search = (url: URL): OmTransaction[] => {
    const allowed = ['reference', 'transactionId', 'status', 'type', 'fromDateTime', 'toDateTime', 'page', 'size'];
    const unknown = [...url.searchParams.keys()].filter((key) => !allowed.includes(key));
    if (unknown.length) throw new Problem(400, '4000', `unknown parameter(s) ${unknown.join(', ')}`);
    const from = dateParam(url.searchParams.get('fromDateTime'), 'fromDateTime');
    const to = dateParam(url.searchParams.get('toDateTime'), 'toDateTime');
    const page = intParam(url.searchParams.get('page'), 'page', 0, 0, 100_000);
    const size = intParam(url.searchParams.get('size'), 'size', 20, 1, MAX_PAGE_SIZE);
    const wanted = (name: string, value: string) => url.searchParams.get(name) === null || url.searchParams.get(name) === value;
    const matches = transactions
      .filter((transaction) => {
        const at = Date.parse(transaction.createdAt);
        return (
          wanted('reference', transaction.reference) &&
          wanted('transactionId', transaction.transactionId) &&
          wanted('status', transaction.status) &&
          wanted('type', transaction.type) &&
          (from === undefined || at >= from) &&
          (to === undefined || at <= to)
        );
      })
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.transactionId.localeCompare(a.transactionId));
    return structuredClone(matches.slice(page * size, page * size + size));
  };

  const routeOf = (method: string, path: string): OmRoute | undefined => {
    if (method === 'POST' && path === '/oauth/v1/token') return 'token';
    if (method === 'GET' && path === '/api/account/v1/publicKeys') return 'publicKeys';
    if (method === 'POST' && path === '/api/eWallet/v4/qrcode') return 'qrcode';
    if (method === 'POST' && path === '/api/eWallet/v1/cashins') return 'cashin';
    if (method === 'GET' && path === '/api/eWallet/v1/transactions') return 'transactions';
    if (method === 'GET' && /^\/api\/eWallet\/v1\/transactions\/[^/]+\/status$/.test(path)) return 'status';
    if ((method === 'POST' || method === 'GET') && path === '/api/notification/v1/merchantcallback') return 'merchantcallback';
    return undefined;
  };

  const jsonBody = (request: IncomingMessage, raw: string): Json => {
    if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
      throw new Problem(415, '4150', "Unsupported media type, it should be 'application/json'");
    try {
      return requireObject(JSON.parse(raw), 'body');
    } catch (error) {
      if (error instanceof Problem) throw error;
      throw new Problem(400, '4000', 'the body is not JSON');
    }
  };

  const act = (route: OmRoute, request: IncomingMessage, url: URL, raw: string): { status: number; body: unknown } => {
    if (route === 'token') return { status: 200, body: issueToken(request, raw) };
    bearer(request);
    switch (route) {
      case 'publicKeys':
        return { status: 200, body: { keyId, keyType: 'RSA', keySize: 2048, key: publicKey.export({ type: 'spki', format: 'der' }).toString('base64') } };
      case 'qrcode':
        return { status: 200, body: createQrCode(request, jsonBody(request, raw)) };
      case 'cashin':
        return { status: 200, body: cashIn(jsonBody(request, raw)) };
      case 'transactions':
        return { status: 200, body: search(url) };
      case 'status': {
        const id = decodeURIComponent(url.pathname.split('/')[4] ?? '');
        const transaction = transactions.find((item) => item.transactionId === id);
        if (!transaction) throw new Problem(404, '4040', 'no transaction with this id');
        return { status: 200, body: { transactionId: id, status: transaction.status } };
      }
      case 'merchantcallback': {
        if (request.method === 'GET') {
          const code = url.searchParams.get('code') ?? '';
          const registered = callbacks.get(code);
          if (!registered) throw new Problem(404, '4040', 'no callback for this code');
          return { status: 200, body: { code, name: registered.name, callbackUrl: registered.url } };
        }
        const body = jsonBody(request, raw);
        onlyFields(body, ['apiKey', 'code', 'name', 'callbackUrl'], 'merchantcallback');
        if (requireString(body.code, 'code', /^\d{6}$/) !== merchantCode) throw new Problem(403, '4030', 'code is not a merchant code of this application');
        const callbackUrl = optionalUrl(requireString(body.callbackUrl, 'callbackUrl'), 'callbackUrl')!;
        callbacks.set(merchantCode, {
          url: callbackUrl,
          name: requireString(body.name, 'name'),
          ...(typeof body.apiKey === 'string' && { apiKey: body.apiKey }),
        });
        return { status: 201, body: { message: 'Merchant callback created' } };
      }
      default:
        throw new Problem(404, '4040', 'not found');
    }
  };

  const send = (response: ServerResponse, status: number, body: unknown) => {
    if (response.destroyed) return;
    const problem = status >= 400;
    response.writeHead(status, {
      'content-type': problem ? 'application/problem+json' : 'application/json',
      ...(status === 401 && { 'www-authenticate': 'Bearer error="invalid_token"' }),
    });
    response.end(JSON.stringify(body));
  };

  const problemBody = (problem: Problem) =>
    problem.code === 'invalid_client' || problem.code === 'unsupported_grant_type'
      ? { error: problem.code, error_description: problem.message }
      : {
          type: 'about:blank',
          title: problem.status === 401 ? 'Unauthorized' : 'Bad Request',
          status: problem.status,
          code: problem.code,
          detail: problem.message,
        };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      void (async () => {
        const url = new URL(request.url ?? '/', 'http://simulator');
        const route = routeOf(request.method ?? 'GET', url.pathname);
        if (!route) return send(response, 404, { type: 'about:blank', title: 'Not Found', status: 404, detail: `${request.method} ${url.pathname}` });
        calls[route] += 1;
        const fault = takeFault(route);
        if (fault?.kind === 'dropRequest') return void response.socket?.destroy();
        if (fault?.kind === 'fail')
          return send(response, fault.status, fault.body ?? { type: 'about:blank', title: 'Error', status: fault.status, detail: 'simulated failure' });
        let outcome: { status: number; body: unknown };
        try {
          outcome = act(route, request, url, Buffer.concat(chunks).toString('utf8'));
        } catch (error) {
          if (!(error instanceof Problem)) throw error;
          outcome = { status: error.status, body: problemBody(error) };
        }
        if (fault?.kind === 'dropAnswer') return void response.socket?.destroy();
        if (fault?.kind === 'hang') return;
        if (fault?.kind === 'slow') await sleep(fault.delayMs);
        send(response, outcome.status, outcome.body);
      })().catch(() => {
        if (!response.headersSent) send(response, 500, { type: 'about:blank', title: 'Internal Server Error', status: 500 });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    clientId,
    clientSecret,
    merchantCode,
    partnerMsisdn,
    partnerPin,
    webhookSecret,
    calls,
    transactions: () => structuredClone(transactions),
    qrCodes: () => structuredClone(qrCodes),
    cashinCalls: (reference) => cashinCounts.get(reference) ?? 0,
    partnerBalance: () => balance,
    fault(route, fault, times = 1) {
      const queue = faults.get(route) ?? [];
      queue.push({ fault, left: times });
      faults.set(route, queue);
    },
    clearFaults: () => faults.clear(),
    expireTokens: () => tokens.clear(),
    tokensIssued: () => tokensIssued,
    pay: (referenceOrQrId, msisdn = '770000001') => customerPays(referenceOrQrId, msisdn, false),
    decline: (referenceOrQrId, msisdn = '770000001') => customerPays(referenceOrQrId, msisdn, true),
    blockWallet: (msisdn) => void blocked.add(msisdn),
    unknownWallet: (msisdn) => void unknownWallets.add(msisdn),
    holdWallet: (msisdn) => void held.add(msisdn),
    async settle(transactionId, status) {
      const transaction = transactions.find((item) => item.transactionId === transactionId);
      if (transaction?.status !== 'PENDING') throw new Error(`no pending transaction ${transactionId}`);
      transaction.status = status;
      transaction.updatedAt = new Date().toISOString();
      if (status === 'FAILED' && transaction.type === 'CASHIN') balance += transaction.amount.value;
      notify(transaction);
      return structuredClone(transaction);
    },
    notifications,
    books,
    alterRecord(transactionId, change) {
      const transaction = transactions.find((item) => item.transactionId === transactionId);
      if (!transaction) throw new Error(`no transaction ${transactionId}`);
      if (change.amount !== undefined) transaction.amount = { value: change.amount, unit: 'XOF' };
      if (change.status !== undefined) transaction.status = change.status;
    },
    removeRecord(transactionId) {
      const index = transactions.findIndex((item) => item.transactionId === transactionId);
      if (index < 0) throw new Error(`no transaction ${transactionId}`);
      transactions.splice(index, 1);
    },
    sentNotifications: () => [...sent],
    async redeliver(transactionId) {
      const transaction = transactions.find((item) => item.transactionId === transactionId);
      if (!transaction) throw new Error(`no transaction ${transactionId}`);
      const qr = qrCodes.find((code) => code.reference === transaction.reference && transaction.type === 'MERCHANT_PAYMENT');
      await deliver(structuredClone(transaction), qr);
    },
    async notificationsSettled() {
      while (inFlight.size) await Promise.all([...inFlight]);
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
