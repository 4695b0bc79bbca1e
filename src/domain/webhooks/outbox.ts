/**
 * The outbox: a `payment_status` delivery row per active endpoint of the organisation, written
 * by the caller INSIDE the database transaction that changes the status. The event is sent iff
 * the change commits; a crash after the commit leaves the row for the dispatcher to send.
 */
import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import type { DbTransaction } from '../context.js';
import { findVisibleTransaction, type TransactionRecord } from '../transactions/transactions.js';
import { PAYMENT_STATUS_EVENT, paymentStatusBodyV1, paymentStatusBodyV2 } from './bodies.js';

interface ActiveEndpoint {
  id: string;
  version: 'v1' | 'v2';
}

/**
 * Call after the status change (to `paid` / `paid_and_blocked`, or escrow release to `paid`) in
 * the same transaction `tx`. One statement when the organisation has no webhook (the common case
 * costs a round trip, no more); else the body is built from the row as this transaction sees it.
 */
export async function enqueuePaymentStatus(tx: DbTransaction, transactionId: string, now: Date = new Date()): Promise<number> {
  const endpoints = await tx.$queryRaw<ActiveEndpoint[]>`
    SELECT w.id, w.version::text AS version FROM "Webhook" w
    WHERE w."organizationId" = (SELECT "organizationId" FROM "Transaction" WHERE id = ${transactionId}::uuid) AND w."isActive"`;
  if (endpoints.length === 0) return 0;
  const transaction = await findVisibleTransaction(tx, null, transactionId);
  const bodies = { v1: paymentStatusBodyV1(transaction), v2: paymentStatusBodyV2(transaction) };
  const eventId = randomUUID();
  await tx.webhookDelivery.createMany({
    data: endpoints.map((endpoint) => ({
      webhookId: endpoint.id,
      event: PAYMENT_STATUS_EVENT,
      eventId,
      transactionId,
      body: bodies[endpoint.version],
      nextAttemptAt: now,
      createdAt: now,
    })),
  });
  return endpoints.length;
}

/**
 * The same rows as enqueuePaymentStatus, as a CTE (`outbox`) of the caller's single statement:
 * one per active endpoint of the organisation of the row in the earlier CTE `source` (columns id,
 * "organizationId"), none when `source` is empty. `transaction` must be the row exactly as that
 * statement leaves it: the bodies are built from it here, before the statement runs (see
 * payments/attempts.ts, which checks it against the row the statement returns).
 */
export function paymentStatusOutboxCte(source: string, transaction: TransactionRecord, now: Date): Prisma.Sql {
  const from = Prisma.raw(`"${source.replace(/"/g, '')}"`);
  return Prisma.sql`
    outbox AS (
      INSERT INTO "WebhookDelivery" (id, "webhookId", event, "eventId", "transactionId", body, "nextAttemptAt", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), w.id, ${PAYMENT_STATUS_EVENT}::text, ${randomUUID()}::uuid, s.id,
        CASE WHEN w.version::text = 'v1' THEN ${paymentStatusBodyV1(transaction)}::text ELSE ${paymentStatusBodyV2(transaction)}::text END,
        ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM ${from} s JOIN "Webhook" w ON w."organizationId" = s."organizationId" AND w."isActive")`;
}
