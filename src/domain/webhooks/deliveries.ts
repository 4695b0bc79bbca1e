/**
 * The dispatcher's side of the outbox, in PostgreSQL. The rules that keep several instances from
 * sending one attempt twice live here, as conditional statements:
 *
 *   claim   `attemptCount + 1` and `nextAttemptAt = now + lease`, only where the delivery is pending
 *           and due: of two instances claiming the same row, the second finds it no longer due.
 *           First attempts are chosen and claimed in one statement that skips rows another
 *           instance is claiming (FOR UPDATE SKIP LOCKED), so instances share a backlog.
 *   record  the attempt's log row and the outcome, only where `attemptCount` is still the claimed
 *           number (a claim that outlived its lease must not overwrite a later attempt's outcome).
 *
 * A crash between claim and record leaves the row pending with `nextAttemptAt` at the lease's end:
 * the sweep finds it overdue and schedules it again, as the next attempt.
 */
import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../context.js';
import type { WebhookSettings } from './settings.js';

export interface DueDelivery {
  id: string;
  webhookId: string;
}

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  event: string;
  body: string;
  /** This attempt's number, from 1. */
  attempt: number;
  /** When the event happened: the first delivery's creation (a redelivery's is later). */
  eventAt: Date;
  url: string;
  encryptedSecret: string;
  webhookActive: boolean;
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The start of the receiver's answer (already truncated). */
  response: string | null;
}

export type AttemptResult = { status: 'delivered' } | { status: 'retry'; dueAt: Date } | { status: 'dropped' } | { status: 'superseded' };

/** 2xx is success; anything else (3xx included: redirects are not followed) is a failure. */
export const isSuccess = (outcome: AttemptOutcome): boolean => outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;

/** What a claim returns (`d` the claimed delivery, `w` its webhook): a ClaimedDelivery. */
const claimedColumns = Prisma.sql`d.id, d."webhookId", d."eventId", d.event, d.body, d."attemptCount" AS attempt,
  COALESCE((SELECT o."createdAt" FROM "WebhookDelivery" o WHERE o.id = d."redeliveryOf"), d."createdAt") AS "eventAt",
  w.url, w."encryptedSecret", w."isActive" AS "webhookActive"`;

/** What the claim of first attempts may take: how many in all, and per endpoint. */
export interface FirstAttemptRoom {
  /** Deliveries claimed at most. */
  limit: number;
  /** Per endpoint at most, for endpoints holding none yet. */
  perEndpoint: number;
  /** Endpoints that already hold some, with what they may still take (0 or less: none). */
  endpointRooms: ReadonlyMap<string, number>;
}

/**
 * Claims due first attempts (new outbox rows, redeliveries), oldest first, in ONE statement: rows
 * another instance is claiming at that moment are skipped (FOR UPDATE SKIP LOCKED), not waited
 * for and then lost, so two instances on one backlog each take their own share instead of
 * colliding on the same oldest rows. Each endpoint gets at most its room (a slow receiver does
 * not hold the others back); rows past an endpoint's room stay due for the next pass.
 */
export async function claimDueFirstAttempts(db: Pick<Db, '$queryRaw'>, now: Date, leaseMs: number, room: FirstAttemptRoom): Promise<ClaimedDelivery[]> {
  if (room.limit <= 0) return [];
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const endpoints = [...room.endpointRooms.keys()];
  const rooms = [...room.endpointRooms.values()];
  const full = endpoints.filter((_, index) => rooms[index]! <= 0);
  return db.$queryRaw<ClaimedDelivery[]>`
    WITH candidates AS (
      SELECT id, "webhookId", "nextAttemptAt" FROM "WebhookDelivery"
      WHERE status = 'pending' AND "attemptCount" = 0 AND "nextAttemptAt" <= ${now}
        AND NOT ("webhookId" = ANY(${full}::uuid[]))
      ORDER BY "nextAttemptAt" LIMIT ${room.limit}
      FOR UPDATE SKIP LOCKED),
    held AS (SELECT * FROM unnest(${endpoints}::uuid[], ${rooms}::int[]) AS h("webhookId", room)),
    admitted AS (
      SELECT c.id FROM (SELECT id, "webhookId", row_number() OVER (PARTITION BY "webhookId" ORDER BY "nextAttemptAt", id) AS n FROM candidates) c
      LEFT JOIN held h ON h."webhookId" = c."webhookId"
      WHERE c.n <= COALESCE(h.room, ${room.perEndpoint}::int))
    UPDATE "WebhookDelivery" d SET "attemptCount" = d."attemptCount" + 1, "nextAttemptAt" = ${leaseUntil}, "updatedAt" = ${now}
    FROM "Webhook" w
    WHERE d.id IN (SELECT id FROM admitted) AND d.status = 'pending' AND d."attemptCount" = 0 AND w.id = d."webhookId"
    RETURNING ${claimedColumns}`;
}

/** The endpoints of deliveries named by the scheduler (to apply the per-endpoint limit before claiming). */
export async function endpointsOf(db: Pick<Db, '$queryRaw'>, ids: string[]): Promise<DueDelivery[]> {
  if (ids.length === 0) return [];
  return db.$queryRaw<DueDelivery[]>`SELECT id, "webhookId" FROM "WebhookDelivery" WHERE id = ANY(${ids}::uuid[]) AND status = 'pending'`;
}

/** Claims the due ones among `ids` for one attempt each (see the file's comment). */
export async function claimDeliveries(db: Pick<Db, '$queryRaw'>, ids: string[], now: Date, leaseMs: number): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const leaseUntil = new Date(now.getTime() + leaseMs);
  return db.$queryRaw<ClaimedDelivery[]>`
    UPDATE "WebhookDelivery" d SET "attemptCount" = d."attemptCount" + 1, "nextAttemptAt" = ${leaseUntil}, "updatedAt" = ${now}
    FROM "Webhook" w
    WHERE d.id = ANY(${ids}::uuid[]) AND d.status = 'pending' AND d."nextAttemptAt" <= ${now} AND w.id = d."webhookId"
    RETURNING ${claimedColumns}`;
}

/** An attempt's outcome to record, with the claimed attempt number it belongs to. */
export interface FinishedAttempt {
  delivery: Pick<ClaimedDelivery, 'id' | 'attempt'>;
  outcome: AttemptOutcome;
  startedAt: Date;
}

/** What becomes of a delivery after an attempt: delivered on 2xx; else due again while retries remain (1 + maxRetries), else dropped. */
export function nextStateOf(attempt: number, outcome: AttemptOutcome, rules: Pick<WebhookSettings, 'retryDelayMs' | 'maxRetries'>, now: Date): AttemptResult {
  if (isSuccess(outcome)) return { status: 'delivered' };
  if (attempt <= rules.maxRetries) return { status: 'retry', dueAt: new Date(now.getTime() + rules.retryDelayMs) };
  return { status: 'dropped' };
}

/**
 * Logs attempts and moves their deliveries on, many in ONE statement (the dispatcher batches
 * what finished together). Each update is conditional on the delivery still being at the claimed
 * attempt; one that is not comes back `superseded`.
 */
export async function recordAttempts(
  db: Pick<Db, '$queryRaw'>,
  finished: FinishedAttempt[],
  rules: Pick<WebhookSettings, 'retryDelayMs' | 'maxRetries'>,
  now: Date,
): Promise<AttemptResult[]> {
  if (finished.length === 0) return [];
  const results = finished.map((item) => nextStateOf(item.delivery.attempt, item.outcome, rules, now));
  const column = <T>(pick: (item: FinishedAttempt, result: AttemptResult) => T) => finished.map((item, index) => pick(item, results[index]!));
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH input AS (
      SELECT * FROM unnest(
        ${column(() => randomUUID())}::uuid[], ${column((item) => item.delivery.id)}::uuid[], ${column((item) => item.delivery.attempt)}::int[],
        ${column((item) => item.outcome.statusCode)}::int[], ${column((item) => item.outcome.error)}::text[], ${column((item) => item.outcome.durationMs)}::int[],
        ${column((item) => item.outcome.response)}::text[], ${column((item) => iso(item.startedAt))}::timestamptz[],
        ${column((_, result) => (result.status === 'retry' ? 'pending' : result.status))}::text[],
        ${column((_, result) => (result.status === 'retry' ? iso(result.dueAt) : null))}::timestamptz[],
        ${column((_, result) => (result.status === 'delivered' ? iso(now) : null))}::timestamptz[]
      ) AS t(attempt_id, delivery_id, number, status_code, error, duration_ms, response, started_at, status, next_attempt_at, delivered_at)),
    logged AS (
      INSERT INTO "WebhookAttempt" (id, "deliveryId", number, "statusCode", error, "durationMs", response, "createdAt")
      SELECT attempt_id, delivery_id, number, status_code, error, duration_ms, response, started_at FROM input
      ON CONFLICT ("deliveryId", number) DO NOTHING)
    UPDATE "WebhookDelivery" d SET status = input.status::"WebhookDeliveryStatus", "nextAttemptAt" = input.next_attempt_at,
      "deliveredAt" = input.delivered_at, "updatedAt" = ${now}
    FROM input
    WHERE d.id = input.delivery_id AND d."attemptCount" = input.number AND d.status = 'pending'
      -- The same rows again, as a list the planner can look up by primary key whatever the
      -- table's statistics say: after a sudden backlog in a table analysed while nearly empty,
      -- the join alone was planned as a scan (a batch of 500 took 6.4 s instead of 0.23 s).
      AND d.id = ANY(${column((item) => item.delivery.id)}::uuid[])
    RETURNING d.id`;
  const updated = new Set(rows.map((row) => row.id));
  return results.map((result, index) => (updated.has(finished[index]!.delivery.id) ? result : { status: 'superseded' }));
}

/** One attempt's record (see recordAttempts). */
export async function recordAttempt(
  db: Pick<Db, '$queryRaw'>,
  delivery: Pick<ClaimedDelivery, 'id' | 'attempt'>,
  outcome: AttemptOutcome,
  rules: Pick<WebhookSettings, 'retryDelayMs' | 'maxRetries'>,
  startedAt: Date,
  now: Date,
): Promise<AttemptResult> {
  const [result] = await recordAttempts(db, [{ delivery, outcome, startedAt }], rules, now);
  return result!;
}

/**
 * Retries whose scheduler entry is gone (Redis flushed or restarted without persistence) or whose
 * attempt never finished (an instance crashed mid-attempt, its lease ran out): pending, already
 * attempted, and overdue by more than `graceMs`. The sweep schedules them again; while the
 * scheduler is unreachable the dispatcher takes them from here directly.
 */
export async function overdueRetries(db: Pick<Db, '$queryRaw'>, now: Date, graceMs: number, limit: number, busyWebhookIds: string[] = []): Promise<DueDelivery[]> {
  if (limit <= 0) return [];
  const before = new Date(now.getTime() - graceMs);
  return db.$queryRaw<DueDelivery[]>`
    SELECT id, "webhookId" FROM "WebhookDelivery"
    WHERE status = 'pending' AND "attemptCount" > 0 AND "nextAttemptAt" <= ${before}
      AND NOT ("webhookId" = ANY(${busyWebhookIds}::uuid[]))
    ORDER BY "nextAttemptAt" LIMIT ${limit}`;
}
