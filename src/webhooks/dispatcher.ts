/**
 * The webhook dispatcher: sends due outbox deliveries, signed, and logs every attempt.
 *
 * Where due work comes from:
 *   - first attempts (new outbox rows, redeliveries): polled from PostgreSQL, so a committed
 *     payment is sent even if nothing else learnt of it (a crash right after the commit);
 *   - retries: the coordination scheduler (Redis sorted set; in-process when embedded), claimed
 *     atomically there; the background sweep (domain/webhooks/schedule.ts) rebuilds it from the
 *     outbox when Redis loses them.
 * Either way an attempt is sent only after its conditional claim in PostgreSQL (deliveries.ts), so
 * instances sharing a database never send the same attempt twice.
 *
 * Bounds: at most `maxConcurrency` attempts in flight per process and `perEndpointConcurrency` per
 * endpoint (a slow or dead receiver takes its own slots only, never the other merchants'), each
 * attempt bounded by WEBHOOK_TIMEOUT_MS and RESPONSE_LOG_BYTES of answer.
 *
 * Pipelining: the next claim starts when the attempts claimed and not yet SENT run low, not when
 * they are recorded: a delivery whose answer is in waits for its record without holding back the
 * next claim (measured on a 100,000-delivery backlog: with claims waiting for records, the queue
 * ran dry between claims ~900 times a second and the 64 slots sat idle meanwhile). Records
 * waiting are bounded on their own: a database that records slower than receivers answer stops
 * the claiming until it catches up.
 */
import type { GatewayContext, WebhookSettings } from '../domain/context.js';
import { recordAttempts, type AttemptOutcome, type AttemptResult, type FinishedAttempt } from '../domain/webhooks/deliveries.js';
import { claimDeliveries, claimDueFirstAttempts, endpointsOf, overdueRetries, type ClaimedDelivery, type DueDelivery } from '../domain/webhooks/store.js';
import { decryptWebhookSecret } from '../domain/webhooks/secrets.js';
import { deliveryHeaders } from '../domain/webhooks/headers.js';
import { webhookSettingsOf } from '../domain/webhooks/settings.js';
import { postWebhook } from './http.js';
import { webhookMetricsOf } from './metrics.js';

export interface DispatcherOptions {
  /** How often to look for due work when idle. */
  pollMs?: number;
  /** Attempts in flight at once in this process. */
  maxConcurrency?: number;
  /** Attempts in flight at once to one endpoint. */
  perEndpointConcurrency?: number;
}

export interface Dispatcher {
  /** Looks for due work now (after a redelivery, in tests). */
  wake(): void;
  /** Stops claiming; waits (bounded) for attempts in flight to be recorded. */
  stop(): Promise<void>;
  /** Deliveries claimed and not yet recorded (queued, in flight, or waiting for their record). */
  held(): number;
}

/** What the gateway runs with (background.ts passes no options); the bench's receiver floor uses the same concurrency. */
export const DISPATCHER_DEFAULTS = { pollMs: 250, maxConcurrency: 64, perEndpointConcurrency: 16 } as const;
/**
 * Claimed ahead of sending, as a multiple of the concurrency: claims are batched (fewer round
 * trips). Overall HOLD_FACTOR rounds; per endpoint only ENDPOINT_HOLD_FACTOR rounds, so that slow
 * endpoints with backlogs cannot take the whole claim room: it takes (64 x 8) / (16 x 2) = 16 of
 * them at the defaults, and until then other merchants' deliveries are still claimed. (With 8 per
 * endpoint, four slow endpoints filled it and a fifth merchant waited for their backlogs.)
 */
const HOLD_FACTOR = 8;
const ENDPOINT_HOLD_FACTOR = 2;
/**
 * A claim outlives the longest it may wait and run (HOLD_FACTOR + 1 attempt deadlines) by this
 * much before the sweep may hand the delivery to another instance: only an instance that died (or
 * froze that long) loses it.
 */
const LEASE_MARGIN_MS = 60_000; // default of settings.claimMarginMs
/** Finished attempts recorded in one statement at most. */
const RECORD_BATCH = 500;
/** Scheduler entries held back by an endpoint's limit come back after this. */
const HELD_BACK_DELAY_MS = 1_000;
const NO_RETRY = { retryDelayMs: 0, maxRetries: 0 };
/** Decrypted secrets kept (one per active endpoint recently sent to); cleared when full. */
const SECRET_CACHE_SIZE = 10_000;

export function startWebhookDispatcher(ctx: GatewayContext, options: DispatcherOptions = {}): Dispatcher {
  const { pollMs, maxConcurrency, perEndpointConcurrency } = { ...DISPATCHER_DEFAULTS, ...options };
  /** Claimed and not yet sent (queued or in flight), overall and per endpoint. */
  const maxHeld = maxConcurrency * HOLD_FACTOR;
  const maxHeldPerEndpoint = perEndpointConcurrency * ENDPOINT_HOLD_FACTOR;
  const lowWater = Math.floor(maxHeld / 2);
  /** Sent and waiting for their record: past this, no claim until the database catches up. */
  const maxRecording = maxHeld;
  const settings = webhookSettingsOf(ctx);
  const leaseMs = settings.timeoutMs * (HOLD_FACTOR + 1) + (settings.claimMarginMs ?? LEASE_MARGIN_MS);
  const scheduler = ctx.coordination.scheduler;

  /** Decrypted secrets by their stored (encrypted) value. */
  const secrets = new Map<string, string>();
  /** Claimed and waiting for a slot, per endpoint (FIFO). */
  const queued = new Map<string, ClaimedDelivery[]>();
  /** Claimed and not yet sent (queued or in flight), per endpoint and overall. */
  const unsentByEndpoint = new Map<string, number>();
  const inFlightByEndpoint = new Map<string, number>();
  let unsent = 0;
  let inFlight = 0;
  /** Sent, their record not yet written. */
  let recording = 0;
  const running = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let again = false;
  let schedulerWarned = 0;

  const add = (map: Map<string, number>, key: string, delta: number) => {
    const value = (map.get(key) ?? 0) + delta;
    if (value > 0) map.set(key, value);
    else map.delete(key);
  };
  const fullEndpoints = () => [...unsentByEndpoint].filter(([, count]) => count >= maxHeldPerEndpoint).map(([id]) => id);

  /** Keeps what the limits allow, up to `room`; returns the kept and the rest. */
  const admit = (candidates: DueDelivery[], room: number) => {
    const planned = new Map<string, number>();
    const kept: DueDelivery[] = [];
    const rest: DueDelivery[] = [];
    for (const candidate of candidates) {
      const load = (unsentByEndpoint.get(candidate.webhookId) ?? 0) + (planned.get(candidate.webhookId) ?? 0);
      if (kept.length < room && load < maxHeldPerEndpoint) {
        kept.push(candidate);
        add(planned, candidate.webhookId, 1);
      } else rest.push(candidate);
    }
    return { kept, rest };
  };

  /** One pass: claims what fits and starts what it can. Returns how many it claimed. */
  async function tick(): Promise<number> {
    const room = recording >= maxRecording ? 0 : maxHeld - unsent;
    if (room <= 0 || stopped) return 0;
    const now = ctx.clock.now();
    let chosen: DueDelivery[] = [];

    // Retries due in the scheduler. Redis down: the outbox path below still runs; the sweep catches up.
    try {
      const ids = await scheduler.claimDue(now.getTime(), room);
      if (ids.length) {
        const { kept, rest } = admit(await endpointsOf(ctx.db, ids), room);
        chosen = kept;
        // Taken from the scheduler but over an endpoint's limit: back in, a little later.
        await Promise.all(rest.map((due) => scheduler.schedule({ id: due.id, dueAt: now.getTime() + HELD_BACK_DELAY_MS })));
      }
    } catch (error) {
      if (Date.now() - schedulerWarned > 60_000) {
        schedulerWarned = Date.now();
        ctx.log.warn({ err: error }, 'webhook retries: the scheduler is unavailable; due retries are taken from the outbox meanwhile');
      }
      // Redis down: due retries come straight from the outbox (the claim still decides who sends).
      chosen = admit(await overdueRetries(ctx.db, now, 0, room, fullEndpoints()), room).kept;
    }
    const retries = await claimDeliveries(
      ctx.db,
      chosen.map((due) => due.id),
      now,
      leaseMs,
    );
    hold(retries);
    const fresh = await claimDueFirstAttempts(ctx.db, now, leaseMs, {
      limit: room - retries.length,
      perEndpoint: maxHeldPerEndpoint,
      endpointRooms: new Map([...unsentByEndpoint].map(([webhookId, count]) => [webhookId, maxHeldPerEndpoint - count])),
    });
    hold(fresh);
    pump();
    return retries.length + fresh.length;
  }

  /** Queues claimed deliveries for their endpoints' slots. */
  function hold(claimed: ClaimedDelivery[]): void {
    for (const delivery of claimed) {
      unsent++;
      add(unsentByEndpoint, delivery.webhookId, 1);
      const queue = queued.get(delivery.webhookId);
      if (queue) queue.push(delivery);
      else queued.set(delivery.webhookId, [delivery]);
    }
  }

  /**
   * Starts queued attempts while there are slots. Each slot goes to the waiting endpoint with the
   * fewest attempts in flight, and a served endpoint goes to the back of the line: a slow endpoint
   * that just got an answer does not take its slot back ahead of a merchant waiting with none.
   */
  function pump(): void {
    while (inFlight < maxConcurrency) {
      const webhookId = leastBusyWaiting();
      if (webhookId === null) return;
      const queue = queued.get(webhookId)!;
      const delivery = queue.shift()!;
      queued.delete(webhookId);
      if (queue.length > 0) queued.set(webhookId, queue);
      launch(delivery);
    }
  }

  /** The queued endpoint below its limit with the fewest in flight (first in line among equals), or null. */
  function leastBusyWaiting(): string | null {
    let chosen: string | null = null;
    let fewest = perEndpointConcurrency;
    for (const webhookId of queued.keys()) {
      const busy = inFlightByEndpoint.get(webhookId) ?? 0;
      if (busy < fewest) {
        chosen = webhookId;
        fewest = busy;
        if (busy === 0) break;
      }
    }
    return chosen;
  }

  function launch(delivery: ClaimedDelivery): void {
    inFlight++;
    add(inFlightByEndpoint, delivery.webhookId, 1);
    let sending = true;
    // The slot is the HTTP exchange: it is given back as soon as the answer is in, while the
    // record joins the next batch; the next claim need not wait for that record either.
    const sent = () => {
      if (!sending) return;
      sending = false;
      inFlight--;
      add(inFlightByEndpoint, delivery.webhookId, -1);
      unsent--;
      add(unsentByEndpoint, delivery.webhookId, -1);
      recording++;
      pump();
      // Claim again once half the room is free: big batches, few round trips.
      if (unsent <= lowWater) wake();
    };
    const work = attempt(delivery, sent)
      .catch((error: unknown) =>
        // Not recorded (the database failed): the claim's lease runs out and the sweep sends it again.
        ctx.log.error({ err: error, deliveryId: delivery.id }, 'a webhook attempt could not be recorded; it will be retried'),
      )
      .finally(() => {
        sent();
        running.delete(work);
        recording--;
        // A claim held back by records waiting goes ahead now.
        if (unsent <= lowWater) wake();
      });
    running.add(work);
  }

  /** To /metrics, when the API registered the webhook metrics (metrics.ts). */
  const count = (result: AttemptResult | undefined, durationMs: number | null) => {
    if (result) webhookMetricsOf(ctx)?.attempt(result.status === 'retry' ? 'failed' : result.status, durationMs);
  };

  async function attempt(delivery: ClaimedDelivery, sent: () => void): Promise<void> {
    const startedAt = ctx.clock.now();
    let outcome: AttemptOutcome;
    if (!delivery.webhookActive) {
      // Nothing more is sent to a deleted webhook: this claim is the delivery's last word.
      const [result] = await recorder.record(
        { delivery, outcome: { statusCode: null, error: 'the webhook was deleted', durationMs: 0, response: null }, startedAt },
        NO_RETRY,
      );
      count(result, null);
      return;
    }
    let signature: string | null = null;
    let secret: string | null = secrets.get(delivery.encryptedSecret) ?? null;
    if (secret === null) {
      try {
        secret = decryptWebhookSecret(settings.secretKey, delivery.webhookId, delivery.encryptedSecret);
        // Keyed by the stored value: a rotation changes it, so a stale secret is never used.
        if (secrets.size >= SECRET_CACHE_SIZE) secrets.clear();
        secrets.set(delivery.encryptedSecret, secret);
      } catch (error) {
        ctx.log.error({ err: error, webhookId: delivery.webhookId }, 'cannot sign a webhook delivery');
      }
    }
    if (secret === null) {
      outcome = { statusCode: null, error: 'not sent: the webhook secret cannot be decrypted with this server key', durationMs: 0, response: null };
    } else {
      const body = Buffer.from(delivery.body, 'utf8');
      const headers = deliveryHeaders({
        secret,
        body,
        eventId: delivery.eventId,
        event: delivery.event,
        eventAt: delivery.eventAt,
        deliveryId: delivery.id,
        attempt: delivery.attempt,
      });
      signature = headers['x-signature']!;
      outcome = await postWebhook(delivery.url, body, headers, { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivateUrls });
    }
    sent();
    const [result] = await recorder.record({ delivery, outcome, startedAt, signature }, settings);
    count(result, secret === null ? null : outcome.durationMs);
    if (result?.status === 'retry') {
      // A lost schedule costs lateness only: the sweep finds the overdue delivery in the outbox.
      await scheduler.schedule({ id: delivery.id, dueAt: result.dueAt.getTime() }).catch(() => undefined);
    }
  }

  /**
   * Attempts that finish together are recorded together: one statement per batch (the first
   * waits for none; the ones finishing while it runs form the next batch).
   */
  type Rules = Pick<WebhookSettings, 'retryDelayMs' | 'maxRetries'>;
  const recorder = (() => {
    type Pending = { item: FinishedAttempt; rules: Rules; resolve: (result: AttemptResult[]) => void; reject: (error: unknown) => void };
    const waiting: Pending[] = [];
    let writing = false;
    const flush = async (): Promise<void> => {
      if (writing || waiting.length === 0) return;
      writing = true;
      const batch = waiting.splice(0, RECORD_BATCH);
      try {
        // Rules differ only for deliveries of deleted webhooks (dropped at once): group by them.
        for (const rules of new Set(batch.map((entry) => entry.rules))) {
          const group = batch.filter((entry) => entry.rules === rules);
          try {
            const results = await recordAttempts(
              ctx.db,
              group.map((entry) => entry.item),
              rules,
              ctx.clock.now(),
            );
            group.forEach((entry, index) => {
              entry.resolve([results[index]!]);
            });
          } catch (error) {
            group.forEach((entry) => {
              entry.reject(error);
            });
          }
        }
      } finally {
        writing = false;
        if (waiting.length) void flush();
      }
    };
    return {
      record(item: FinishedAttempt, rules: Rules): Promise<AttemptResult[]> {
        return new Promise((resolve, reject) => {
          waiting.push({ item, rules, resolve, reject });
          void flush();
        });
      },
    };
  })();

  function wake(): void {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    clearTimeout(timer);
    ticking = true;
    again = false;
    tick()
      .then((claimed) => {
        if (claimed > 0) again = true;
      })
      .catch((error: unknown) => ctx.log.warn({ err: error }, 'webhook dispatcher pass failed; it runs again shortly'))
      .finally(() => {
        ticking = false;
        if (stopped) return;
        if (again && unsent <= lowWater) setImmediate(wake);
        else {
          timer = setTimeout(wake, pollMs);
          timer.unref();
        }
      });
  }

  wake();
  return {
    wake,
    held: () => unsent + recording,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      // Queued ones are abandoned (their leases expire: the sweep sends them); in-flight ones
      // finish within their deadline.
      queued.clear();
      await Promise.allSettled([...running]);
    },
  };
}
