/**
 * Orange Money's books as the gateway reads them: the transaction records of Sonatel's Orange
 * Money API (https://developer.orange-sonatel.com/dev/docs/orange-money, GET
 * /api/eWallet/v1/transactions; a record: transactionId, reference, type, status, amount{value,
 * unit}, customer, createdAt, metadata).
 *
 * Which operation of ours a record is: our reference goes to Orange with a prefix naming the
 * operation (`pay-`, `refund-`, `payout-`), in the record's `reference` and, for QR-code payments,
 * also in its `metadata` (`reference`): the QR-code product page
 * (https://developer.orange-sonatel.com/qr-code) documents both fields on the request, and a
 * payment record carries the QR code's metadata, while what becomes of `reference` on the payment
 * record is not documented. So a record is ours when either carries one of our prefixed references
 * of the record's type; `reference` wins when both do. A refund's cash in also names the payment it
 * returns in `metadata.refundOf` (reconciliation files a refund under that payment).
 *
 * A record that carries none of our references was not made through the gateway: a payment at the
 * merchant's till or its static QR code, a QR code another application made on the same merchant
 * code, a cash in the distributor made by hand. Orange's records do not say through which channel
 * money moved, so our prefix is the only sign; such a record is counted apart (`outsideGateway`),
 * as Wave's `merchant_payment` lines (payments to the QR code or the app) are, never listed as the
 * gateway's missing ledger entry. A record under one of our prefixed references that the ledger
 * lacks is still a difference (`missing_in_ledger`).
 *
 * This module only interprets records; the HTTP calls are the connector's.
 */
import type { ProviderRecord } from '../../../domain/ports.js';

export type OrangeKind = 'payment' | 'refund' | 'payout';

/** One Orange Money transaction record, as far as the gateway reads it. */
export interface OmRecord {
  transactionId: string;
  /** Absent or '' when Orange keeps the partner's reference only in metadata. */
  reference?: string;
  metadata?: Record<string, string>;
  type: string;
  status: string;
  amount: { value: number; unit: string };
  customer?: { idType?: string; id?: string };
  createdAt?: string;
  description?: string;
}

const PREFIX: Record<OrangeKind, string> = { payment: 'pay-', refund: 'refund-', payout: 'payout-' };
export const ORANGE_TYPE: Record<OrangeKind, string> = { payment: 'MERCHANT_PAYMENT', refund: 'CASHIN', payout: 'CASHIN' };
/** The metadata key our QR codes repeat the reference under. */
export const METADATA_REFERENCE = 'reference';
/** Metadata key of a refund's cash in: our reference of the payment it returns (the attempt id). */
export const REFUND_OF = 'refundOf';

const SUCCEEDED = new Set(['SUCCESS']);
const FAILED = new Set(['FAILED', 'CANCELLED', 'REJECTED']);

export const orangeReferenceOf = (kind: OrangeKind, reference: string): string => `${PREFIX[kind]}${reference}`;

/** Our kind and reference from one reference string Orange keeps, for a record of `type`. */
function parse(orangeReference: string | undefined, type: string): { kind: OrangeKind; reference: string } | undefined {
  if (!orangeReference) return undefined;
  for (const kind of ['payment', 'refund', 'payout'] as const) {
    if (orangeReference.startsWith(PREFIX[kind]) && ORANGE_TYPE[kind] === type) return { kind, reference: orangeReference.slice(PREFIX[kind].length) };
  }
  return undefined;
}

/** Our kind and reference of a record: from `reference`, else from its metadata; undefined when not ours. */
export function ourReferenceOf(record: Pick<OmRecord, 'reference' | 'metadata' | 'type'>): { kind: OrangeKind; reference: string } | undefined {
  return parse(record.reference, record.type) ?? parse(record.metadata?.[METADATA_REFERENCE], record.type);
}

/** True when the record is the operation Orange knows under `orangeReference`, in either place. */
export const carriesReference = (record: Pick<OmRecord, 'reference' | 'metadata'>, orangeReference: string): boolean =>
  record.reference === orangeReference || record.metadata?.[METADATA_REFERENCE] === orangeReference;

export function statusOf(status: string): 'succeeded' | 'failed' | 'processing' {
  if (SUCCEEDED.has(status)) return 'succeeded';
  if (FAILED.has(status)) return 'failed';
  return 'processing';
}

/** Records of a period as records of ours (ports.ts ProviderRecord); `periodStart` dates a record without createdAt. */
export function providerRecordsOf(items: OmRecord[], periodStart: Date): ProviderRecord[] {
  const records = items.map((item): ProviderRecord => {
    const ours = ourReferenceOf(item);
    const kind: OrangeKind = ours?.kind ?? (item.type === 'MERCHANT_PAYMENT' ? 'payment' : 'payout');
    // A refund is filed under the payment it returns (the port's rule), named in its metadata.
    const reference = kind === 'refund' ? (item.metadata?.[REFUND_OF] ?? ours?.reference ?? '') : (ours?.reference ?? '');
    return {
      kind,
      reference,
      providerReference: item.transactionId,
      amount: BigInt(item.amount.value),
      status: statusOf(item.status),
      at: new Date(item.createdAt ?? periodStart),
      // Not made through the gateway (a till payment, another application's QR code): counted apart.
      ...(!ours && { outsideGateway: true }),
    };
  });
  return withoutFailedTries(records);
}

/**
 * A QR code the customer first refused then paid has a FAILED and a SUCCESS payment under one
 * reference: the refused try moved no money (it is not a reversal), so it is left out beside the
 * success. Alone, a failed line stays (the ledger may say otherwise: a difference to show).
 */
function withoutFailedTries(records: ProviderRecord[]): ProviderRecord[] {
  const paid = new Set(
    records.filter((record) => record.kind === 'payment' && record.reference && record.status === 'succeeded').map((record) => record.reference),
  );
  return records.filter((record) => !(record.kind === 'payment' && record.status === 'failed' && paid.has(record.reference)));
}
