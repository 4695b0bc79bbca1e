/**
 * What a provider's record means (src/infra/providers/records/): Wave's history lines by their
 * documented types, gross = amount + fee whatever the sign, every page followed and a page that
 * cannot be read never taken for "nothing there"; Orange Money records ours whether the reference
 * is in `reference` or in `metadata`.
 */
import { describe, expect, it } from 'vitest';
import { ProviderUnavailable } from '../../src/domain/ports.js';
import { ourReferenceOf, providerRecordsOf } from '../../src/infra/providers/records/orangeMoney.js';
import { findCheckoutRefund, historyPageOf, readWaveRecords, type ReadWaveHistoryPage } from '../../src/infra/providers/records/wave.js';

const at = '2026-11-27T10:00:00.000Z';
const line = (type: string, amount: string, fee: string, extra: Record<string, unknown> = {}) => ({
  timestamp: at,
  transaction_id: `T_${type}_${amount}`,
  transaction_type: type,
  amount,
  fee,
  ...extra,
});

/** A history served `perPage` lines at a time, with an opaque cursor; records every query. */
function history(items: unknown[], perPage: number) {
  const queries: Array<{ date: string; after?: string }> = [];
  const readPage: ReadWaveHistoryPage = async (query) => {
    queries.push(query);
    const start = query.after ? Number(atob(query.after)) : 0;
    const end = Math.min(start + perPage, items.length);
    return historyPageOf({ page_info: { has_next_page: end < items.length, end_cursor: btoa(String(end)) }, items: items.slice(start, end) });
  };
  return { readPage, queries };
}

const period = { from: new Date('2026-11-27T00:00:00Z'), to: new Date('2026-11-27T23:59:59Z') };

describe("Wave's history as records", () => {
  it('reads each documented type, gross = amount + fee in either direction, fees kept; QR payments outside the gateway', async () => {
    const { readPage, queries } = history(
      [
        line('api_checkout', '990', '10', { client_reference: 'attempt-1', checkout_api_session_id: 'cos-1' }),
        line('api_checkout_refund', '-990', '-10', { checkout_api_session_id: 'cos-1' }),
        line('api_payout', '-1010', '10', { client_reference: 'payout-1' }),
        line('api_payout_reversal', '1010', '-10', { client_reference: 'payout-1' }),
        line('merchant_payment', '495', '5'),
        line('bulk_payment', '-300', '0'),
      ],
      2,
    );
    const records = await readWaveRecords(readPage, period);
    expect(
      records.map(({ kind, reference, amount, fee, status, collectionReference, outsideGateway }) => ({
        kind,
        reference,
        amount,
        fee,
        status,
        collectionReference,
        outsideGateway,
      })),
    ).toEqual([
      { kind: 'payment', reference: 'attempt-1', amount: 1_000n, fee: 10n, status: 'succeeded', collectionReference: 'cos-1', outsideGateway: undefined },
      { kind: 'refund', reference: '', amount: 1_000n, fee: -10n, status: 'succeeded', collectionReference: 'cos-1', outsideGateway: undefined },
      { kind: 'payout', reference: 'payout-1', amount: 1_000n, fee: 10n, status: 'succeeded', collectionReference: undefined, outsideGateway: undefined },
      { kind: 'payout', reference: 'payout-1', amount: 1_000n, fee: -10n, status: 'failed', collectionReference: undefined, outsideGateway: undefined },
      { kind: 'payment', reference: '', amount: 500n, fee: 5n, status: 'succeeded', collectionReference: undefined, outsideGateway: true },
    ]);
    // Six lines, two a page: three pages, the cursor followed.
    expect(queries).toEqual([{ date: '2026-11-27' }, { date: '2026-11-27', after: btoa('2') }, { date: '2026-11-27', after: btoa('4') }]);
  });

  it('refuses a page announcing a next one without a cursor, and a line it cannot read (unknown, never "nothing there")', async () => {
    expect(() => historyPageOf({ page_info: { has_next_page: true }, items: [] })).toThrow(ProviderUnavailable);
    expect(() => historyPageOf({ error: 'x' })).toThrow(ProviderUnavailable);
    const { readPage } = history([{ timestamp: at, amount: '10' }], 10);
    await expect(readWaveRecords(readPage, period)).rejects.toThrow(ProviderUnavailable);
  });

  it("finds a checkout refund by its api_checkout_refund line, by session id or client_reference, not by another type's", async () => {
    const today = new Date(at);
    const lines = [
      line('merchant_payment_refund', '-1000', '0', { client_reference: 'attempt-2' }),
      line('api_checkout_refund', '-990', '-10', { checkout_api_session_id: 'cos-3' }),
    ];
    const { readPage } = history(lines, 10);
    expect(await findCheckoutRefund(readPage, { id: 'cos-2', clientReference: 'attempt-2' }, { today, days: 1 })).toBeUndefined();
    expect((await findCheckoutRefund(readPage, { id: 'cos-3', clientReference: 'attempt-3' }, { today, days: 1 }))?.transaction_type).toBe(
      'api_checkout_refund',
    );
  });
});

describe("Orange Money's records as records", () => {
  const record = (fields: Record<string, unknown>) => ({
    transactionId: 'MP1',
    type: 'MERCHANT_PAYMENT',
    status: 'SUCCESS',
    amount: { value: 1_200, unit: 'XOF' },
    createdAt: at,
    ...fields,
  });

  it('are ours whether the reference is in `reference` or in `metadata`, of the right type only', () => {
    expect(ourReferenceOf(record({ reference: 'pay-a1' }))).toEqual({ kind: 'payment', reference: 'a1' });
    expect(ourReferenceOf(record({ reference: '', metadata: { reference: 'pay-a2' } }))).toEqual({ kind: 'payment', reference: 'a2' });
    expect(ourReferenceOf(record({ metadata: { reference: 'pay-a3' } }))).toEqual({ kind: 'payment', reference: 'a3' });
    expect(ourReferenceOf(record({ reference: 'till-7' }))).toBeUndefined();
    expect(ourReferenceOf(record({ type: 'CASHIN', metadata: { reference: 'pay-a4' } }))).toBeUndefined();
    const [filed] = providerRecordsOf([record({ reference: '', metadata: { reference: 'pay-a5' } })], new Date(at));
    expect(filed).toMatchObject({ kind: 'payment', reference: 'a5', amount: 1_200n, status: 'succeeded' });
    expect(filed?.outsideGateway).toBeUndefined();
  });

  it('under none of our references (a till payment, another application, a cash in by hand) are outside the gateway', () => {
    const records = providerRecordsOf(
      [record({ reference: 'till-7' }), record({ reference: undefined }), record({ type: 'CASHIN', reference: 'manual-1' }), record({ reference: 'pay-a6' })],
      new Date(at),
    );
    expect(records.map(({ reference, outsideGateway }) => ({ reference, outsideGateway }))).toEqual([
      { reference: '', outsideGateway: true },
      { reference: '', outsideGateway: true },
      { reference: '', outsideGateway: true },
      { reference: 'a6', outsideGateway: undefined },
    ]);
  });
});
