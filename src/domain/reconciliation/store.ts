/** The reconciliation's SQL: what the ledger says moved through one method's provider in a period. */
import { Prisma } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { Db } from '../ports.js';

/** One operation as the gateway recorded it, keyed as the provider files it (our reference). */
export interface LedgerRecord {
  kind: 'payment' | 'refund' | 'payout';
  /** The reference the provider keeps: the attempt id (payments; refunds are filed under the payment's), the payout id. */
  reference: string;
  amount: bigint;
  /** succeeded: money moved by the ledger; pending: an open call (the provider may have acted). */
  status: 'succeeded' | 'pending';
  /** The provider's id of the payment (Wave: the checkout session), for lines that lack our reference; '' when none. */
  collectionReference: string;
  /**
   * A payment attempt still open here (the customer may not have paid): compared only when the
   * provider has it (then a status mismatch: paid there, its notification not settled here yet).
   */
  optional: boolean;
}

/** How far before the period an attempt still open may have been made (a Wave session lives 30 minutes). */
const OPEN_ATTEMPT_LOOKBACK_MS = 86_400_000;

/** Most operations one reconciliation compares (a bigger period must be split). */
export const MAX_LEDGER_RECORDS = 50_000;

/**
 * Payments settled paid in the period (and late payments, paid at the provider and recorded or
 * returned), attempts still open (optional: see LedgerRecord), refunds that succeeded (under the paid attempt's id) and returned late payments, and
 * payouts sent in the period (completed, or still pending with the provider). Failed operations
 * moved nothing and are not listed.
 */
export async function ledgerRecords(db: Db, method: PaymentMethod, from: Date, to: Date): Promise<LedgerRecord[]> {
  const rows = await db.$queryRaw<Array<Omit<LedgerRecord, 'amount'> & { amount: bigint }>>(Prisma.sql`
    SELECT 'payment' AS kind, a.id::text AS reference, a.amount, (CASE WHEN a.state = 'succeeded' THEN 'succeeded' ELSE 'pending' END) AS status,
        a."providerReference" AS "collectionReference", false AS optional
      FROM "PaymentAttempt" a
      WHERE a.method = ${method}::"PaymentMethod" AND ((a.state = 'succeeded' AND a."settledAt" BETWEEN ${from} AND ${to}))
    UNION ALL
    SELECT 'payment', a.id::text, a.amount, 'pending', a."providerReference", true
      FROM "PaymentAttempt" a
      WHERE a.method = ${method}::"PaymentMethod" AND a.state = 'collecting' AND a."createdAt" BETWEEN ${new Date(from.getTime() - OPEN_ATTEMPT_LOOKBACK_MS)} AND ${to}
    UNION ALL
    SELECT 'payment', l."attemptId"::text, l.amount, 'succeeded', l."providerReference", false
      FROM "LatePayment" l WHERE l.method = ${method}::"PaymentMethod" AND l.outcome <> 'recorded' AND l."createdAt" BETWEEN ${from} AND ${to}
    UNION ALL
    SELECT 'refund', pa.id::text, r.amount, (CASE WHEN r.status = 'succeeded' THEN 'succeeded' ELSE 'pending' END), pa."providerReference", false
      FROM "Refund" r JOIN LATERAL (SELECT id, "providerReference" FROM "PaymentAttempt" WHERE "transactionId" = r."transactionId" AND state = 'succeeded' ORDER BY "settledAt" DESC LIMIT 1) pa ON true
      WHERE r.method = ${method}::"PaymentMethod" AND r.status IN ('succeeded', 'pending') AND r."updatedAt" BETWEEN ${from} AND ${to}
    UNION ALL
    SELECT 'refund', l."attemptId"::text, l.amount, (CASE WHEN l.outcome = 'returned' THEN 'succeeded' ELSE 'pending' END), l."providerReference", false
      FROM "LatePayment" l WHERE l.method = ${method}::"PaymentMethod" AND l.outcome IN ('returned', 'returning') AND COALESCE(l."settledAt", l."createdAt") BETWEEN ${from} AND ${to}
    UNION ALL
    SELECT 'payout', p.id::text, p.amount, (CASE WHEN p.status = 'completed' THEN 'succeeded' ELSE 'pending' END), '', false
      FROM "Payout" p
      WHERE p."selectedPaymentMethod" = ${method}::"PaymentMethod" AND p."sentAt" BETWEEN ${from} AND ${to} AND (p.status = 'completed' OR (p.status = 'pending' AND p."sentAt" IS NOT NULL))
    LIMIT ${MAX_LEDGER_RECORDS + 1}`);
  return rows.map((row) => ({ ...row, amount: BigInt(row.amount) }));
}
