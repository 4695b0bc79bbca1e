/**
 * Reconciliation (`gateway reconcile --method wave [--from --to]`, GraphQL `reconcileProvider`):
 * the gateway's ledger against the provider's own records for a period, every difference listed:
 *
 *   missing_at_provider  the ledger moved money (or has a call open) the provider has no record of
 *   missing_in_ledger    the provider moved money the gateway never recorded
 *   amount_mismatch      both have it, with different amounts
 *   status_mismatch      both have it, one says it went through and the other not (a reversed payout,
 *                        or a call still open here that the provider finished)
 *
 * Records are matched by OUR reference, which the provider keeps (Wave: client_reference): the
 * payment attempt id (refunds are filed under the payment they return), the payout id; a provider
 * line without it is matched by the provider's id of the payment (Wave: checkout_api_session_id),
 * which the attempt recorded. Amounts compared are gross (what the operation moved); the
 * provider's fees are reported apart (`providerFees`), and money the provider moved outside the
 * gateway (Wave: a payment to the merchant's QR code; Orange Money: a record under none of our
 * references, such as a payment at the merchant's till) is counted apart, not a difference. Nothing is
 * changed: the open-call reconcilers settle what is open; an operator acts on the rest.
 * Operations within seconds of the period's edges may fall on different sides of it in the two
 * books (the provider's time and ours): reconcile whole days, or re-run over a wider period.
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { parsePaymentMethod } from '../paymentMethods.js';
import type { ProviderRecord } from '../ports.js';
import { callProviderOnce } from '../providerFlow.js';
import { ledgerRecords, MAX_LEDGER_RECORDS, type LedgerRecord } from './store.js';

/** Longest period one reconciliation covers (the provider is read day by day). */
const MAX_RECONCILE_DAYS = 31;
/** Most differences listed (the count says how many there were). */
const MAX_DISCREPANCIES = 500;
/** Reading a month of history page by page takes longer than one provider call. */
const RECORDS_TIMEOUT_MS = 120_000;

type DiscrepancyIssue = 'missing_at_provider' | 'missing_in_ledger' | 'amount_mismatch' | 'status_mismatch';

export interface Discrepancy {
  issue: DiscrepancyIssue;
  kind: LedgerRecord['kind'];
  reference: string;
  providerReference: string | null;
  ledgerAmount: bigint | null;
  providerAmount: bigint | null;
  ledgerStatus: string | null;
  providerStatus: string | null;
  /** The provider's fee on its record, as it reports it (null: none reported). */
  providerFee: bigint | null;
}

export interface ReconciliationReport {
  method: PaymentMethod;
  from: Date;
  to: Date;
  matched: number;
  discrepancyCount: number;
  discrepancies: Discrepancy[];
  /** The provider's fees on the gateway's operations of the period, as it reports them. */
  providerFees: bigint;
  /** What the provider moved that the gateway never asked for (Wave: payments to the QR code; Orange Money: till payments, other applications). */
  outsideGateway: { count: number; amount: bigint };
}

export interface ReconcileInput {
  method: string;
  from?: Date | null;
  to?: Date | null;
}

export async function reconcileProvider(ctx: GatewayContext, caller: Caller, input: ReconcileInput): Promise<ReconciliationReport> {
  authorize(caller, 'reconcileProvider');
  const method = parsePaymentMethod(input.method);
  const { from, to } = periodOf(ctx, input);
  const provider = providerOf(ctx, method);
  if (!provider.listRecords) throw new DomainError('reconciliation_unavailable', method);
  const listRecords = provider.listRecords.bind(provider);
  const outcome = await callProviderOnce(
    { ...ctx, settings: { ...ctx.settings, providerTimeoutMs: RECORDS_TIMEOUT_MS } },
    (signal) => listRecords({ from, to, signal }),
    { method },
    'reading the provider records for a reconciliation failed',
  );
  if (!('answered' in outcome)) throw new DomainError('provider_records_unavailable', method);
  const ledger = await ledgerRecords(ctx.db, method, from, to);
  if (ledger.length > MAX_LEDGER_RECORDS)
    throw new DomainError('invalid_input', `more than ${MAX_LEDGER_RECORDS} operations in the period: reconcile a shorter one`);
  const ours = outcome.answered.filter((record) => !record.outsideGateway);
  // A record outside the gateway that moved nothing (a refused till payment) is not money moved.
  const outside = outcome.answered.filter((record) => record.outsideGateway && record.status === 'succeeded');
  const { discrepancies, matched } = compare(ledger, ours);
  return {
    method,
    from,
    to,
    matched,
    discrepancyCount: discrepancies.length,
    discrepancies: discrepancies.slice(0, MAX_DISCREPANCIES),
    providerFees: ours.reduce((sum, record) => sum + (record.fee ?? 0n), 0n),
    outsideGateway: { count: outside.length, amount: outside.reduce((sum, record) => sum + record.amount, 0n) },
  };
}

/** Default: the last 24 hours. Bounded, ordered, not in the future's past. */
function periodOf(ctx: GatewayContext, input: ReconcileInput): { from: Date; to: Date } {
  const to = input.to ?? ctx.clock.now();
  const from = input.from ?? new Date(to.getTime() - 86_400_000);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new DomainError('invalid_input', 'from and to must be dates');
  if (from >= to) throw new DomainError('invalid_input', 'from must be before to');
  if (to.getTime() - from.getTime() > MAX_RECONCILE_DAYS * 86_400_000)
    throw new DomainError('invalid_input', `a reconciliation covers at most ${MAX_RECONCILE_DAYS} days`);
  return { from, to };
}

/** The provider serving `method` (ctx.provider routes by method; a bare provider is itself). */
function providerOf(ctx: GatewayContext, method: PaymentMethod) {
  const router = ctx.provider as { providerFor?: (method: PaymentMethod) => typeof ctx.provider };
  return typeof router.providerFor === 'function' ? router.providerFor(method) : ctx.provider;
}

const keyOf = (record: { kind: string; reference: string }) => `${record.kind} ${record.reference}`;

/**
 * The provider's lines for one operation (a payout and its reversal) fold into one: amounts of
 * succeeded lines add up, a failed line (a reversal) makes it failed, and fees add up.
 */
function foldProvider(records: ProviderRecord[]): Map<string, ProviderRecord> {
  const folded = new Map<string, ProviderRecord>();
  let anonymous = 0;
  for (const record of records) {
    if (!record.reference) anonymous += 1;
    const key = record.reference ? keyOf(record) : `anonymous ${anonymous}`;
    const seen = folded.get(key);
    if (!seen) folded.set(key, { ...record });
    else {
      if (record.status === 'failed') seen.status = 'failed';
      else seen.amount += record.amount;
      // Fees add up: a reversal's returned fee (negative) offsets the payout's.
      if (record.fee !== undefined) seen.fee = (seen.fee ?? 0n) + record.fee;
    }
  }
  return folded;
}

/** Our reference for provider lines that lack it but name the payment (Wave: its checkout session). */
function withOurReferences(ledger: LedgerRecord[], records: ProviderRecord[]): ProviderRecord[] {
  const byCollection = new Map<string, string>();
  for (const mine of ledger) if (mine.collectionReference && mine.kind !== 'payout') byCollection.set(mine.collectionReference, mine.reference);
  return records.map((record) => {
    if (record.reference || !record.collectionReference) return record;
    const reference = byCollection.get(record.collectionReference);
    return reference ? { ...record, reference } : record;
  });
}

function compare(ledger: LedgerRecord[], providerRecords: ProviderRecord[]): { discrepancies: Discrepancy[]; matched: number } {
  const provider = foldProvider(withOurReferences(ledger, providerRecords));
  const discrepancies: Discrepancy[] = [];
  let compared = 0;
  for (const mine of ledger) {
    const theirs = provider.get(keyOf(mine));
    provider.delete(keyOf(mine));
    // An attempt still open that the provider has not seen paid: the customer has not paid (yet).
    if (mine.optional && theirs?.status !== 'succeeded') continue;
    compared += 1;
    const base = { kind: mine.kind, reference: mine.reference, ledgerAmount: mine.amount, ledgerStatus: mine.status };
    if (!theirs) {
      discrepancies.push({ ...base, issue: 'missing_at_provider', providerReference: null, providerAmount: null, providerStatus: null, providerFee: null });
      continue;
    }
    const seen = { providerReference: theirs.providerReference, providerAmount: theirs.amount, providerStatus: theirs.status, providerFee: theirs.fee ?? null };
    if (theirs.status !== mine.status) discrepancies.push({ ...base, ...seen, issue: 'status_mismatch' });
    else if (theirs.amount !== mine.amount) discrepancies.push({ ...base, ...seen, issue: 'amount_mismatch' });
  }
  for (const theirs of provider.values()) {
    if (theirs.status !== 'succeeded') continue;
    discrepancies.push({
      issue: 'missing_in_ledger',
      kind: theirs.kind,
      reference: theirs.reference,
      providerReference: theirs.providerReference,
      ledgerAmount: null,
      providerAmount: theirs.amount,
      ledgerStatus: null,
      providerStatus: theirs.status,
      providerFee: theirs.fee ?? null,
    });
  }
  return { discrepancies, matched: compared - discrepancies.filter((d) => d.issue !== 'missing_in_ledger').length };
}
