/**
 * `gateway listen`: an organisation's webhook events on a developer's machine, as real deliveries.
 *
 * The gateway never sends to a private or loopback address (SSRF: domain/webhooks/addresses.ts),
 * so the CLI does it from the developer's own machine: it holds the organisation's live updates
 * (the GraphQL subscriptions transactionStatusChanged for payment_status and refund_status,
 * payoutStatusChanged for payout_status, payoutBatchStatusChanged for payout_batch_status, over
 * Server-Sent Events: every event a webhook endpoint can subscribe to), and for each status change
 * reads the body a real delivery carries (Transaction.paymentStatusWebhookBody /
 * refundStatusWebhookBody, Payout.payoutStatusWebhookBody, PayoutBatch.payoutBatchStatusWebhookBody,
 * built by the outbox's own builders: never a second format here), signs it with a secret made for
 * this session and POSTs it with the dispatcher's headers (domain/webhooks/headers.ts) and through
 * its sender (webhooks/http.ts: no redirects followed, the same deadline).
 *
 * What it cannot promise: live updates are best effort, so a change during a reconnection is
 * missed (the gateway's webhooks stay the durable channel), and the body is the transaction as it
 * is when the change is handled, with the change's status (a payment refunded within that moment
 * is forwarded as its payment_status, then its refund_status; its updated_at is the refund's).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { print } from 'graphql';
import type { GraphQLClient } from 'graphql-request';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '../config.js';
import { deliveryHeaders } from '../domain/webhooks/headers.js';
import { generateWebhookSecret } from '../domain/webhooks/secrets.js';
import { serverSentEvents } from '../edge/serverSentEvents.js';
import { postWebhook } from '../webhooks/http.js';
import {
  OrganizationDocument,
  PaymentStatusWebhookBodyDocument,
  PayoutBatchStatusChangedDocument,
  PayoutBatchStatusWebhookBodyDocument,
  PayoutStatusChangedDocument,
  PayoutStatusWebhookBodyDocument,
  TransactionStatusChangedDocument,
  type TransactionStatus,
  type WebhookEvent,
} from './generated/graphql.js';
import type { Target } from './main.js';

/** What a live update tells: a transaction's, a payout's or a payout batch's new status (`orderId`: the batch's id for a batch). */
interface Change {
  kind: StreamKind;
  orderId: string;
  status: string;
  changedAt: string;
}
type StreamKind = 'transaction' | 'payout' | 'payoutBatch';

/**
 * The live updates each event is built from: payment_status and refund_status from the
 * transactions' (a payment settled; a refund made it `refunded`), payout_status from the payouts',
 * payout_batch_status from the batches' (one ended). Every event a webhook can subscribe to has
 * its stream: a new one in the schema does not compile until it has.
 */
const STREAM_OF_EVENT: Record<WebhookEvent, StreamKind> = {
  payment_status: 'transaction',
  refund_status: 'transaction',
  payout_status: 'payout',
  payout_batch_status: 'payoutBatch',
};
const STREAMS = {
  transaction: { document: TransactionStatusChangedDocument, field: 'transactionStatusChanged' },
  payout: { document: PayoutStatusChangedDocument, field: 'payoutStatusChanged' },
  payoutBatch: { document: PayoutBatchStatusChangedDocument, field: 'payoutBatchStatusChanged' },
} as const;
/** How a line names what changed. */
const ID_NAME: Record<StreamKind, string> = { transaction: 'orderId', payout: 'orderId', payoutBatch: 'batchId' };
const NOUN: Record<StreamKind, string> = { transaction: 'transaction', payout: 'payout', payoutBatch: 'payout batch' };

export interface ListenOptions {
  organizationId: string;
  /** Where each event is POSTed; none: events are only printed. */
  forwardTo: string | undefined;
  /** Known event names (main.ts checked them). */
  events: readonly WebhookEvent[];
  client: GraphQLClient;
  target: Target;
  /** One JSON object per line. */
  write: (line: object) => void;
  /** Ends the listening cleanly. */
  signal: AbortSignal;
}

/** Reconnecting: 0.5 s after a drop, doubling while the gateway stays away, never more than 30 s apart. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
/**
 * The gateway pings an open stream every 12 s (Yoga's SSE): nothing for 40 s is a dead connection
 * even without a close (a laptop that slept, a NAT that forgot it), so it is opened again.
 */
const IDLE_MS = 40_000;
/** Events waiting for a slow receiver: past this many, new ones are dropped (and said so). */
const MAX_WAITING = 1_000;
/** The gateway refuses the subscription for now (too many streams, Redis away): try again later. */
const RETRYABLE_CODES = new Set(['TOO_MANY_SUBSCRIPTIONS', 'LIVE_UPDATES_UNAVAILABLE', 'RATE_LIMITED']);

/** The gateway said no and would say it again (a revoked token, a role that may not watch): the command fails. */
class Refused extends Error {}

export async function listen(options: ListenOptions): Promise<void> {
  const { organizationId, forwardTo, events, client, target, write } = options;
  // The caller's stop, and ours: when one stream fails for good (a refusal), the others stop too
  // (else a second stream would stay open, reconnecting, after the command has failed).
  const stopAll = new AbortController();
  const signal = AbortSignal.any([options.signal, stopAll.signal]);
  const streamOptions: ListenOptions = { ...options, signal };
  // An unknown organisation or a refused token is said now, not by a stream that never speaks.
  await client.request(OrganizationDocument, { id: organizationId });
  const secret = generateWebhookSecret();

  // Received changes are forwarded one at a time, in order, while the stream keeps being read (a
  // stream the gateway cannot write to is closed by it past 100 unread events).
  const waiting: Change[] = [];
  let wake: (() => void) | undefined;
  let open = true;
  const forwarding = (async () => {
    for (;;) {
      const change = waiting.shift();
      if (change) await forward(change);
      else if (!open) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  })();
  const receive = (change: Change) => {
    if (waiting.length >= MAX_WAITING) {
      write({
        [ID_NAME[change.kind]]: change.orderId,
        status: change.status,
        notForwarded: `more than ${MAX_WAITING} events are waiting for the receiver: this one is dropped`,
      });
      return;
    }
    waiting.push(change);
    wake?.();
  };

  /** The event a change sends, with its body as a real delivery carries it; null when it sends none this listener wants. */
  async function eventOf(change: Change): Promise<{ event: WebhookEvent; body: string | null; status: string }> {
    if (change.kind === 'payoutBatch') {
      const { payoutBatch } = await client.request(PayoutBatchStatusWebhookBodyDocument, { id: change.orderId });
      return { event: 'payout_batch_status', body: payoutBatch?.payoutBatchStatusWebhookBody ?? null, status: payoutBatch?.status ?? change.status };
    }
    if (change.kind === 'payout') {
      const { payout } = await client.request(PayoutStatusWebhookBodyDocument, { orderId: change.orderId });
      return { event: 'payout_status', body: payout?.payoutStatusWebhookBody ?? null, status: payout?.status ?? change.status };
    }
    // The event is the change's (what happened), not the transaction's now: a payment refunded
    // at once is read after its refund, and is still a payment_status, with the body written then.
    const { transaction } = await client.request(PaymentStatusWebhookBodyDocument, { orderId: change.orderId, asStatus: change.status as TransactionStatus });
    if (change.status === 'refunded') return { event: 'refund_status', body: transaction?.refundStatusWebhookBody ?? null, status: change.status };
    return { event: 'payment_status', body: transaction?.paymentStatusWebhookBody ?? null, status: change.status };
  }

  async function forward(change: Change): Promise<void> {
    try {
      const { event, body, status } = await eventOf(change);
      if (!events.includes(event)) return;
      const id = { [ID_NAME[change.kind]]: change.orderId };
      if (!body) {
        write({ ...id, status, skipped: `a ${NOUN[change.kind]} that becomes ${status} sends no webhook event` });
        return;
      }
      const bytes = Buffer.from(body, 'utf8');
      const headers = deliveryHeaders({
        secret,
        body: bytes,
        eventId: randomUUID(),
        event,
        eventAt: new Date(change.changedAt),
        deliveryId: randomUUID(),
        attempt: 1,
      });
      const line = { event, eventId: headers['x-event-id'], ...id, status };
      if (!forwardTo) {
        write(line);
        return;
      }
      // Private and loopback addresses allowed: the developer's own machine sends to itself. As
      // long a deadline as the gateway's default: a receiver slower than that fails for real too.
      const outcome = await postWebhook(forwardTo, bytes, headers, { timeoutMs: DEFAULT_WEBHOOK_TIMEOUT_MS, allowPrivate: true });
      write({
        ...line,
        forwardedTo: forwardTo,
        statusCode: outcome.statusCode,
        durationMs: outcome.durationMs,
        ...(outcome.error !== null && { notForwarded: outcome.error }),
      });
    } catch (error) {
      write({ [ID_NAME[change.kind]]: change.orderId, status: change.status, notForwarded: error instanceof Error ? error.message : String(error) });
    }
  }

  let listening = false;
  // One stream per kind of live update the chosen events need, each reconnecting on its own.
  const kinds = [...new Set(events.map((event) => STREAM_OF_EVENT[event]))];
  const follow = async (kind: StreamKind) => {
    let failures = 0;
    // Whether this stream was open before: only its own second opening is a reconnection (the
    // first stream to open prints the listening line; the others' first openings print nothing).
    let openedBefore = false;
    while (!signal.aborted) {
      const reason = await subscribeOnce(streamOptions, kind, receive, () => {
        if (!listening) write({ listening: true, secret, organizationId, events, forwardTo: forwardTo ?? null, gateway: target.url });
        else if (openedBefore) write({ listening: true, reconnected: true, stream: kind });
        listening = true;
        openedBefore = true;
        failures = 0;
      });
      if (signal.aborted) break;
      failures += 1;
      const retryInMs = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1));
      write({ listening: false, reason, retryInMs });
      await sleep(retryInMs, undefined, { signal }).catch(() => undefined);
    }
  };
  try {
    const followed = await Promise.allSettled(
      kinds.map((kind) =>
        follow(kind).catch((error: unknown) => {
          stopAll.abort();
          throw error;
        }),
      ),
    );
    const failed = followed.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    // Stopping: what is being forwarded finishes (within its deadline), what waits is dropped.
    open = false;
    waiting.length = 0;
    wake?.();
    await forwarding;
  }
  write({ listening: false, stopped: true });
}

/**
 * One subscription, until it ends: resolves with why (the gateway completed it, the connection
 * dropped or went silent, the gateway is away); `onOpen` runs once the gateway streams. Throws
 * Refused when the gateway refuses it for good.
 */
async function subscribeOnce(
  { organizationId, target, signal }: ListenOptions,
  kind: StreamKind,
  receive: (change: Change) => void,
  onOpen: () => void,
): Promise<string> {
  const stream = STREAMS[kind];
  const connection = new AbortController();
  const stop = () => connection.abort();
  signal.addEventListener('abort', stop, { once: true });
  let silent = false;
  let idle: NodeJS.Timeout | undefined;
  const stillAlive = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      silent = true;
      connection.abort();
    }, IDLE_MS);
  };
  try {
    const response = await target.fetch(`${target.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${target.token}` },
      body: JSON.stringify({ query: print(stream.document), variables: { organizationId } }),
      signal: connection.signal,
    });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) {
      const refusal = refusalOf(response.status, await response.text().catch(() => ''));
      if (refusal.final) throw new Refused(refusal.message);
      return refusal.message;
    }
    onOpen();
    stillAlive();
    for await (const { event, data } of serverSentEvents(response.body)) {
      stillAlive(); // the gateway's pings count
      if (event === 'complete') return 'the gateway ended the event stream (it does after an hour, or when it stops)';
      if (event !== 'next' || !data) continue;
      const change = (JSON.parse(data) as { data?: Record<string, Omit<Change, 'kind'> | undefined> }).data?.[stream.field];
      if (change) receive({ kind, orderId: change.orderId, status: change.status, changedAt: change.changedAt });
    }
    return 'the connection to the gateway closed';
  } catch (error) {
    if (error instanceof Refused) throw error;
    if (signal.aborted) return 'stopped';
    if (silent) return `nothing came from the gateway for ${IDLE_MS / 1000} s`;
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', stop);
    connection.abort(); // lets the socket go, whichever way it ended
  }
}

/** A subscription answered without a stream: for now (busy, away: try again) or for good. */
function refusalOf(status: number, text: string): { message: string; final: boolean } {
  let first: { message?: string; extensions?: { code?: string } } | undefined;
  try {
    first = (JSON.parse(text) as { errors?: (typeof first)[] }).errors?.[0];
  } catch {
    // not JSON: a proxy's page, say
  }
  const message = first?.message ?? `the gateway answered HTTP ${status} instead of an event stream`;
  const final = !(status === 429 || status >= 500 || RETRYABLE_CODES.has(first?.extensions?.code ?? ''));
  return { message, final };
}
