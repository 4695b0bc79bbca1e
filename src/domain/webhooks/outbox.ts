/**
 * The outbox: a `payment_status` delivery row per active endpoint of the organisation, written
 * by the caller INSIDE the database transaction that changes the status. The event is sent iff
 * the change commits; a crash after the commit leaves the row for the dispatcher to send.
 */
import { randomUUID } from 'node:crypto';
import type { DbTransaction } from '../context.js';
import { findVisibleTransaction } from '../transactions.js';
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
