/**
 * The payouts' store: the only place their SQL lives, one function per effect. Each money effect
 * is ONE statement, run as it is on `ctx.db` (a request without an Idempotency-Key: atomic by
 * itself, with the merchant's hot `main` row locked for that one statement) or in the key's
 * database transaction (the key row then commits with it). Lock order: the organisation's lease,
 * then the Payout row, then `main`.
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type Payout } from '../../generated/prisma/client.js';
import type { PaymentMethod, PayoutStatus } from '../../generated/prisma/enums.js';
import type { GatewayContext } from '../context.js';
import type { KeysetSlice } from '../cursors.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { clearingAccountOf, debitPostingCtes, statementPostingCtes } from '../ledger/posting.js';
import type { rangeConditions } from '../listFilters.js';
import type { Db, DbTransaction, ProviderAnswer } from '../ports.js';
import { settleDurably } from '../providerFlow.js';
import { keepLease, type LeaseKeeper } from '../leases.js';
import { namedStatement, runStatement } from '../statements.js';
import { escapeLike } from '../text.js';
import { eventOutboxCte } from '../webhooks/store.js';
import { compactPhone, phoneSearchCandidates } from '../phones.js';
import { toWireAmount } from '../money.js';
import { auditEventStatementPart, type AuditEventInput } from '../audit/recordAuditEvent.js';

export type PayoutRecord = Payout;

/** A payout as recorded, ready for phase 1 (validated by the operation). */
export interface NewPayout {
  method: PaymentMethod;
  amount: bigint;
  recipientFirstName: string | null;
  recipientLastName: string | null;
  recipientPhone: string;
  reason: string;
}

/** What phase 1 recorded: what the call and the settlement need. */
export interface PayoutIntent {
  payoutId: string;
  organizationId: string;
  method: PaymentMethod;
  phone: string;
  amount: bigint;
  /** false: above the review threshold, it waits for the operator and is not sent now. */
  send: boolean;
  /** The payout as phase 1's statement wrote it: its settlement projects the payout_status body from it. */
  recorded: PayoutRecord;
}

/**
 * The per-organisation lease's life past its last renewal. Its holder renews it while its request
 * runs (keepPayoutLease: a provider call of any length keeps it), so this is how long a dead
 * holder's lease (a killed process) keeps the organisation's other payouts waiting (409).
 */
const PAYOUT_LEASE_LIFE_MS = 5_000;

/** The Payout row's columns as Prisma reads them (enums as text, as its own reads return them). */
const payoutColumns = (alias: string): Prisma.Sql => {
  const p = Prisma.raw(`"${alias}"`);
  return Prisma.sql`${p}.id, ${p}."organizationId", ${p}."selectedPaymentMethod"::text AS "selectedPaymentMethod", ${p}.amount, ${p}.fees, ${p}.currency,
    ${p}."recipientFirstName", ${p}."recipientLastName", ${p}."recipientPhone", ${p}.status::text AS status, ${p}.reason, ${p}."providerReference",
    ${p}."failureReason", ${p}."isDeleted", ${p}."paidAt", ${p}."sentAt", ${p}."createdAt", ${p}."updatedAt", ${p}."providerChecks", ${p}."nextProviderCheckAt"`;
};

// ---------------------------------------------------------------------------------------------
// Reads

/**
 * A payout the caller may see: of `organizationId`, or of any organisation when it is null
 * (operators). Another organisation's payout answers exactly like a missing one.
 */
export async function findVisiblePayout(db: Pick<Db, 'payout'>, organizationId: string | null, orderId: string): Promise<PayoutRecord> {
  const payout = isUuid(orderId) ? await db.payout.findFirst({ where: { id: orderId, ...(organizationId !== null && { organizationId }) } }) : null;
  if (!payout) throw new DomainError('payout_not_found');
  return payout;
}

/** What GET /payouts filters on, validated by listPayouts. */
export interface PayoutListFilter {
  /** null: every organisation (operators). */
  organizationId: string | null;
  status?: PayoutStatus;
  paymentMethod?: PaymentMethod;
  /** Compacted (phones.ts); exact match. */
  recipientPhone?: string;
  ranges: ReturnType<typeof rangeConditions>;
  includeDeleted?: boolean;
  search?: string;
}

/** One page of payouts, newest first, and how many match. */
export async function listPayoutsPage(
  db: Db,
  filter: PayoutListFilter,
  window: { skip: number; take: number },
): Promise<{ items: PayoutRecord[]; totalCount: number }> {
  const where = payoutListWhere(filter);
  const [items, totalCount] = await Promise.all([
    db.payout.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: window.skip, take: window.take }),
    db.payout.count({ where }),
  ]);
  return { items, totalCount };
}

/** The list's filter as Prisma conditions. */
function payoutListWhere(filter: PayoutListFilter): Prisma.PayoutWhereInput {
  return {
    ...(filter.organizationId !== null && { organizationId: filter.organizationId }),
    ...(!filter.includeDeleted && { isDeleted: false }),
    ...(filter.status && { status: filter.status }),
    ...(filter.paymentMethod && { selectedPaymentMethod: filter.paymentMethod }),
    ...(filter.recipientPhone && { recipientPhone: filter.recipientPhone }),
    ...filter.ranges,
    ...(filter.search && { OR: searchConditions(filter.search) }),
  };
}

/**
 * A keyset slice of the list (Relay connections): the rows just past `slice.position` in list order
 * (newest first by createdAt, id), one more than asked; backward slices nearest the cursor first.
 * No OFFSET, so a payout created meanwhile never shifts a later slice. With the matching total.
 */
export async function listPayoutsSlice(db: Db, filter: PayoutListFilter, slice: KeysetSlice): Promise<{ items: PayoutRecord[]; totalCount: number }> {
  const where = payoutListWhere(filter);
  const forward = slice.direction === 'forward';
  const beyond = forward ? 'lt' : 'gt';
  const past: Prisma.PayoutWhereInput | undefined = slice.position
    ? { OR: [{ createdAt: { [beyond]: slice.position.createdAt } }, { createdAt: slice.position.createdAt, id: { [beyond]: slice.position.id } }] }
    : undefined;
  const direction = forward ? ('desc' as const) : ('asc' as const);
  const [items, totalCount] = await Promise.all([
    db.payout.findMany({ where: past ? { AND: [where, past] } : where, orderBy: [{ createdAt: direction }, { id: direction }], take: slice.limit + 1 }),
    db.payout.count({ where }),
  ]);
  return { items, totalCount };
}

/** One organisation's keyset slice, as listPayoutsSlice reads it (its rows, then the total matching). */
export interface OrganizationPayoutSlice {
  items: PayoutRecord[];
  totalCount: number;
}

/**
 * The same keyset slice (and total) of each of several organisations' payouts, in ONE statement
 * whatever their number (GraphQL's Organization.payouts under a list of organisations: one slice
 * per organisation cost two statements each). Per organisation, a LATERAL subquery reads its rows
 * past the cursor by the (organizationId, createdAt) index, LIMIT n + 1, as listPayoutsSlice does;
 * a ROW_NUMBER() over every organisation's matching rows would read and sort all of them to keep
 * n + 1 each. An organisation without a matching row still has its line (LEFT JOIN), for its total
 * of 0. `filter.organizationId` must be null: the organisations are `organizationIds`.
 */
export async function listPayoutSlicesOfOrganizations(
  db: Pick<Db, '$queryRawUnsafe'>,
  organizationIds: readonly string[],
  filter: PayoutListFilter,
  slice: KeysetSlice,
): Promise<Map<string, OrganizationPayoutSlice>> {
  const slices = new Map<string, OrganizationPayoutSlice>(organizationIds.map((id) => [id, { items: [], totalCount: 0 }]));
  if (organizationIds.length === 0) return slices;
  if (filter.organizationId !== null) throw new Error('listPayoutSlicesOfOrganizations: the organisations are given apart from the filter');
  const where = payoutListConditions(filter);
  const forward = slice.direction === 'forward';
  const order = forward ? Prisma.sql`p."createdAt" DESC, p.id DESC` : Prisma.sql`p."createdAt" ASC, p.id ASC`;
  const past = slice.position
    ? forward
      ? Prisma.sql` AND (p."createdAt", p.id) < (${slice.position.createdAt}::timestamptz, ${slice.position.id}::uuid)`
      : Prisma.sql` AND (p."createdAt", p.id) > (${slice.position.createdAt}::timestamptz, ${slice.position.id}::uuid)`
    : Prisma.empty;
  // The ids travel as one text (the embedded database's adapter passes no array parameters).
  const query = Prisma.sql`
    SELECT o.id::text AS "listedFor", o.total AS "listedTotal", ${payoutColumns('p')}
    FROM (
      SELECT o.id, (SELECT count(*)::int FROM (SELECT 1 FROM "Payout" p WHERE p."organizationId" = o.id AND ${where} OFFSET 0) matching) AS total
      FROM unnest(string_to_array(${organizationIds.join(',')}::text, ',')::uuid[]) AS o(id)
    ) o
    LEFT JOIN LATERAL (
      SELECT * FROM "Payout" p WHERE p."organizationId" = o.id AND ${where}${past} ORDER BY ${order} LIMIT ${slice.limit + 1}::int
    ) p ON TRUE
    ORDER BY o.id, ${order}`;
  const rows = await runStatement<PayoutRecord & { listedFor: string; listedTotal: number }>(
    db,
    namedStatement('gw_slice_payouts_of_organizations', query),
    query.values,
  );
  for (const { listedFor, listedTotal, ...row } of rows) {
    const listed = slices.get(listedFor)!;
    listed.totalCount = listedTotal;
    if (row.id !== null) listed.items.push(row);
  }
  return slices;
}

/**
 * The list's filter (payoutListWhere's conditions, one for one) as SQL over "Payout" p, every value
 * a bound parameter. Prisma cannot express a per-organisation LIMIT, so the batched read above
 * needs them in SQL; test/integration/graphql/no-n-plus-one.test.ts checks that both agree, filter
 * by filter, on the same payouts.
 */
function payoutListConditions(filter: PayoutListFilter): Prisma.Sql {
  const { amount, createdAt } = filter.ranges;
  const conditions: Prisma.Sql[] = [];
  if (filter.organizationId !== null) conditions.push(Prisma.sql`p."organizationId" = ${filter.organizationId}::uuid`);
  if (!filter.includeDeleted) conditions.push(Prisma.sql`p."isDeleted" = false`);
  if (filter.status) conditions.push(Prisma.sql`p.status = ${filter.status}::"PayoutStatus"`);
  if (filter.paymentMethod) conditions.push(Prisma.sql`p."selectedPaymentMethod" = ${filter.paymentMethod}::"PaymentMethod"`);
  if (filter.recipientPhone) conditions.push(Prisma.sql`p."recipientPhone" = ${filter.recipientPhone}::text`);
  if (amount.gte !== undefined) conditions.push(Prisma.sql`p.amount >= ${String(amount.gte)}::bigint`);
  if (amount.lte !== undefined) conditions.push(Prisma.sql`p.amount <= ${String(amount.lte)}::bigint`);
  if (createdAt.gte) conditions.push(Prisma.sql`p."createdAt" >= ${createdAt.gte}::timestamptz`);
  if (createdAt.lte) conditions.push(Prisma.sql`p."createdAt" <= ${createdAt.lte}::timestamptz`);
  if (filter.search) {
    // searchConditions', as Prisma writes them: `contains` is LIKE '%…%' (ILIKE when insensitive).
    const contains = `%${escapeLike(filter.search)}%`;
    const phones = phoneSearchCandidates(filter.search);
    conditions.push(
      phones
        ? Prisma.sql`p."recipientPhone" IN (${Prisma.join(phones.map((phone) => Prisma.sql`${phone}::text`))})`
        : Prisma.sql`(${isUuid(filter.search) ? Prisma.sql`p.id = ${filter.search}::uuid OR ` : Prisma.empty}p."recipientFirstName" ILIKE ${contains}::text
      OR p."recipientLastName" ILIKE ${contains}::text OR p."recipientPhone" LIKE ${`%${escapeLike(compactPhone(filter.search))}%`}::text
      OR (p."providerReference" <> '' AND p."providerReference" = ${filter.search}::text)
      OR p.reason ILIKE ${contains}::text)`,
    );
  }
  return conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`TRUE`;
}

/**
 * Every payout the list's filter matches, newest first (the list's order), in batches of at most
 * `batchRows`: one keyset page per batch, so nothing is held between batches (no connection, no
 * snapshot). A keyset page rather than a cursor: an organisation's payouts are counted in
 * thousands (one per withdrawal), not in millions like its transactions.
 */
export async function* exportPayoutRows(db: Pick<Db, 'payout'>, filter: PayoutListFilter, batchRows: number): AsyncGenerator<PayoutRecord[], void, undefined> {
  const where = payoutListWhere(filter);
  let last: PayoutRecord | undefined;
  for (;;) {
    const past: Prisma.PayoutWhereInput | undefined = last && {
      OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: last.id } }],
    };
    const rows = await db.payout.findMany({ where: past ? { AND: [where, past] } : where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: batchRows });
    if (rows.length > 0) yield rows;
    if (rows.length < batchRows) return;
    last = rows.at(-1);
  }
}

/**
 * Free text: order id, recipient name or phone, the provider's reference (exact), reason. A text
 * written like a whole phone number, in any common writing, is the recipient's number
 * (phoneSearchCandidates), matched exactly through the (organisation, recipient phone) index.
 */
function searchConditions(search: string): Prisma.PayoutWhereInput[] {
  const phones = phoneSearchCandidates(search);
  if (phones) return [{ recipientPhone: { in: phones } }];
  const contains = { contains: escapeLike(search), mode: 'insensitive' as const };
  return [
    ...(isUuid(search) ? [{ id: search }] : []),
    { recipientFirstName: contains },
    { recipientLastName: contains },
    { recipientPhone: { contains: escapeLike(compactPhone(search)) } },
    { AND: [{ providerReference: search }, { NOT: { providerReference: '' } }] },
    { reason: contains },
  ];
}

/** The review queue (pending, never sent), of one organisation or all, oldest first. */
export async function listAwaitingReviewPage(
  db: Db,
  organizationId: string | undefined,
  window: { skip: number; take: number },
): Promise<{ items: PayoutRecord[]; totalCount: number }> {
  const where = { status: 'pending' as const, sentAt: null, ...(organizationId && { organizationId }) };
  const [items, totalCount] = await Promise.all([
    db.payout.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: window.skip, take: window.take }),
    db.payout.count({ where }),
  ]);
  return { items, totalCount };
}

// ---------------------------------------------------------------------------------------------
// The organisation's lease

/** A held payout lease: release it when the request ends. */
export interface PayoutLease {
  organizationId: string;
  holder: string;
}

/** A lease this request will try to take (in its own statement, or folded into phase 1's). */
export const newPayoutLease = (organizationId: string): PayoutLease => ({ organizationId, holder: randomUUID() });

/**
 * Takes the organisation's lease, or takes nothing when another payout holds it: PostgreSQL
 * decides, on every instance; an expired lease is taken over, a live one is not (the database's
 * clock, the same for every instance). RETURNING says whether this request got it. One fragment:
 * a statement of its own (takePayoutLease) or the first CTE of phase 1's statement.
 */
/** Takes the lease; with `onlyIfRowsIn`, only when that earlier CTE has a row. */
const takeLeaseSql = (lease: PayoutLease, ttlMs: number, onlyIfRowsIn?: string): Prisma.Sql => Prisma.sql`
  INSERT INTO "PayoutLease" ("organizationId", holder, "expiresAt")
  SELECT ${lease.organizationId}::uuid, ${lease.holder}::uuid, now() + ${ttlMs}::int * interval '1 millisecond'
  ${onlyIfRowsIn ? Prisma.raw(`WHERE EXISTS (SELECT 1 FROM "${onlyIfRowsIn}")`) : Prisma.empty}
  ON CONFLICT ("organizationId") DO UPDATE SET holder = EXCLUDED.holder, "expiresAt" = EXCLUDED."expiresAt"
  WHERE "PayoutLease"."expiresAt" < now()
  RETURNING holder`;

/**
 * Releasing expires the row rather than deleting it: the next payout of the organisation updates
 * it in place (a HOT update: no index entry, no dead row per payout), which the bench showed
 * matters at hundreds of payouts a second.
 */
const RELEASE_LEASE = {
  name: 'gw_payout_lease_release',
  text: `UPDATE "PayoutLease" SET "expiresAt" = '-infinity' WHERE "organizationId" = $1::uuid AND holder = $2::uuid`,
};

/** The lease in a statement of its own (an operator's approval); 409 while another payout holds it. */
export async function takePayoutLease(ctx: GatewayContext, organizationId: string): Promise<PayoutLease> {
  const lease = newPayoutLease(organizationId);
  const statement = takeLeaseSql(lease, leaseTtlMs(ctx));
  const rows = await runStatement<{ holder: string }>(ctx.db, { name: 'gw_payout_lease_take', text: statement.text }, statement.values);
  if (rows[0]?.holder !== lease.holder) throw new DomainError('payout_in_progress');
  return lease;
}

const leaseTtlMs = (ctx: GatewayContext): number => ctx.settings.payoutLockTtlMs ?? PAYOUT_LEASE_LIFE_MS;

/**
 * Extends the lease by another life, only while this holder still holds it and it has not lapsed
 * (a lapsed lease is never revived: another payout may have taken it, or may be about to).
 */
const RENEW_LEASE = {
  name: 'gw_payout_lease_renew',
  text: `UPDATE "PayoutLease" SET "expiresAt" = now() + $3::int * interval '1 millisecond'
    WHERE "organizationId" = $1::uuid AND holder = $2::uuid AND "expiresAt" > now() RETURNING holder`,
};

/**
 * Renews the held lease while the request runs (leases.ts): call once the lease is taken, stop
 * when the request ends. A renewal that finds the lease gone (released, or lapsed) stops renewing.
 */
export function keepPayoutLease(ctx: GatewayContext, lease: PayoutLease): LeaseKeeper {
  const ttlMs = leaseTtlMs(ctx);
  return keepLease(
    ttlMs,
    async () => (await runStatement<{ holder: string }>(ctx.db, RENEW_LEASE, [lease.organizationId, lease.holder, ttlMs])).length > 0,
    ctx.log,
    { organizationId: lease.organizationId },
  );
}

/** Releases the lease if this request still holds it; a release that fails only lets it lapse at its ttl. */
export async function releasePayoutLease(ctx: GatewayContext, lease: PayoutLease | null, db: Db | DbTransaction = ctx.db): Promise<void> {
  if (!lease) return;
  // Retried across a dropped connection (a release is idempotent): a lease left behind would
  // refuse the organisation's payouts (409) until its ttl.
  await settleDurably(ctx, { organizationId: lease.organizationId }, () => runStatement(db, RELEASE_LEASE, [lease.organizationId, lease.holder])).catch(
    (error: unknown) => ctx.log.warn({ err: error, organizationId: lease.organizationId }, 'could not release a payout lease; it lapses at its ttl'),
  );
}

// ---------------------------------------------------------------------------------------------
// Phase 1

/**
 * Phase 1, ONE statement: the organisation's lease (taken first: a concurrent payout of it
 * answers 409 at once, from any instance), then the debit of `main` by amount + fees (a
 * conditional UPDATE: PostgreSQL refuses a debit the balance cannot cover, whatever runs
 * concurrently; the provider's clearing account is owed the amount, the gateway keeps the fee)
 * with its entries, and the Payout row `pending` (with `sentAt` when it is sent now; one above the
 * review threshold waits for the operator). One commit serves the lease and the payout. Inside
 * the key's transaction the lease commits with the payout, or rolls back with a refused one; a
 * concurrent payout waits only for that commit, then sees it held.
 *
 * Refusals: 409 `payout_in_progress` (the lease is held: nothing was written); 400
 * `insufficient_balance` (the debit was refused: `main` does not cover amount + fees, or is
 * missing, which answers as an empty `main` always did; the lease this statement took is given
 * back first, a no-op inside a transaction the refusal rolls back).
 */
export async function recordPayout(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  organizationId: string,
  payout: PayoutToRecord,
  lease: PayoutLease,
  audit: PayoutAudit,
  batchItem: BatchItemRef | null = null,
): Promise<PayoutIntent> {
  const id = randomUUID();
  const statement = recordPayoutStatement(ctx, organizationId, id, payout, lease, audit, batchItem);
  const name = batchItem ? 'gw_payout_record_batch_item' : 'gw_payout_record';
  const [row] = await runStatement<{ leased: boolean } & Partial<PayoutRecord>>(db, { name, text: statement.text }, statement.values);
  if (row?.leased !== true) throw new DomainError('payout_in_progress');
  const { leased: _, ...recorded } = row;
  if (!recorded.id) {
    await releasePayoutLease(ctx, lease, db);
    throw new DomainError('insufficient_balance');
  }
  return {
    payoutId: id,
    organizationId,
    method: payout.method,
    phone: payout.recipientPhone,
    amount: payout.amount,
    send: payout.send,
    recorded: recorded as PayoutRecord,
  };
}

/** A payout with its terms as the rules decided them (payouts.ts payoutTerms). */
export type PayoutToRecord = NewPayout & {
  fee: bigint;
  /** false: above the review threshold, it waits for the operator (no `sentAt`). */
  send: boolean;
};

/**
 * A payout batch's item the payout is made for: phase 1's statement records the payout only while
 * the item is `processing` and has none yet (its row locked), and links it, so an item gets at most
 * one payout whatever runs it twice (a runner resumed after a crash, two runners): the item is the
 * payout's idempotency, as an Idempotency-Key is a single payout's.
 */
export interface BatchItemRef {
  batchId: string;
  line: number;
}

/** Who asks for the payout: its audit entry (`payout.created`) is written by phase 1's statement, with the payout. */
export type PayoutAudit = Pick<AuditEventInput, 'actor'>;

/**
 * Phase 1's statement composes the ledger's one posting builder (ledger/posting.ts
 * debitPostingCtes), whose text is composed once per shape and kept (ledger/store.ts
 * ctesOfPosting: composing it per request had cost a quarter of the gateway's CPU per payout, why
 * this text was once written out by hand). test/domain/payouts/payout-effects.test.ts checks its
 * entries, with a fee and without one. The audit entry (`payout.created`) is written by the same
 * statement, with the payout.
 */
function recordPayoutStatement(
  ctx: GatewayContext,
  organizationId: string,
  id: string,
  payout: PayoutToRecord,
  lease: PayoutLease,
  audit: PayoutAudit,
  batchItem: BatchItemRef | null,
): Prisma.Sql {
  const now = ctx.clock.now();
  const audited = auditEventStatementPart('audited', 'recorded', {
    organizationId,
    actor: audit.actor,
    action: 'payout.created',
    target: id,
    // Never the recipient's phone: the amount, the method, whether it waits for review.
    details: { amount: toWireAmount(payout.amount), method: payout.method, awaitsReview: !payout.send },
    at: now,
  });
  // The posting's rule (ledger/posting.ts): `main` debited by amount + fee, only while it covers
  // them and only once the lease is taken; the method's clearing account owed the amount, fee
  // revenue the fee. Its CTE `debited` has a row iff the debit was made.
  const debit = debitPostingCtes({
    organizationId,
    account: 'main',
    kind: 'payout',
    about: { payoutId: id },
    description: `payout ${id}`,
    debit: payout.amount + payout.fee,
    gatewaySides: [
      { gateway: clearingAccountOf(payout.method), amount: payout.amount },
      { gateway: 'fee_revenue', amount: payout.fee },
    ],
    onlyIf: 'lease',
  });
  // For a batch item: the item first (locked; a second statement for it waits, then finds it linked
  // and takes nothing), the lease only while it is free, the link once the payout is recorded.
  const item = batchItem
    ? Prisma.sql`item AS MATERIALIZED (
      SELECT 1 FROM "PayoutBatchItem" WHERE "batchId" = ${batchItem.batchId}::uuid AND line = ${batchItem.line}::int
        AND state = 'processing' AND "payoutId" IS NULL FOR UPDATE),`
    : Prisma.empty;
  const takeLease = batchItem ? takeLeaseSql(lease, leaseTtlMs(ctx), 'item') : takeLeaseSql(lease, leaseTtlMs(ctx));
  const linked = batchItem
    ? Prisma.sql`
    linked AS (
      UPDATE "PayoutBatchItem" i SET "payoutId" = r.id FROM recorded r WHERE i."batchId" = ${batchItem.batchId}::uuid AND i.line = ${batchItem.line}::int),`
    : Prisma.empty;
  return Prisma.sql`
    WITH ${item} lease AS (${takeLease}),
    ${debit},
    recorded AS (
      INSERT INTO "Payout" (id, "organizationId", "selectedPaymentMethod", amount, fees, "recipientFirstName", "recipientLastName", "recipientPhone",
        reason, status, "sentAt", "createdAt", "updatedAt")
      SELECT ${id}::uuid, ${organizationId}::uuid, ${payout.method}::"PaymentMethod", ${String(payout.amount)}::bigint, ${String(payout.fee)}::bigint,
        ${payout.recipientFirstName}::text, ${payout.recipientLastName}::text, ${payout.recipientPhone}::text, ${payout.reason}::text, 'pending',
        ${payout.send ? now : null}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM debited
      RETURNING *),${linked}
    ${audited}
    SELECT EXISTS (SELECT 1 FROM lease) AS leased, ${payoutColumns('recorded')} FROM (SELECT 1) AS one LEFT JOIN recorded ON true`;
}

/** An approved payout is handed to the provider: `sentAt`, only while it still awaits review (of two approvals, or an approval and a rejection, one wins). */
export async function markPayoutSent(ctx: GatewayContext, payoutId: string): Promise<boolean> {
  const { count } = await ctx.db.payout.updateMany({ where: { id: payoutId, status: 'pending', sentAt: null }, data: { sentAt: ctx.clock.now() } });
  return count === 1;
}

// ---------------------------------------------------------------------------------------------
// Phase 2 and the operator's rejection

/**
 * Reverses a payout's debit, as CTEs of the caller's statement: amount and fees back in `main`,
 * the clearing and fee sides negated, in a posting of its own (ledgers never erase), composed by
 * the ledger's one builder. What is reversed is what was posted: `taken` reads the debit's entries
 * (main's account, the clearing side, the fee side when there was a fee) into one row, and the
 * reversal's amounts are its columns. Runs when `source` (an earlier CTE with the payout's `id`)
 * has a row. A credit: nothing can refuse it.
 */
function payoutReversalCtes(source: string, payoutId: string, description: string): Prisma.Sql {
  const from = Prisma.raw(`"${source}"`);
  const column = (name: string, sign: 1 | -1) => ({ cte: 'taken', terms: [{ column: name, sign }] });
  const reversal = statementPostingCtes({
    as: 'returned',
    kind: 'payout_reversal',
    payoutId,
    description,
    movements: [
      {
        side: { cte: 'taken' },
        amount: {
          cte: 'taken',
          terms: [
            { column: 'toClearing', sign: 1 },
            { column: 'toFees', sign: 1 },
          ],
        },
      },
      { side: { gateway: { cte: 'taken', column: 'clearing' } }, amount: column('toClearing', -1) },
      { side: { gateway: 'fee_revenue' }, amount: column('toFees', -1) },
    ],
  });
  return Prisma.sql`
    taken AS MATERIALIZED (
      SELECT a."organizationId", a.name AS "accountName", c."gatewayAccount"::text AS clearing, c.amount AS "toClearing", COALESCE(f.amount, 0)::bigint AS "toFees"
      FROM ${from} s
        JOIN "LedgerEntry" m ON m."payoutId" = s.id AND m.kind = 'payout' AND m."accountId" IS NOT NULL
        JOIN "Account" a ON a.id = m."accountId"
        JOIN "LedgerEntry" c ON c."payoutId" = s.id AND c.kind = 'payout' AND c."gatewayAccount" IS NOT NULL AND c."gatewayAccount" <> 'fee_revenue'
        LEFT JOIN "LedgerEntry" f ON f."payoutId" = s.id AND f.kind = 'payout' AND f."gatewayAccount" = 'fee_revenue'),
    ${reversal}`;
}

/** What phase 2 found (locked, before) and left. */
export interface PayoutAnswerApplied {
  statusBefore: PayoutStatus;
  payout: PayoutRecord;
}

/**
 * Phase 2, ONE statement, by the request, an operator's approval or the reconciler, whichever
 * comes first: with the row locked, and only while it is `pending`, records the provider's answer:
 * `succeeded` -> `completed`; `failed` -> the debit reversed (amount and fees back in `main`) and
 * `failed`; `pending` (no answer) or null (not sent: awaiting review) -> only the provider's
 * reference, if it gave one. Releases `lease` in the same statement when given (one commit), first.
 */
export async function applyPayoutAnswer(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  payoutId: string,
  answer: ProviderAnswer | null,
  lease: PayoutLease | null,
): Promise<PayoutAnswerApplied> {
  // The common case first, in its lighter shape; a payout no longer pending (settled by someone
  // else) is left unchanged there and read by the general shape.
  const completed = answer?.status === 'succeeded' ? await completePendingPayout(ctx, db, payoutId, answer, lease) : null;
  return completed ? { statusBefore: 'pending', payout: completed } : applyAnyPayoutAnswer(ctx, db, payoutId, answer, lease);
}

/**
 * The provider sent it and the payout is still pending: `completed` and the lease released, by
 * one conditional UPDATE of each (no locking read first: a row locked by a SELECT and then updated
 * is written twice, and the bench's payouts wait on the WAL). Null, having changed nothing, when
 * the payout is no longer pending. With `payoutStatusBodyAt` (the payout_status body of the payout
 * as this statement leaves it, completed at the time given), its outbox rows are written by the
 * same statement.
 */
export async function completePendingPayout(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  payoutId: string,
  answer: ProviderAnswer,
  lease: PayoutLease | null,
  payoutStatusBodyAt: ((completedAt: Date) => string) | null = null,
): Promise<PayoutRecord | null> {
  const now = ctx.clock.now();
  const outbox =
    payoutStatusBodyAt === null ? Prisma.empty : Prisma.sql`, ${eventOutboxCte('completed', { event: 'payout_status', body: payoutStatusBodyAt(now) }, now)}`;
  const statement = Prisma.sql`
    WITH released AS (
      UPDATE "PayoutLease" SET "expiresAt" = '-infinity' WHERE "organizationId" = ${lease?.organizationId ?? null}::uuid AND holder = ${lease?.holder ?? null}::uuid
      RETURNING 1),
    -- After the lease (read from it to run it first), as in the general shape.
    completed AS (
      UPDATE "Payout" p SET status = 'completed', "paidAt" = ${now}::timestamptz, "providerReference" = ${answer.providerReference ?? ''}::text, "updatedAt" = ${now}::timestamptz
      WHERE p.id = ${payoutId}::uuid AND p.status = 'pending' AND (SELECT count(*) FROM released) >= 0
      RETURNING p.*)${outbox}
    SELECT ${payoutColumns('completed')} FROM completed`;
  const name = payoutStatusBodyAt === null ? 'gw_payout_complete' : 'gw_payout_complete_announced';
  const [row] = await runStatement<PayoutRecord>(db, { name, text: statement.text }, statement.values);
  return row ?? null;
}

/** Every outcome, and a payout in any state (see applyPayoutAnswer). */
async function applyAnyPayoutAnswer(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  payoutId: string,
  answer: ProviderAnswer | null,
  lease: PayoutLease | null,
): Promise<PayoutAnswerApplied> {
  const now = ctx.clock.now();
  const outcome = answer?.status ?? 'pending';
  const reference = answer?.providerReference ?? '';
  const statement = Prisma.sql`
    WITH released AS (
      UPDATE "PayoutLease" SET "expiresAt" = '-infinity' WHERE "organizationId" = ${lease?.organizationId ?? null}::uuid AND holder = ${lease?.holder ?? null}::uuid
      RETURNING 1),
    -- After the lease (read from it to run it first): the order phase 1 takes them in (the lease,
    -- then main), so this statement and a new payout's phase 1 never wait on each other crosswise.
    found AS MATERIALIZED (
      SELECT p.* FROM "Payout" p WHERE p.id = ${payoutId}::uuid AND (SELECT count(*) FROM released) >= 0 FOR UPDATE),
    settled AS (
      UPDATE "Payout" p SET
        status = (CASE ${outcome}::text WHEN 'succeeded' THEN 'completed' WHEN 'failed' THEN 'failed' ELSE p.status::text END)::"PayoutStatus",
        "paidAt" = CASE WHEN ${outcome}::text = 'succeeded' THEN ${now}::timestamptz ELSE p."paidAt" END,
        "providerReference" = ${reference}::text,
        "failureReason" = CASE WHEN ${outcome}::text = 'failed' THEN ${answer?.reason ?? 'refused by the provider'}::text ELSE p."failureReason" END,
        "updatedAt" = ${now}::timestamptz
      WHERE p.id = ${payoutId}::uuid AND p.status = 'pending' AND EXISTS (SELECT 1 FROM found) AND (${outcome}::text <> 'pending' OR ${reference}::text <> '')
      RETURNING p.*),
    failed AS (SELECT id FROM settled WHERE status = 'failed'),
    ${payoutReversalCtes('failed', payoutId, `payout ${payoutId} failed at the provider`)},
    current AS (
      SELECT * FROM settled UNION ALL SELECT * FROM found WHERE NOT EXISTS (SELECT 1 FROM settled))
    SELECT (SELECT status::text FROM found) AS "statusBefore", ${payoutColumns('current')} FROM current`;
  const [row] = await runStatement<PayoutRecord & { statusBefore: PayoutStatus }>(db, { name: 'gw_payout_settle', text: statement.text }, statement.values);
  if (!row) throw new Error(`payout ${payoutId} vanished before it was settled`);
  const { statusBefore, ...payout } = row;
  return { statusBefore, payout };
}

/**
 * The operator's rejection, ONE statement: only while the payout awaits review (pending, never
 * sent), its debit is reversed (amount and fees back in `main`) and it is `cancelled`. Null when
 * it no longer awaits review (approved or rejected meanwhile).
 */
export async function cancelAwaitingPayout(ctx: GatewayContext, payoutId: string, why: string, db: Db | DbTransaction = ctx.db): Promise<PayoutRecord | null> {
  const statement = Prisma.sql`
    WITH cancelled AS (
      UPDATE "Payout" p SET status = 'cancelled', "failureReason" = ${why}::text, "updatedAt" = ${ctx.clock.now()}::timestamptz
      WHERE p.id = ${payoutId}::uuid AND p.status = 'pending' AND p."sentAt" IS NULL
      RETURNING p.*),
    ${payoutReversalCtes('cancelled', payoutId, `payout ${payoutId} rejected`)}
    SELECT ${payoutColumns('cancelled')} FROM cancelled`;
  const [row] = await runStatement<PayoutRecord>(db, { name: 'gw_payout_reject', text: statement.text }, statement.values);
  return row ?? null;
}

// ---------------------------------------------------------------------------------------------
// Open provider calls (the reconciler, the operator)

/** A sent pending payout as the reconciler and the operator see it. */
export interface OpenPayoutRow {
  id: string;
  organizationId: string;
  providerChecks: number;
  sentAt: Date;
  /** The wallet provider it was sent with (status questions go to that one). */
  method: PaymentMethod;
  /** What it was sent with: a provider that de-duplicates it gets exactly this again (providerFlow.ts askOrResend). */
  recipientPhone: string;
  amount: bigint;
}

/** Sent pending payouts due for a question: first once sent before `openedBefore`, then at their next check time. */
export const listDuePayouts = (db: Db, now: Date, openedBefore: Date, limit: number): Promise<OpenPayoutRow[]> =>
  selectOpenPayouts(db, Prisma.sql`(("nextProviderCheckAt" IS NULL AND "sentAt" <= ${openedBefore}) OR "nextProviderCheckAt" <= ${now})`, limit);

/** Sent pending payouts asked about at least `minChecks` times. */
export const listOpenPayouts = (db: Db, minChecks: number, limit: number): Promise<OpenPayoutRow[]> =>
  selectOpenPayouts(db, Prisma.sql`"providerChecks" >= ${minChecks}`, limit);

export async function findOpenPayout(db: Db, id: string): Promise<OpenPayoutRow | null> {
  return isUuid(id) ? ((await selectOpenPayouts(db, Prisma.sql`id = ${id}::uuid`, 1))[0] ?? null) : null;
}

/** Sent pending payouts matching `where`, oldest first. */
function selectOpenPayouts(db: Db, where: Prisma.Sql, limit: number): Promise<OpenPayoutRow[]> {
  return db.$queryRaw<OpenPayoutRow[]>`
    SELECT id, "organizationId", "providerChecks", "sentAt", "selectedPaymentMethod"::text AS method, "recipientPhone", amount FROM "Payout"
    WHERE status = 'pending' AND "sentAt" IS NOT NULL AND ${where}
    ORDER BY "sentAt" LIMIT ${limit}`;
}

/**
 * One instance's claim on a sent pending payout for one question (or re-send): only while it is
 * due (no later check time set by another instance's claim). PostgreSQL's row lock decides
 * between instances; the claim lapses at `until`.
 */
export async function claimPayoutCheck(db: Db, id: string, now: Date, until: Date): Promise<boolean> {
  const count = await db.$executeRaw`UPDATE "Payout" SET "nextProviderCheckAt" = ${until}
    WHERE id = ${id}::uuid AND status = 'pending' AND "sentAt" IS NOT NULL AND ("nextProviderCheckAt" IS NULL OR "nextProviderCheckAt" <= ${now})`;
  return count === 1;
}

/** Still open after a question: counts it and sets when to ask next (only while pending). */
export async function postponePayoutCheck(db: Db, id: string, nextCheckAt: Date): Promise<void> {
  await db.$executeRaw`UPDATE "Payout" SET "providerChecks" = "providerChecks" + 1, "nextProviderCheckAt" = ${nextCheckAt} WHERE id = ${id}::uuid AND status = 'pending'`;
}

export async function countOpenPayouts(db: Db, stuckAfterChecks: number): Promise<{ open: number; stuck: number }> {
  const [row] = await db.$queryRaw<{ open: bigint; stuck: bigint }[]>`
    SELECT count(*) AS open, count(*) FILTER (WHERE "providerChecks" >= ${stuckAfterChecks}) AS stuck FROM "Payout" WHERE status = 'pending' AND "sentAt" IS NOT NULL`;
  return { open: Number(row?.open ?? 0), stuck: Number(row?.stuck ?? 0) };
}

/** A payout by id (it exists: the caller holds its intent). */
export const findPayout = (db: Db, payoutId: string): Promise<PayoutRecord> => db.payout.findUniqueOrThrow({ where: { id: payoutId } });

/** The payout of this id, or null. */
export const findPayoutIfAny = (db: Db, payoutId: string): Promise<PayoutRecord | null> => db.payout.findUnique({ where: { id: payoutId } });
