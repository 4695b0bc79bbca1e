/**
 * The webhooks' SQL: endpoints, the delivery log, and the dispatcher's side of the outbox.
 *
 * The rules that keep several instances from sending one attempt twice live here, as conditional
 * statements:
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
import { Prisma, type Webhook, type WebhookAttempt, type WebhookDelivery } from '../../generated/prisma/client.js';
import type { WebhookDeliveryStatus } from '../../generated/prisma/enums.js';
import type { KeysetSlice } from '../cursors.js';
import type { Db, DbTransaction } from '../context.js';
import type { TransactionRecord } from '../transactions/store.js';
import { PAYMENT_STATUS_EVENT, paymentStatusBodyV1, paymentStatusBodyV2 } from './bodies.js';
import type { WebhookEvent } from './events.js';

/** A webhook as callers see it: never its (encrypted) secret. */
export type WebhookRecord = Omit<Webhook, 'encryptedSecret'>;
const WEBHOOK_FIELDS = {
  id: true,
  organizationId: true,
  url: true,
  version: true,
  isActive: true,
  events: true,
  createdAt: true,
  updatedAt: true,
} as const satisfies Record<keyof WebhookRecord, true>;

export type DeliveryRecord = WebhookDelivery & { attempts: WebhookAttempt[] };

export interface NewWebhook {
  id: string;
  organizationId: string;
  url: string;
  version: 'v1' | 'v2';
  encryptedSecret: string;
  events: string[];
}

export function countActiveWebhooks(db: Pick<Db, 'webhook'>, organizationId: string): Promise<number> {
  return db.webhook.count({ where: { organizationId, isActive: true } });
}

export function insertWebhook(db: Pick<Db, 'webhook'>, webhook: NewWebhook): Promise<WebhookRecord> {
  return db.webhook.create({ data: webhook, select: WEBHOOK_FIELDS });
}

/** The webhook `id` (a UUID), deleted or not, with its encrypted secret; null when there is none. */
export function readWebhook(db: Pick<Db, 'webhook'>, id: string): Promise<Webhook | null> {
  return db.webhook.findUnique({ where: { id } });
}

/** Active webhooks of `organizationId` (every organisation's when null), newest first. */
export function listActiveWebhooks(db: Pick<Db, 'webhook'>, organizationId: string | null, limit: number): Promise<WebhookRecord[]> {
  return db.webhook.findMany({
    where: { isActive: true, ...(organizationId && { organizationId }) },
    select: WEBHOOK_FIELDS,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

export function deactivateWebhook(db: Pick<Db, 'webhook'>, id: string): Promise<WebhookRecord> {
  return db.webhook.update({ where: { id }, data: { isActive: false }, select: WEBHOOK_FIELDS });
}

export function replaceWebhookSecret(db: Pick<Db, 'webhook'>, id: string, encryptedSecret: string): Promise<WebhookRecord> {
  return db.webhook.update({ where: { id }, data: { encryptedSecret }, select: WEBHOOK_FIELDS });
}

interface DeliveryFilter {
  /** null: every organisation's. */
  organizationId: string | null;
  webhookId?: string | null;
  transactionId?: string | null;
}

export interface DeliveryLogFilter extends DeliveryFilter {
  status?: WebhookDeliveryStatus | null;
  /** Created at or after. */
  since?: Date | null;
}

function deliveryLogWhere(filter: DeliveryLogFilter): Prisma.WebhookDeliveryWhereInput {
  return {
    ...(filter.webhookId && { webhookId: filter.webhookId }),
    ...(filter.transactionId && { transactionId: filter.transactionId }),
    ...(filter.organizationId && { webhook: { organizationId: filter.organizationId } }),
    ...(filter.status && { status: filter.status }),
    ...(filter.since && { createdAt: { gte: filter.since } }),
  };
}

/**
 * A keyset slice of the delivery log (newest first by createdAt, id; one row more than asked;
 * backward slices nearest the cursor first), each delivery with its first attempts, and how many
 * deliveries match the filter.
 */
export async function listDeliveriesSlice(
  db: Pick<Db, 'webhookDelivery'>,
  filter: DeliveryLogFilter,
  slice: KeysetSlice,
  attemptsPerDelivery: number,
): Promise<{ items: DeliveryRecord[]; totalCount: number }> {
  const where = deliveryLogWhere(filter);
  const forward = slice.direction === 'forward';
  const beyond = forward ? 'lt' : 'gt';
  const past: Prisma.WebhookDeliveryWhereInput | undefined = slice.position
    ? { OR: [{ createdAt: { [beyond]: slice.position.createdAt } }, { createdAt: slice.position.createdAt, id: { [beyond]: slice.position.id } }] }
    : undefined;
  const direction = forward ? ('desc' as const) : ('asc' as const);
  const [items, totalCount] = await Promise.all([
    db.webhookDelivery.findMany({
      where: past ? { AND: [where, past] } : where,
      include: { attempts: { orderBy: { number: 'asc' }, take: attemptsPerDelivery } },
      orderBy: [{ createdAt: direction }, { id: direction }],
      take: slice.limit + 1,
    }),
    db.webhookDelivery.count({ where }),
  ]);
  return { items, totalCount };
}

/** A new `event` delivery of `body` to one webhook, due at `now` (its own event id). */
export function insertEventDelivery(
  db: Pick<Db, 'webhookDelivery'>,
  delivery: { webhookId: string; event: string; body: string },
  now: Date,
): Promise<DeliveryRecord> {
  return db.webhookDelivery.create({
    data: { ...delivery, eventId: randomUUID(), nextAttemptAt: now, createdAt: now },
    include: { attempts: true },
  });
}

export interface FailedDeliveriesFilter {
  /** null: every organisation's. */
  organizationId: string | null;
  webhookId: string | null;
  /** Deliveries created at or after. */
  since: Date;
}

/**
 * Redelivers, in ONE statement, up to `limit` failed events (oldest first): for each event and
 * active endpoint whose latest delivery since `since` was dropped and that has no delivery still
 * pending or delivered, a new delivery of the same body and event id, due now (as
 * insertRedelivery). Events redelivered here are no longer "failed" (their new delivery is
 * pending), so calling again takes the next ones. Answers how many it wrote, per organisation.
 */
export function insertFailedRedeliveries(
  db: Pick<Db, '$queryRaw'>,
  filter: FailedDeliveriesFilter,
  now: Date,
  limit: number,
): Promise<{ organizationId: string; count: number }[]> {
  return db.$queryRaw`
    WITH latest AS (
      SELECT DISTINCT ON (d."webhookId", d."eventId") d.id, d."webhookId", d.event, d."eventId", d."redeliveryOf", d."transactionId", d.body, d.status, d."createdAt"
      FROM "WebhookDelivery" d JOIN "Webhook" w ON w.id = d."webhookId" AND w."isActive"
      WHERE d."createdAt" >= ${filter.since}
        AND (${filter.organizationId}::uuid IS NULL OR w."organizationId" = ${filter.organizationId}::uuid)
        AND (${filter.webhookId}::uuid IS NULL OR d."webhookId" = ${filter.webhookId}::uuid)
      ORDER BY d."webhookId", d."eventId", d."createdAt" DESC, d.id DESC),
    failed AS (
      SELECT * FROM latest l
      WHERE l.status = 'dropped'
        AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" n WHERE n."webhookId" = l."webhookId" AND n."eventId" = l."eventId" AND n.status <> 'dropped')
      ORDER BY l."createdAt", l.id LIMIT ${limit}),
    queued AS (
      INSERT INTO "WebhookDelivery" (id, "webhookId", event, "eventId", "redeliveryOf", "transactionId", body, "nextAttemptAt", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), "webhookId", event, "eventId", COALESCE("redeliveryOf", id), "transactionId", body, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM failed
      RETURNING "webhookId")
    SELECT w."organizationId", count(*)::int AS count FROM queued q JOIN "Webhook" w ON w.id = q."webhookId" GROUP BY w."organizationId"`;
}

/**
 * Deliveries still being retried after a failed attempt (pending, waiting for a later attempt):
 * their next attempt made due now, so "Resend failed" after a receiver comes back sends them at
 * once instead of answering "0 sent" while they wait (issue 30). Only a delivery whose last claimed
 * attempt is recorded is touched: one whose attempt is in flight keeps its lease (rechecked on the
 * locked row, so a claim that wins the race is not claimed twice).
 */
export function retryWaitingDeliveriesNow(
  db: Pick<Db, '$queryRaw'>,
  filter: FailedDeliveriesFilter,
  now: Date,
  limit: number,
): Promise<{ id: string; organizationId: string }[]> {
  return db.$queryRaw`
    WITH waiting AS (
      SELECT d.id FROM "WebhookDelivery" d JOIN "Webhook" w ON w.id = d."webhookId" AND w."isActive"
      WHERE d.status = 'pending' AND d."attemptCount" > 0 AND d."nextAttemptAt" > ${now}::timestamptz AND d."createdAt" >= ${filter.since}
        AND (${filter.organizationId}::uuid IS NULL OR w."organizationId" = ${filter.organizationId}::uuid)
        AND (${filter.webhookId}::uuid IS NULL OR d."webhookId" = ${filter.webhookId}::uuid)
      ORDER BY d."createdAt", d.id LIMIT ${limit})
    UPDATE "WebhookDelivery" d SET "nextAttemptAt" = ${now}::timestamptz, "updatedAt" = ${now}::timestamptz
    FROM waiting, "Webhook" w
    WHERE d.id = waiting.id AND w.id = d."webhookId" AND d.status = 'pending' AND d."nextAttemptAt" > ${now}::timestamptz
      AND EXISTS (SELECT 1 FROM "WebhookAttempt" a WHERE a."deliveryId" = d.id AND a.number = d."attemptCount")
    RETURNING d.id, w."organizationId"`;
}

/** The delivery `id` (a UUID) with its webhook; null when there is none. */
export function readDeliveryWithWebhook(db: Pick<Db, 'webhookDelivery'>, id: string): Promise<(WebhookDelivery & { webhook: Webhook }) | null> {
  return db.webhookDelivery.findUnique({ where: { id }, include: { webhook: true } });
}

/** A new delivery of `original`'s event (same body, same event id), due at `now`. */
export function insertRedelivery(db: Pick<Db, 'webhookDelivery'>, original: WebhookDelivery, now: Date): Promise<DeliveryRecord> {
  return db.webhookDelivery.create({
    data: {
      webhookId: original.webhookId,
      event: original.event,
      eventId: original.eventId,
      // Always the first delivery of the event, so a redelivery of a redelivery still names it.
      redeliveryOf: original.redeliveryOf ?? original.id,
      transactionId: original.transactionId,
      body: original.body,
      nextAttemptAt: now,
      createdAt: now,
    },
    include: { attempts: true },
  });
}

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

/** One finished attempt to log, and the state its delivery moves to (deliveries.ts decides it). */
export interface AttemptRecord {
  deliveryId: string;
  /** The claimed attempt number. */
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  response: string | null;
  /** The X-Signature sent; null when nothing was sent. */
  signature: string | null;
  startedAt: Date;
  status: 'pending' | 'delivered' | 'dropped';
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

/**
 * Logs attempts and moves their deliveries on, many in ONE statement (the dispatcher batches
 * what finished together). Each update is conditional on the delivery still being at the claimed
 * attempt; answers the ids of the deliveries it moved (the others were superseded).
 */
export async function recordAttemptRows(db: Pick<Db, '$queryRaw'>, records: AttemptRecord[], now: Date): Promise<Set<string>> {
  const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH input AS (
      SELECT * FROM unnest(
        ${column(() => randomUUID())}::uuid[], ${column((record) => record.deliveryId)}::uuid[], ${column((record) => record.attempt)}::int[],
        ${column((record) => record.statusCode)}::int[], ${column((record) => record.error)}::text[], ${column((record) => record.durationMs)}::int[],
        ${column((record) => record.response)}::text[], ${column((record) => record.signature)}::text[], ${column((record) => iso(record.startedAt))}::timestamptz[],
        ${column((record) => record.status)}::text[],
        ${column((record) => iso(record.nextAttemptAt))}::timestamptz[],
        ${column((record) => iso(record.deliveredAt))}::timestamptz[]
      ) AS t(attempt_id, delivery_id, number, status_code, error, duration_ms, response, signature, started_at, status, next_attempt_at, delivered_at)),
    logged AS (
      INSERT INTO "WebhookAttempt" (id, "deliveryId", number, "statusCode", error, "durationMs", response, signature, "createdAt")
      SELECT attempt_id, delivery_id, number, status_code, error, duration_ms, response, signature, started_at FROM input
      ON CONFLICT ("deliveryId", number) DO NOTHING)
    UPDATE "WebhookDelivery" d SET status = input.status::"WebhookDeliveryStatus", "nextAttemptAt" = input.next_attempt_at,
      "deliveredAt" = input.delivered_at, "updatedAt" = ${now}
    FROM input
    WHERE d.id = input.delivery_id AND d."attemptCount" = input.number AND d.status = 'pending'
      -- The same rows again, as a list the planner can look up by primary key whatever the
      -- table's statistics say: after a sudden backlog in a table analysed while nearly empty,
      -- the join alone was planned as a scan (a batch of 500 took 6.4 s instead of 0.23 s).
      AND d.id = ANY(${column((record) => record.deliveryId)}::uuid[])
    RETURNING d.id`;
  return new Set(rows.map((row) => row.id));
}

/**
 * Retries whose scheduler entry is gone (Redis flushed or restarted without persistence) or whose
 * attempt never finished (an instance crashed mid-attempt, its lease ran out): pending, already
 * attempted, and overdue by more than `graceMs`. The sweep schedules them again; while the
 * scheduler is unreachable the dispatcher takes them from here directly.
 */
export async function overdueRetries(
  db: Pick<Db, '$queryRaw'>,
  now: Date,
  graceMs: number,
  limit: number,
  busyWebhookIds: string[] = [],
): Promise<DueDelivery[]> {
  if (limit <= 0) return [];
  const before = new Date(now.getTime() - graceMs);
  return db.$queryRaw<DueDelivery[]>`
    SELECT id, "webhookId" FROM "WebhookDelivery"
    WHERE status = 'pending' AND "attemptCount" > 0 AND "nextAttemptAt" <= ${before}
      AND NOT ("webhookId" = ANY(${busyWebhookIds}::uuid[]))
    ORDER BY "nextAttemptAt" LIMIT ${limit}`;
}

/** Deletes up to `batch` finished deliveries (delivered or dropped) created before `cutoff`, their attempts with them. */
export function deleteFinishedDeliveries(db: Pick<Db, '$executeRaw'>, cutoff: Date, batch: number): Promise<number> {
  return db.$executeRaw`
      DELETE FROM "WebhookDelivery" WHERE id IN (
        SELECT id FROM "WebhookDelivery" WHERE status <> 'pending' AND "createdAt" < ${cutoff} LIMIT ${batch})`;
}

/*
 * The outbox: a `payment_status` delivery row per active endpoint of the organisation, written
 * INSIDE the database transaction (or the single statement) that changes the status. The event is
 * sent iff the change commits; a crash after the commit leaves the row for the dispatcher to send.
 * ONE builder of the rows (paymentStatusOutboxCte), embedded in a caller's statement (a payment's
 * settlement) or run alone (enqueuePaymentStatus). Every value is a parameter: the settlement runs
 * it as a prepared statement.
 */

/**
 * The rows as a CTE (`outbox`) of the caller's single statement: one per active endpoint of the
 * organisation of the row in the earlier CTE `source` (columns id, "organizationId"), none when
 * `source` is empty. `transaction` must be the row exactly as that statement leaves it: the bodies
 * are built from it here, before the statement runs (see payments/attempts.ts, which checks it
 * against the row the statement returns).
 */
export function paymentStatusOutboxCte(source: string, transaction: TransactionRecord, now: Date): Prisma.Sql {
  const from = Prisma.raw(`"${source.replace(/"/g, '')}"`);
  return Prisma.sql`
    outbox AS (
      INSERT INTO "WebhookDelivery" (id, "webhookId", event, "eventId", "transactionId", body, "nextAttemptAt", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), w.id, ${PAYMENT_STATUS_EVENT}::text, ${randomUUID()}::uuid, s.id,
        CASE WHEN w.version::text = 'v1' THEN ${paymentStatusBodyV1(transaction)}::text ELSE ${paymentStatusBodyV2(transaction)}::text END,
        ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM ${from} s JOIN "Webhook" w ON w."organizationId" = s."organizationId" AND w."isActive"
        AND ${PAYMENT_STATUS_EVENT}::text = ANY(w.events)
      RETURNING id)`;
}

/**
 * Call after the status change (escrow release to `paid`) in the same transaction `tx`, with the
 * transaction as `tx` now sees it: one statement, which writes nothing when the organisation has
 * no active endpoint. Returns how many rows it wrote.
 */
export async function enqueuePaymentStatus(tx: Pick<DbTransaction, '$queryRaw'>, transaction: TransactionRecord, now: Date): Promise<number> {
  const [row] = await tx.$queryRaw<{ count: number }[]>`
    WITH notified AS (SELECT ${transaction.id}::uuid AS id, ${transaction.organizationId}::uuid AS "organizationId"),
    ${paymentStatusOutboxCte('notified', transaction, now)}
    SELECT count(*)::int AS count FROM outbox`;
  return row?.count ?? 0;
}

/** One event of another kind than payment_status (payout_status, refund_status, payout_batch_status): the same body to every endpoint subscribed. */
export interface OutboxEvent {
  organizationId: string;
  event: Exclude<WebhookEvent, 'payment_status'>;
  /** Compact JSON, sent byte for byte (bodies.ts). */
  body: string;
  /** The transaction it tells of (refund_status): the delivery log filters by it. */
  transactionId?: string | null;
}

/**
 * The rows of `event` as a CTE (`outbox`) of the caller's single statement: one per active endpoint
 * subscribed to it of the organisation of the row in the earlier CTE `source` (columns id,
 * "organizationId"), none when `source` is empty. The body is built before the statement runs, so
 * it must be the row exactly as that statement leaves it (payouts/payouts.ts checks it).
 */
export function eventOutboxCte(source: string, outboxEvent: Omit<OutboxEvent, 'organizationId'>, now: Date): Prisma.Sql {
  const from = Prisma.raw(`"${source.replace(/"/g, '')}"`);
  return Prisma.sql`
    outbox AS (
      INSERT INTO "WebhookDelivery" (id, "webhookId", event, "eventId", "transactionId", body, "nextAttemptAt", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), w.id, ${outboxEvent.event}::text, ${randomUUID()}::uuid, ${outboxEvent.transactionId ?? null}::uuid, ${outboxEvent.body}::text,
        ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM ${from} s JOIN "Webhook" w ON w."organizationId" = s."organizationId" AND w."isActive" AND ${outboxEvent.event}::text = ANY(w.events)
      RETURNING id)`;
}

/**
 * Writes `event` to the outbox for every active endpoint of its organisation subscribed to it, in
 * ONE statement: call it inside the database transaction of the change it announces. Writes
 * nothing (and costs one index probe) when no endpoint is subscribed. Returns how many rows.
 */
export async function enqueueEvent(tx: Pick<DbTransaction, '$queryRaw'>, outboxEvent: OutboxEvent, now: Date): Promise<number> {
  const [row] = await tx.$queryRaw<{ count: number }[]>`
    WITH announced AS (SELECT ${outboxEvent.organizationId}::uuid AS "organizationId"),
    ${eventOutboxCte('announced', outboxEvent, now)}
    SELECT count(*)::int AS count FROM outbox`;
  return row?.count ?? 0;
}
