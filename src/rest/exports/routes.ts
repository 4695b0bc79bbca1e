/**
 * The CSV exports on the API origin (docs/exports.md): GET /exports/transactions.csv and
 * GET /exports/payouts.csv take the v2 list's filters (not page / limit) and stream every matching
 * row with a header line. Authorised like the matching v2 list for a merchant key or a dashboard
 * user's session, or by an operator token, whose `organization_id` may name one organisation (all
 * of them when absent).
 * Not part of the published v2 contract (openapi/v2.yaml): documented in docs/exports.md.
 *
 * The same steps as the REST pipeline (rate limit -> authenticate -> authorise once -> parse ->
 * operation), errors in the API's `{"error": "..."}` shape; then the rows go as the client reads
 * them (backpressure: a batch is read from the database only once the previous one was taken).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, authorizeRead, singleAuthorizationHeader, type ReadAccess } from '../../domain/access/auth.js';
import type { Operation } from '../../domain/access/policy.js';
import type { GatewayContext } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { exportPayoutBatchItems, exportPayouts, exportTransactions } from '../../domain/operations.js';
import type { BatchItemRow } from '../../domain/payoutBatches/store.js';
import type { PayoutRecord } from '../../domain/payouts/store.js';
import type { ExportedTransactionRow } from '../../domain/transactions/store.js';
import { enforceRateLimitOn } from '../../edge/rateLimit.js';
import { sessionTokenOf } from '../../edge/sessionCookie.js';
import { authenticateSession } from '../../domain/users/sessions.js';
import { queryString, type Query } from '../query.js';
import { parseListPayoutsQuery } from '../v2/payouts.js';
import { parseListTransactionsQuery } from '../v2/transactions.js';
import { csvBody, csvField, csvLine, csvText, csvTimestamp } from './csv.js';

const EXPORT_TRANSACTIONS_PATH = '/exports/transactions.csv';
const EXPORT_PAYOUTS_PATH = '/exports/payouts.csv';
const EXPORT_BATCH_ITEMS_PATH = '/exports/payout-batches/:id/items.csv';

/** A payout batch's results: each item's line, its payout and outcome (the items' v2 fields, flattened). */
const BATCH_ITEM_COLUMNS = [
  'line',
  'order_id',
  'payout_status',
  'method',
  'amount',
  'fees',
  'recipient_first_name',
  'recipient_last_name',
  'recipient_phone',
  'reason',
  'reference',
  'failure_reason',
] as const;

function batchItemLine(row: BatchItemRow): string {
  return csvLine([
    String(row.line),
    row.payoutId ?? '',
    row.payoutStatus,
    row.method,
    String(row.amount),
    String(row.fee),
    csvText(row.recipientFirstName),
    csvText(row.recipientLastName),
    csvField(row.recipientPhone),
    csvText(row.reason),
    csvText(row.reference),
    csvText(row.reasonFailed),
  ]);
}

/** No progress on an export's socket for this long (the client stopped reading): closed. */
const EXPORT_STALL_MS = 60_000;

/** The v2 Transaction's wire fields, flattened (customer_*), products as a count and their names. */
export const TRANSACTION_COLUMNS = [
  'order_id',
  'organization_id',
  'amount',
  'fees',
  'currency',
  'transaction_status',
  'method_of_payment',
  'selected_payment_method',
  'customer_first_name',
  'customer_last_name',
  'customer_phone',
  'product_count',
  'product_names',
  'is_escrow',
  'is_merchant',
  'fees_customer_side',
  'success_url',
  'error_url',
  'created_at',
  'updated_at',
  'paid_at',
] as const;

/** The v2 Payout's wire fields, flattened (recipient_*). */
export const PAYOUT_COLUMNS = [
  'order_id',
  'organization_id',
  'selected_payment_method',
  'amount',
  'fees',
  'currency',
  'payout_status',
  'recipient_first_name',
  'recipient_last_name',
  'recipient_phone',
  'reason',
  'provider_reference',
  'created_at',
  'updated_at',
  'paid_at',
  'is_deleted',
] as const;

/** Values the store wrote as the wire's text already (amounts, lists, timestamps): see ExportedTransactionRow. */
function transactionLine(row: ExportedTransactionRow): string {
  return csvLine([
    row.id,
    row.organizationId,
    row.amount,
    row.fees,
    csvField(row.currency),
    row.status,
    row.methodOfPayment,
    row.selectedPaymentMethod ?? '',
    csvText(row.customerFirstName),
    csvText(row.customerLastName),
    csvField(row.customerPhone ?? ''),
    String(row.productCount),
    csvText(row.productNames),
    String(row.isEscrow),
    String(row.isMerchant),
    String(row.feesCustomerSide),
    csvField(row.successUrl ?? ''),
    csvField(row.errorUrl ?? ''),
    row.createdAt,
    row.updatedAt,
    row.paidAt ?? '',
  ]);
}

function payoutLine(row: PayoutRecord): string {
  return csvLine([
    row.id,
    row.organizationId,
    row.selectedPaymentMethod,
    String(row.amount),
    String(row.fees),
    csvField(row.currency),
    row.status,
    csvText(row.recipientFirstName),
    csvText(row.recipientLastName),
    csvField(row.recipientPhone),
    csvText(row.reason),
    csvText(row.providerReference),
    csvTimestamp(row.createdAt),
    csvTimestamp(row.updatedAt),
    csvTimestamp(row.paidAt),
    String(row.isDeleted),
  ]);
}

/** An export has no pages: a list URL with page or limit copied into it is refused, not quietly widened. */
function refusePaging(query: Query): void {
  for (const name of ['page', 'limit']) {
    if (query[name] !== undefined) throw new DomainError('invalid_query', `${name} does not apply to an export: it holds every matching row`);
  }
}

/**
 * The one authorisation of an export: a merchant key by the list's scopes, an operator token by its
 * role, or a dashboard user (its session cookie) by its role. A download is a GET that changes
 * nothing, so the cookie needs no X-CSRF-Token (SameSite=Strict keeps other sites' pages from
 * sending it); a request naming an Authorization header is judged by it, never by a cookie.
 */
async function authorizeExport<Op extends Operation>(ctx: GatewayContext, request: FastifyRequest, operation: Op, adminToken: string | null, query: Query) {
  const sessionToken = request.headers.authorization === undefined ? sessionTokenOf(request.headers.cookie) : undefined;
  const caller = sessionToken
    ? (await authenticateSession(ctx, sessionToken)).caller
    : await authenticate(ctx, singleAuthorizationHeader(request.raw.rawHeaders), { adminToken, allowOperators: true });
  return authorizeRead(caller, operation, queryString(query, 'organization_id'));
}

/** `transactions-20261124T115134Z.csv`: what it holds and when it was taken. */
const fileName = (what: string, at: Date): string =>
  `${what}-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')}.csv`;

/** Sends the CSV: the first batch is already read (its refusal, if any, answered as an error). */
async function sendCsv<Row>(
  reply: FastifyReply,
  what: string,
  header: readonly string[],
  batches: AsyncGenerator<Row[], void, undefined>,
  line: (row: Row) => string,
  now: Date,
  stallMs: number,
): Promise<FastifyReply> {
  let first: IteratorResult<Row[], void>;
  try {
    first = await batches.next();
  } catch (error) {
    await batches.return(undefined);
    throw error;
  }
  // A client that neither reads nor closes would hold its export slot and its connection for good
  // (the database ends the cursor's session after the same time, but the slot is only given back
  // when the stream ends): no progress on the socket for this long closes it.
  reply.raw.setTimeout(stallMs, () => reply.raw.destroy());
  reply.header('content-type', 'text/csv; charset=utf-8');
  reply.header('content-disposition', `attachment; filename="${fileName(what, now)}"`);
  // One batch in the stream's buffer at most: the socket's own buffer does the rest.
  return reply.send(Readable.from(csvBody(header, first, batches, line), { objectMode: true, highWaterMark: 1 }));
}

export interface ExportOptions {
  adminToken: string | null;
  /** EXPORT_STALL_MS unless told (tests shorten it). */
  stallMs?: number;
}

export function registerExports(app: FastifyInstance, ctx: GatewayContext, options: ExportOptions): void {
  const stallMs = options.stallMs ?? EXPORT_STALL_MS;
  /** One export route: the REST steps, then the operation's batches as CSV. */
  const route = <Op extends Operation, Row>(
    path: string,
    operation: Op,
    what: string,
    header: readonly string[],
    line: (row: Row) => string,
    rowsOf: (access: ReadAccess<Op>, query: Query, params: Record<string, string>) => AsyncGenerator<Row[], void, undefined>,
  ) =>
    app.get(path, async (request, reply) => {
      await enforceRateLimitOn(ctx, request, reply, `GET ${path}`);
      const query = request.query as Query;
      const access = await authorizeExport(ctx, request, operation, options.adminToken, query);
      refusePaging(query);
      return sendCsv(reply, what, header, rowsOf(access, query, request.params as Record<string, string>), line, ctx.clock.now(), stallMs);
    });
  route(EXPORT_TRANSACTIONS_PATH, 'exportTransactions', 'transactions', TRANSACTION_COLUMNS, transactionLine, (access, query) =>
    exportTransactions(ctx, access, parseListTransactionsQuery(query)),
  );
  route(EXPORT_PAYOUTS_PATH, 'exportPayouts', 'payouts', PAYOUT_COLUMNS, payoutLine, (access, query) =>
    exportPayouts(ctx, access, parseListPayoutsQuery(query)),
  );
  route(EXPORT_BATCH_ITEMS_PATH, 'exportPayoutBatchItems', 'payout-batch-results', BATCH_ITEM_COLUMNS, batchItemLine, (access, _query, params) =>
    batchItemRows(ctx, access, params.id ?? ''),
  );
}

/** The batch's results as the items read them, by line (the batch found first: its 404 before any byte). */
async function* batchItemRows(ctx: GatewayContext, access: ReadAccess<'exportPayoutBatchItems'>, id: string): AsyncGenerator<BatchItemRow[], void, undefined> {
  yield* await exportPayoutBatchItems(ctx, access, id);
}
