/**
 * The outbox: a `payment_status` delivery row per active endpoint of the organisation, written
 * INSIDE the database transaction (or the single statement) that changes the status. The event is
 * sent iff the change commits; a crash after the commit leaves the row for the dispatcher to send.
 *
 * This file is the store of that effect: ONE builder of the rows (paymentStatusOutboxCte), embedded
 * in a caller's statement (a payment's settlement) or run alone (enqueuePaymentStatus). Every
 * value is a parameter: the settlement runs it as a prepared statement.
 */
import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import type { DbTransaction } from '../context.js';
import type { TransactionRecord } from '../transactions/transactions.js';
import { PAYMENT_STATUS_EVENT, paymentStatusBodyV1, paymentStatusBodyV2 } from './bodies.js';

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
