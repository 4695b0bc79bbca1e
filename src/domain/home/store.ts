/** The home page's counts, each one statement over the organisation's own rows. */
import type { Db } from '../ports.js';
import { PAID_VOLUME_STATUSES } from './paidVolume.js';

export interface PaidVolumeRecord {
  count: number;
  amount: bigint;
  fees: bigint;
}

/** Payments paid in [from, to) (by paidAt) that still count as paid volume (PAID_VOLUME_STATUSES). */
export async function paidVolumeBetween(db: Pick<Db, 'transaction'>, organizationId: string, from: Date, to: Date): Promise<PaidVolumeRecord> {
  const result = await db.transaction.aggregate({
    where: { organizationId, isDeleted: false, status: { in: [...PAID_VOLUME_STATUSES] }, paidAt: { gte: from, lt: to } },
    _count: { _all: true },
    _sum: { amount: true, fees: true },
  });
  return { count: result._count._all, amount: result._sum.amount ?? 0n, fees: result._sum.fees ?? 0n };
}

/**
 * Events whose delivery to an active endpoint failed for good (every attempt; the latest delivery
 * of the event to that endpoint is dropped, none pending or delivered), created since `since`:
 * what "Resend failed" would send again (webhooks/store.ts insertFailedRedeliveries, same rule).
 */
export async function countFailedDeliveries(db: Pick<Db, '$queryRaw'>, organizationId: string, since: Date): Promise<number> {
  const [row] = await db.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM (
      SELECT DISTINCT d."webhookId", d."eventId"
      FROM "WebhookDelivery" d JOIN "Webhook" w ON w.id = d."webhookId" AND w."isActive"
      WHERE w."organizationId" = ${organizationId}::uuid AND d."createdAt" >= ${since} AND d.status = 'dropped'
        AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" n WHERE n."webhookId" = d."webhookId" AND n."eventId" = d."eventId" AND n.status <> 'dropped')
    ) failed`;
  return row?.count ?? 0;
}

/** Deliveries still being retried after a failed attempt (the receiver answered badly or not at all). */
export function countRetryingDeliveries(db: Pick<Db, 'webhookDelivery'>, organizationId: string): Promise<number> {
  return db.webhookDelivery.count({ where: { status: 'pending', attemptCount: { gt: 0 }, webhook: { organizationId, isActive: true } } });
}

/** Payouts held for the operator's review (pending, never sent). */
export function countPayoutsAwaitingReview(db: Pick<Db, 'payout'>, organizationId: string): Promise<number> {
  return db.payout.count({ where: { organizationId, status: 'pending', sentAt: null, isDeleted: false } });
}

export interface LatePaymentSummary {
  transactionId: string;
  amount: bigint;
  outcome: string;
  createdAt: Date;
}

/** Payments a provider confirmed after the gateway had closed their attempt, since `since`, newest first. */
export function listRecentLatePayments(db: Pick<Db, 'latePayment'>, organizationId: string, since: Date, limit: number): Promise<LatePaymentSummary[]> {
  return db.latePayment.findMany({
    where: { organizationId, createdAt: { gte: since } },
    orderBy: { createdAt: 'desc' },
    take: limit,
    select: { transactionId: true, amount: true, outcome: true, createdAt: true },
  });
}
