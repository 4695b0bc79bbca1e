/**
 * Wave's books as the reconciliation reads them: the Balance & Reconciliation API's transaction
 * history (https://docs.wave.com/balance-api, GET /v1/transactions), one day per request
 * (`date=YYYY-MM-DD`), page after page (`after=<page_info.end_cursor>` while
 * `page_info.has_next_page`).
 *
 * What a line says, per that page:
 *   - `transaction_type`: `api_checkout` (a payment through the Checkout API: ours),
 *     `api_checkout_refund` (its refund), `api_payout` / `api_payout_reversal` (the Payout API:
 *     ours), `merchant_payment` / `merchant_payment_refund` (a payment to the merchant's QR code or
 *     app: not made through the gateway), and other types the gateway never makes (bulk, b2b,
 *     sweeps) which are left out;
 *   - `amount`: the change of the wallet's balance, with Wave's `fee` apart (the page's example: a
 *     1,000 payment is `"amount": "990", "fee": "10"`), so what the operation moved (gross) is
 *     amount + fee, whatever its direction;
 *   - `checkout_api_session_id`: the Checkout API session of a checkout line; `client_reference`:
 *     the reference we gave (the attempt id of a session, the payout id of a payout).
 *
 * This module only reads and interprets; the HTTP call is the connector's (`readPage`), so the
 * connector's transport can change without touching what a history line means.
 */
import { ProviderUnavailable, type ProviderRecord } from '../../../domain/ports.js';

/** One line of Wave's transaction history, as far as the reconciliation reads it. */
export interface WaveHistoryLine {
  timestamp: string;
  transaction_id: string;
  transaction_type: string;
  amount: string;
  fee?: string | null;
  client_reference?: string | null;
  checkout_api_session_id?: string | null;
}

/** One page of the history: its lines and where the next one starts. */
export interface WaveHistoryPage {
  items: unknown[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** Reads one page of one day (the connector's HTTP call; throws ProviderUnavailable when unknown). */
export type ReadWaveHistoryPage = (query: { date: string; after?: string }, signal?: AbortSignal) => Promise<WaveHistoryPage>;

/** A reconciliation reads at most this many days (one request per day and page). */
const MAX_RECORD_DAYS = 31;
/** Pages per day: beyond it the day is refused (never silently cut), and a shorter period is asked. */
const MAX_PAGES_PER_DAY = 200;
const SIGNED_XOF = /^-?[0-9]{1,15}$/;

/** A page's body ({page_info, items}) as a WaveHistoryPage; anything else is an answer we cannot read. */
export function historyPageOf(body: unknown): WaveHistoryPage {
  const page = body as { items?: unknown; page_info?: { has_next_page?: unknown; end_cursor?: unknown } } | undefined;
  if (!Array.isArray(page?.items)) throw new ProviderUnavailable('wave answered a page of history without items');
  const hasNextPage = page.page_info?.has_next_page === true;
  const endCursor = typeof page.page_info?.end_cursor === 'string' ? page.page_info.end_cursor : null;
  if (hasNextPage && !endCursor) throw new ProviderUnavailable('wave announced a next page of history without a cursor');
  return { items: page.items, hasNextPage, endCursor };
}

const isLine = (value: unknown): value is WaveHistoryLine => {
  const line = value as Partial<WaveHistoryLine> | null;
  return (
    typeof line === 'object' &&
    line !== null &&
    typeof line.timestamp === 'string' &&
    typeof line.transaction_id === 'string' &&
    typeof line.transaction_type === 'string' &&
    typeof line.amount === 'string'
  );
};

/** Every line of one day, every page followed (bounded). */
async function historyOfDay(readPage: ReadWaveHistoryPage, date: string, signal?: AbortSignal): Promise<WaveHistoryLine[]> {
  const lines: WaveHistoryLine[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES_PER_DAY; page += 1) {
    const answer = await readPage({ date, ...(after !== undefined && { after }) }, signal);
    for (const item of answer.items) {
      // A line we cannot read is not skipped silently: the books could not be compared.
      if (!isLine(item)) throw new ProviderUnavailable(`wave history of ${date} holds a line we cannot read`);
      lines.push(item);
    }
    if (!answer.hasNextPage) return lines;
    after = answer.endCursor ?? undefined;
  }
  throw new ProviderUnavailable(`wave history of ${date} has more than ${MAX_PAGES_PER_DAY} pages: reconcile a shorter period`);
}

const dateOf = (date: Date): string => date.toISOString().slice(0, 10);

/** The UTC days a period touches (Wave files each line under its day), at most MAX_RECORD_DAYS. */
function daysOf(from: Date, to: Date): string[] {
  const days: string[] = [];
  for (
    let day = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
    day <= to.getTime() && days.length < MAX_RECORD_DAYS;
    day += 86_400_000
  )
    days.push(dateOf(new Date(day)));
  return days;
}

/** Wave's records of a period, as records of ours (ports.ts ProviderRecord). */
export async function readWaveRecords(readPage: ReadWaveHistoryPage, range: { from: Date; to: Date; signal?: AbortSignal }): Promise<ProviderRecord[]> {
  const records: ProviderRecord[] = [];
  for (const date of daysOf(range.from, range.to)) {
    for (const line of await historyOfDay(readPage, date, range.signal)) {
      const at = new Date(line.timestamp);
      if (Number.isNaN(at.getTime()) || at < range.from || at > range.to) continue;
      const record = recordOfLine(line, at);
      if (record) records.push(record);
    }
  }
  return records;
}

/** What a line moved: |amount + fee| (amount is the balance change, the fee Wave's). */
function grossOf(line: WaveHistoryLine): { gross: bigint; fee: bigint } | null {
  if (!SIGNED_XOF.test(line.amount)) return null;
  const fee = line.fee && SIGNED_XOF.test(line.fee) ? BigInt(line.fee) : 0n;
  const gross = BigInt(line.amount) + fee;
  return { gross: gross < 0n ? -gross : gross, fee };
}

/**
 * A history line as a record of ours, or null for a type the gateway never makes. A checkout line
 * is filed under the session's client_reference (our attempt id), its refund under the refunded
 * session's (refunds are filed under the payment they return); `collectionReference` carries the
 * session id so a line without client_reference still finds its attempt. A merchant payment
 * (QR code, app) is outside the gateway unless it names one of our sessions.
 */
function recordOfLine(line: WaveHistoryLine, at: Date = new Date(line.timestamp)): ProviderRecord | null {
  const moved = grossOf(line);
  if (!moved) return null;
  const reference = line.client_reference ?? '';
  const session = line.checkout_api_session_id ?? '';
  const base = {
    reference,
    providerReference: line.transaction_id,
    amount: moved.gross,
    fee: moved.fee,
    at,
    ...(session && { collectionReference: session }),
  };
  switch (line.transaction_type) {
    case 'api_checkout':
      return { ...base, kind: 'payment', status: 'succeeded' };
    case 'api_checkout_refund':
      return { ...base, kind: 'refund', status: 'succeeded' };
    case 'api_payout':
      return { ...base, kind: 'payout', status: 'succeeded' };
    case 'api_payout_reversal':
      return { ...base, kind: 'payout', status: 'failed' };
    case 'merchant_payment':
      return { ...base, kind: 'payment', status: 'succeeded', ...(!reference && !session && { outsideGateway: true }) };
    case 'merchant_payment_refund':
      return { ...base, kind: 'refund', status: 'succeeded', ...(!reference && !session && { outsideGateway: true }) };
    default:
      return null;
  }
}

/**
 * The refund line of a checkout session in the last `days` days of history (Wave has no refund
 * lookup): an `api_checkout_refund` naming the session (checkout_api_session_id) or its
 * client_reference. Undefined when none is there.
 */
export async function findCheckoutRefund(
  readPage: ReadWaveHistoryPage,
  session: { id: string; clientReference: string | null },
  options: { today: Date; days: number; signal?: AbortSignal },
): Promise<WaveHistoryLine | undefined> {
  for (let day = 0; day < options.days; day += 1) {
    const date = dateOf(new Date(options.today.getTime() - day * 86_400_000));
    const found = (await historyOfDay(readPage, date, options.signal)).find(
      (line) =>
        line.transaction_type === 'api_checkout_refund' &&
        (line.checkout_api_session_id === session.id || (session.clientReference !== null && line.client_reference === session.clientReference)),
    );
    if (found) return found;
  }
  return undefined;
}
