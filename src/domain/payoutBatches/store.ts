/**
 * The payout batches' SQL. Who runs a batch is decided here, by PostgreSQL:
 *
 *   claimBatch   a running batch whose runner lease lapsed (or never had one) is taken by ONE
 *                runner (FOR UPDATE SKIP LOCKED, then the lease), whatever the instances.
 *   renewLease   the holder extends its lease before each item, only while it still holds it and
 *                the batch still runs (a cancel, or a lapse taken over by another, stops it).
 *   claimItem    the next item: one left `processing` by a runner that died first (it is resumed
 *                under its own idempotency key, so its payout is never recorded or sent twice),
 *                else the first `queued` by line.
 */
import { Prisma } from '../../generated/prisma/client.js';
import type { PayoutBatch, PayoutBatchItem } from '../../generated/prisma/client.js';
import type { Db, DbTransaction } from '../context.js';
import type { BatchLineError, ValidItem } from './rules.js';
import { auditEventStatementPart, type AuditEventInput } from '../audit/recordAuditEvent.js';

export type PayoutBatchRecord = PayoutBatch;

/** An item as the results read it: its payout's status (or its own state) and why it failed. */
export interface BatchItemRow extends PayoutBatchItem {
  /** The payout's status; else `queued`, `pending` (being sent), `failed` (refused before a payout), `cancelled`. */
  payoutStatus: string;
  reasonFailed: string | null;
}

/** The item statuses counted on a batch (BatchItemRow.payoutStatus). */
export const ITEM_STATUSES = ['queued', 'pending', 'completed', 'failed', 'cancelled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

const itemStatusSql = Prisma.sql`CASE WHEN i."payoutId" IS NOT NULL THEN p.status::text WHEN i.state = 'done' THEN 'failed'
  WHEN i.state = 'processing' THEN 'pending' ELSE i.state::text END`;

/** Rows written per INSERT (a 5,000-item batch is 10 statements, each a few hundred kB of parameters at most). */
const INSERT_CHUNK = 500;

export async function insertDraft(
  tx: DbTransaction,
  batch: { id: string; organizationId: string; itemCount: number; totalAmount: bigint; totalFees: bigint; errors: BatchLineError[] },
  items: readonly ValidItem[],
): Promise<PayoutBatchRecord> {
  const created = await tx.payoutBatch.create({
    data: { ...batch, validCount: items.length, errors: batch.errors as unknown as Prisma.InputJsonArray },
  });
  for (let start = 0; start < items.length; start += INSERT_CHUNK) {
    const chunk = items.slice(start, start + INSERT_CHUNK);
    const column = <T>(pick: (item: ValidItem) => T) => chunk.map(pick);
    await tx.$executeRaw`
      INSERT INTO "PayoutBatchItem" ("batchId", line, method, amount, fee, "recipientFirstName", "recipientLastName", "recipientPhone", reason, reference)
      SELECT ${batch.id}::uuid, t.line, t.method::"PaymentMethod", t.amount, t.fee, t.first_name, t.last_name, t.phone, t.reason, t.reference
      FROM unnest(${column((item) => item.line)}::int[], ${column((item) => item.method)}::text[], ${column((item) => item.amount.toString())}::bigint[],
        ${column((item) => item.fee.toString())}::bigint[], ${column((item) => item.recipientFirstName)}::text[], ${column((item) => item.recipientLastName)}::text[],
        ${column((item) => item.recipientPhone)}::text[], ${column((item) => item.reason)}::text[], ${column((item) => item.reference)}::text[])
        AS t(line, method, amount, fee, first_name, last_name, phone, reason, reference)`;
  }
  return created;
}

/** The batch `id` of `organizationId` (any, for null); null when there is none. */
export function readBatch(db: Pick<Db, 'payoutBatch'>, organizationId: string | null, id: string): Promise<PayoutBatchRecord | null> {
  return db.payoutBatch.findFirst({ where: { id, ...(organizationId && { organizationId }) } });
}

/** How many items of the batch are in each status. */
export async function countItems(db: Pick<Db, '$queryRaw'>, batchId: string): Promise<Record<ItemStatus, number>> {
  const rows = await db.$queryRaw<{ status: ItemStatus; count: number }[]>`
    SELECT ${itemStatusSql} AS status, count(*)::int AS count
    FROM "PayoutBatchItem" i LEFT JOIN "Payout" p ON p.id = i."payoutId"
    WHERE i."batchId" = ${batchId}::uuid GROUP BY 1`;
  const counts = Object.fromEntries(ITEM_STATUSES.map((status) => [status, 0])) as Record<ItemStatus, number>;
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

/** A page of items by line, optionally of one status, and how many match. */
export async function listItemsPage(
  db: Pick<Db, '$queryRaw'>,
  batchId: string,
  status: ItemStatus | null,
  skip: number,
  limit: number,
): Promise<{ items: BatchItemRow[]; totalCount: number }> {
  const where = Prisma.sql`i."batchId" = ${batchId}::uuid AND (${status}::text IS NULL OR ${itemStatusSql} = ${status}::text)`;
  const [items, [total]] = await Promise.all([
    db.$queryRaw<BatchItemRow[]>`
      SELECT i.*, ${itemStatusSql} AS "payoutStatus", COALESCE(i."failureReason", p."failureReason") AS "reasonFailed"
      FROM "PayoutBatchItem" i LEFT JOIN "Payout" p ON p.id = i."payoutId"
      WHERE ${where} ORDER BY i.line LIMIT ${limit} OFFSET ${skip}`,
    db.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM "PayoutBatchItem" i LEFT JOIN "Payout" p ON p.id = i."payoutId" WHERE ${where}`,
  ]);
  return { items, totalCount: total?.count ?? 0 };
}

/** Every item by line, `batchRows` at a time (keyset on line): an export's memory is one batch of rows. */
export async function* itemRowBatches(db: Pick<Db, '$queryRaw'>, batchId: string, batchRows: number): AsyncGenerator<BatchItemRow[], void, undefined> {
  let after = 0;
  for (;;) {
    const rows = await db.$queryRaw<BatchItemRow[]>`
      SELECT i.*, ${itemStatusSql} AS "payoutStatus", COALESCE(i."failureReason", p."failureReason") AS "reasonFailed"
      FROM "PayoutBatchItem" i LEFT JOIN "Payout" p ON p.id = i."payoutId"
      WHERE i."batchId" = ${batchId}::uuid AND i.line > ${after} ORDER BY i.line LIMIT ${batchRows}`;
    if (rows.length === 0) return;
    yield rows;
    after = rows.at(-1)!.line;
    if (rows.length < batchRows) return;
  }
}

/** Draft -> running, only from draft; null when it was not a draft any more. */
export async function markRunning(
  tx: Pick<DbTransaction, 'payoutBatch'>,
  id: string,
  startedBy: Prisma.InputJsonObject,
  now: Date,
): Promise<PayoutBatchRecord | null> {
  const { count } = await tx.payoutBatch.updateMany({ where: { id, status: 'draft' }, data: { status: 'running', startedBy, startedAt: now } });
  return count === 1 ? tx.payoutBatch.findUnique({ where: { id } }) : null;
}

/** Draft or running -> cancelled, its items not yet started with it; null when it had already ended. */
export async function markCancelled(tx: Pick<DbTransaction, 'payoutBatch' | 'payoutBatchItem'>, id: string, now: Date): Promise<PayoutBatchRecord | null> {
  const { count } = await tx.payoutBatch.updateMany({
    where: { id, status: { in: ['draft', 'running'] } },
    data: { status: 'cancelled', finishedAt: now, runnerId: null, runnerLeaseUntil: null },
  });
  if (count !== 1) return null;
  await tx.payoutBatchItem.updateMany({ where: { batchId: id, state: 'queued' }, data: { state: 'cancelled', updatedAt: now } });
  return tx.payoutBatch.findUnique({ where: { id } });
}

/** A running batch no live runner holds, taken by `runnerId` until `now + leaseMs`; null when there is none. */
export async function claimBatch(db: Pick<Db, '$queryRaw'>, runnerId: string, now: Date, leaseMs: number): Promise<PayoutBatchRecord | null> {
  const [row] = await db.$queryRaw<PayoutBatchRecord[]>`
    UPDATE "PayoutBatch" b SET "runnerId" = ${runnerId}::uuid, "runnerLeaseUntil" = ${new Date(now.getTime() + leaseMs)}, "updatedAt" = ${now}
    WHERE b.id = (
      SELECT id FROM "PayoutBatch" WHERE status = 'running' AND ("runnerLeaseUntil" IS NULL OR "runnerLeaseUntil" < ${now})
      ORDER BY "startedAt" LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING b.*`;
  return row ?? null;
}

/** Extends the holder's lease while the batch runs; false when it no longer holds it or the batch stopped. */
export async function renewLease(db: Pick<Db, 'payoutBatch'>, batchId: string, runnerId: string, now: Date, leaseMs: number): Promise<boolean> {
  const { count } = await db.payoutBatch.updateMany({
    where: { id: batchId, runnerId, status: 'running' },
    data: { runnerLeaseUntil: new Date(now.getTime() + leaseMs) },
  });
  return count === 1;
}

/** Gives the batch up (the runner stops: it waits for the organisation's payout slot, or it is shutting down). */
export async function releaseBatch(db: Pick<Db, 'payoutBatch'>, batchId: string, runnerId: string): Promise<void> {
  await db.payoutBatch.updateMany({ where: { id: batchId, runnerId }, data: { runnerId: null, runnerLeaseUntil: null } });
}

/** The next item to send (see the file's comment), marked `processing`; null when none is left. */
export async function claimItem(db: Pick<Db, '$queryRaw'>, batchId: string, now: Date): Promise<PayoutBatchItem | null> {
  const [row] = await db.$queryRaw<PayoutBatchItem[]>`
    UPDATE "PayoutBatchItem" i SET state = 'processing', "claimedAt" = COALESCE(i."claimedAt", ${now}), "updatedAt" = ${now}
    WHERE i."batchId" = ${batchId}::uuid AND i.line = (
      SELECT line FROM "PayoutBatchItem" WHERE "batchId" = ${batchId}::uuid AND state IN ('processing', 'queued')
      ORDER BY state = 'processing' DESC, line LIMIT 1)
      AND i.state IN ('processing', 'queued')
    RETURNING i.*`;
  return row ?? null;
}

/** The item was answered by the payout flow: its payout (if one was recorded) and why it failed (if it did). */
export async function markItemDone(
  db: Pick<Db, '$queryRaw'>,
  batchId: string,
  line: number,
  outcome: { payoutId: string | null; failureReason: string | null },
  now: Date,
  audit: AuditEventInput,
): Promise<void> {
  // ONE statement, the item and its audit entry (written only when the item was this runner's to
  // mark): no transaction of its own, which cost the runner two more round trips per item.
  await db.$queryRaw`
    WITH done AS (
      UPDATE "PayoutBatchItem" SET state = 'done', "payoutId" = ${outcome.payoutId}::uuid, "failureReason" = ${outcome.failureReason}::text, "updatedAt" = ${now}
      WHERE "batchId" = ${batchId}::uuid AND line = ${line}::int AND state = 'processing'
      RETURNING line),
    ${auditEventStatementPart('audited', 'done', audit)}
    SELECT count(*)::int AS count FROM done`;
}

/** The payout linked to an item (store.ts of payouts: BatchItemRef), or null when it has none. */
export async function findLinkedPayout(
  db: Pick<Db, '$queryRaw'>,
  batchId: string,
  line: number,
): Promise<{ id: string; status: string; failureReason: string | null } | null> {
  const [row] = await db.$queryRaw<{ id: string; status: string; failureReason: string | null }[]>`
    SELECT p.id, p.status::text AS status, p."failureReason" FROM "PayoutBatchItem" i JOIN "Payout" p ON p.id = i."payoutId"
    WHERE i."batchId" = ${batchId}::uuid AND i.line = ${line}::int`;
  return row ?? null;
}

/** Running -> completed (or completed_with_failures when an item failed), once no item is left; null when items remain or it stopped. */
export async function markFinished(tx: Pick<DbTransaction, '$queryRaw'>, batchId: string, now: Date): Promise<PayoutBatchRecord | null> {
  const [row] = await tx.$queryRaw<PayoutBatchRecord[]>`
    UPDATE "PayoutBatch" b SET
      status = (CASE WHEN EXISTS (
        SELECT 1 FROM "PayoutBatchItem" i LEFT JOIN "Payout" p ON p.id = i."payoutId"
        WHERE i."batchId" = b.id AND ${itemStatusSql} = 'failed') THEN 'completed_with_failures' ELSE 'completed' END)::"PayoutBatchStatus",
      "finishedAt" = ${now}, "runnerId" = NULL, "runnerLeaseUntil" = NULL, "updatedAt" = ${now}
    WHERE b.id = ${batchId}::uuid AND b.status = 'running'
      AND NOT EXISTS (SELECT 1 FROM "PayoutBatchItem" i WHERE i."batchId" = b.id AND i.state IN ('queued', 'processing'))
    RETURNING b.*`;
  return row ?? null;
}

/** `main`'s balance now. */
export async function mainBalanceOf(db: Pick<Db, 'account'>, organizationId: string): Promise<bigint> {
  const account = await db.account.findUnique({ where: { organizationId_name: { organizationId, name: 'main' } }, select: { balance: true } });
  return account?.balance ?? 0n;
}
