/**
 * The refund's two effects (store.ts: recordRefund, applyRefundAnswer) are ONE statement each,
 * run the same way with or without an Idempotency-Key (with one, inside the key's transaction).
 * The cases the old keyless form left to a second implementation must work both ways: a held
 * (paid_and_blocked) transaction, whose proceeds go escrow -> main and then to the provider in the
 * same statement, and a new attempt after a failed refund. Every posting balances, every account's
 * balance is the sum of its entries, and each entry records the balance after it.
 */
import { describe, expect, it } from 'vitest';
import { settleRefund } from '../../../src/domain/refunds/refunds.js';
import { recordInShape, recordRefund } from '../../../src/domain/refunds/store.js';
import { balances, entriesOf, expectLedgerConsistent, paidTransaction, refund, statusOf, stubProvider, withProvider } from '../../support/refunds.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

const KEYS = [
  ['without an Idempotency-Key', () => undefined],
  ['with an Idempotency-Key', () => `refund-${Math.random().toString(36).slice(2)}`],
] as const;

/** Each posting's entries, by kind: [account or gateway account, amount, balance after]. */
async function postingsOf(orderId: string) {
  const entries = await entriesOf(gateway, orderId);
  const byPosting = new Map<string, typeof entries>();
  for (const entry of entries) byPosting.set(entry.postingId, [...(byPosting.get(entry.postingId) ?? []), entry]);
  return [...byPosting.values()].map((posting) => ({
    kind: posting[0]!.kind,
    description: posting[0]!.description,
    sum: posting.reduce((total, entry) => total + entry.amount, 0n),
    entries: posting
      .map((entry) => [entry.account?.name ?? entry.gatewayAccount, entry.amount, entry.balanceAfter])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  }));
}

describe.each(KEYS)('a refund %s', (_, newKey) => {
  it('of a held transaction releases escrow to main and debits main in one statement, then refunds it', async () => {
    const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const orderId = await paidTransaction(gateway, key, { price: 5000, isEscrow: true, feesCustomerSide: true });
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 5000n });

    const idempotencyKey = newKey();
    const answered = await refund(gateway, key, orderId, idempotencyKey);
    expect(answered.status).toBe(200);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
    const refundRow = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(refundRow).toMatchObject({ status: 'succeeded', attempts: 1, amount: 5000n });

    const tag = `refund ${refundRow.id} attempt 1`;
    const postings = (await postingsOf(orderId)).filter((posting) => posting.description === tag);
    expect(postings).toEqual(
      expect.arrayContaining([
        {
          kind: 'escrow_release',
          description: tag,
          sum: 0n,
          entries: [
            ['escrow', -5000n, 0n],
            ['main', 5000n, 5000n],
          ],
        },
        {
          kind: 'refund',
          description: tag,
          sum: 0n,
          entries: [
            ['main', -5000n, 0n],
            ['provider_clearing_wave', 5000n, null],
          ],
        },
      ]),
    );
    expect(postings).toHaveLength(2);
    await expectLedgerConsistent(gateway, organization.id);

    if (idempotencyKey) {
      const again = await refund(gateway, key, orderId, idempotencyKey);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
    }
  });

  it('after a failed one is a new attempt: the failure returned everything, the retry succeeds once', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    const orderId = await paidTransaction(gateway, key, { price: 3000, feesCustomerSide: true });
    expect(await balances(gateway, organization.id)).toEqual({ main: 3000n, escrow: 0n });

    const refused = await withProvider(gateway, stubProvider('not_found', 'failed'), () => refund(gateway, key, orderId, newKey()));
    expect(refused.status).toBe(500);
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect(await balances(gateway, organization.id)).toEqual({ main: 3000n, escrow: 0n });
    await expectLedgerConsistent(gateway, organization.id);

    expect((await refund(gateway, key, orderId, newKey())).status).toBe(200);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
    const refundRow = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(refundRow).toMatchObject({ status: 'succeeded', attempts: 2, failureReason: null });

    const postings = await postingsOf(orderId);
    const first = `refund ${refundRow.id} attempt 1`;
    expect(
      postings
        .filter((posting) => posting.description.startsWith(first))
        .map((posting) => posting.kind)
        .sort(),
    ).toEqual(['refund', 'refund_reversal']);
    expect(postings.find((posting) => posting.description === `${first} failed`)?.entries).toEqual([
      ['main', 3000n, 3000n],
      ['provider_clearing_wave', -3000n, null],
    ]);
    expect(postings.find((posting) => posting.description === `refund ${refundRow.id} attempt 2`)?.entries).toEqual([
      ['main', -3000n, 0n],
      ['provider_clearing_wave', 3000n, null],
    ]);
    expect(postings.every((posting) => posting.sum === 0n)).toBe(true);
    await expectLedgerConsistent(gateway, organization.id);
  });

  it('of a held transaction after a failed one: the failure puts the proceeds back in escrow, the retry releases them again', async () => {
    const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const orderId = await paidTransaction(gateway, key, { price: 4000, isEscrow: true, feesCustomerSide: true });

    const refused = await withProvider(gateway, stubProvider('not_found', 'failed'), () => refund(gateway, key, orderId, newKey()));
    expect(refused.status).toBe(500);
    expect(await statusOf(gateway, orderId)).toBe('paid_and_blocked');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 4000n });
    const refundId = (await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).id;
    const reversals = (await postingsOf(orderId)).filter((posting) => posting.description === `refund ${refundId} attempt 1 failed`);
    // The debit's reversal first (main back to 4000), then the release's (main to 0, escrow to 4000).
    expect(reversals.map((posting) => posting.entries)).toEqual(
      expect.arrayContaining([
        [
          ['main', 4000n, 4000n],
          ['provider_clearing_wave', -4000n, null],
        ],
        [
          ['escrow', 4000n, 4000n],
          ['main', -4000n, 0n],
        ],
      ]),
    );
    await expectLedgerConsistent(gateway, organization.id);

    expect((await refund(gateway, key, orderId, newKey())).status).toBe(200);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { id: refundId } })).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect((await postingsOf(orderId)).every((posting) => posting.sum === 0n)).toBe(true);
    await expectLedgerConsistent(gateway, organization.id);
  });
});

/**
 * A held transaction whose first refund attempt was recorded (its proceeds released from escrow),
 * and a record started by `race` while that attempt's failed settlement holds the transaction's
 * row: the racer's snapshot still shows the proceeds released, the row it then locks shows them
 * held again. Returns what the racer answered, once the settlement committed.
 */
async function raceFailedSettlementOfHeldRefund<T>(race: (organizationId: string, orderId: string) => Promise<T>) {
  const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
  await paidTransaction(gateway, key, { price: 5000, feesCustomerSide: true }); // main could cover the amount by itself
  const orderId = await paidTransaction(gateway, key, { price: 3000, isEscrow: true, feesCustomerSide: true });
  const first = await recordRefund(gateway.ctx, gateway.ctx.db, organization.id, orderId);
  expect(await balances(gateway, organization.id)).toEqual({ main: 5000n, escrow: 0n });

  let settledInTransaction!: () => void;
  const settled = new Promise<void>((resolve) => (settledInTransaction = resolve));
  let commit!: () => void;
  const committing = new Promise<void>((resolve) => (commit = resolve));
  const settling = gateway.ctx.db.$transaction(
    async (tx) => {
      await settleRefund(gateway.ctx, tx, first, { status: 'failed', providerReference: '', reason: 'refused' });
      settledInTransaction();
      await committing;
    },
    { timeout: 10_000 },
  );
  await settled;
  const racing = race(organization.id, orderId);
  await new Promise((resolve) => setTimeout(resolve, 300));
  commit();
  await settling;
  return { organizationId: organization.id, orderId, answer: await racing };
}

describe('a refund of a held transaction racing the settlement of its failed attempt', () => {
  it('never debits main for proceeds still in escrow: the racing request waits, then records from what the settlement left', async () => {
    const { organizationId, orderId, answer } = await raceFailedSettlementOfHeldRefund((organization, order) =>
      recordRefund(gateway.ctx, gateway.ctx.db, organization, order),
    );
    // The common shape found the row no longer paid once it got it and wrote nothing; the general
    // shape, a statement of its own, saw the settlement whole: the proceeds back in escrow, then
    // released again and main debited, as attempt 2.
    expect(answer).toMatchObject({ attempt: 2, amount: 3000n });
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect(await balances(gateway, organizationId)).toEqual({ main: 5000n, escrow: 0n });
    await expectLedgerConsistent(gateway, organizationId);
    await expect(recordRefund(gateway.ctx, gateway.ctx.db, organizationId, orderId)).rejects.toMatchObject({ code: 'refund_in_progress' });
  });
});

describe('the general shape of the record statement, racing that settlement itself', () => {
  it('writes nothing when the row it waited for is held again (its snapshot saw the proceeds released): its own 409, never main debited for escrow', async () => {
    // The general shape alone, as recordRefund runs it when the common one wrote nothing.
    const { organizationId, orderId, answer } = await raceFailedSettlementOfHeldRefund((organization, order) =>
      recordInShape(gateway.ctx, gateway.ctx.db, organization, order, 'any').catch((error: unknown) => error),
    );
    // It names its refusal itself (no explainer beside it): the transaction changed while it ran, 409.
    expect(answer).toMatchObject({ code: 'refund_in_progress' });
    expect(await statusOf(gateway, orderId)).toBe('paid_and_blocked');
    expect(await balances(gateway, organizationId)).toEqual({ main: 5000n, escrow: 3000n });
    await expectLedgerConsistent(gateway, organizationId);
  });
});

describe('the common shape of the record statement, when a refund of the transaction commits after its snapshot', () => {
  it('debits nothing: the Refund row’s unique index refuses the insert and the whole statement, debit included, rolls back (409)', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    const orderId = await paidTransaction(gateway, key, { price: 4000, feesCustomerSide: true });
    expect(await balances(gateway, organization.id)).toEqual({ main: 4000n, escrow: 0n });

    // Another refund of it, inserted and not yet committed: the common shape's snapshot cannot see
    // it (its "never refunded" check passes), and its insert waits on that row's unique index entry.
    let commitOther!: () => void;
    const otherMayCommit = new Promise<void>((resolve) => (commitOther = resolve));
    let inserted!: () => void;
    const otherInserted = new Promise<void>((resolve) => (inserted = resolve));
    const other = gateway.ctx.db.$transaction(
      async (tx) => {
        await tx.refund.create({ data: { transactionId: orderId, organizationId: organization.id, amount: 4000n, method: 'wave', status: 'pending' } });
        inserted();
        await otherMayCommit;
      },
      { timeout: 10_000 },
    );
    await otherInserted;
    const racing = recordInShape(gateway.ctx, gateway.ctx.db, organization.id, orderId, 'paid').then(
      (row) => ({ row }),
      (error: unknown) => ({ error }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    commitOther();
    await other;

    expect(await racing).toEqual({ error: expect.objectContaining({ code: 'refund_in_progress' }) });
    // The debit the statement made before its insert was refused went with it.
    expect(await balances(gateway, organization.id)).toEqual({ main: 4000n, escrow: 0n });
    expect((await entriesOf(gateway, orderId)).filter((entry) => entry.kind === 'refund')).toEqual([]);
  });
});

describe('a merchant without its escrow account (accounts are created with the organisation; older data may lack one)', () => {
  it('is refused a refund by the general shape (merchant_account_unavailable), and a failed settlement that could not return the money changes nothing', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    const first = await paidTransaction(gateway, key, { price: 3000, feesCustomerSide: true });
    const second = await paidTransaction(gateway, key, { price: 2000, feesCustomerSide: true });
    const intent = await recordRefund(gateway.ctx, gateway.ctx.db, organization.id, first);
    expect(await balances(gateway, organization.id)).toEqual({ main: 2000n, escrow: 0n });
    await gateway.ctx.db.account.delete({ where: { organizationId_name: { organizationId: organization.id, name: 'escrow' } } });

    // Both postings of the general shape move both accounts (main once, by their net).
    await expect(recordInShape(gateway.ctx, gateway.ctx.db, organization.id, second, 'any')).rejects.toMatchObject({ code: 'merchant_account_unavailable' });
    // The reversal cannot move main back without escrow: the settlement rolls back, the refund stays pending (the reconciler asks again).
    await expect(settleRefund(gateway.ctx, gateway.ctx.db, intent, { status: 'failed', providerReference: '', reason: 'refused' })).rejects.toThrow(
      /not reversed/,
    );
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { id: intent.refundId } })).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await balances(gateway, organization.id)).toEqual({ main: 2000n, escrow: 0n });
    await expectLedgerConsistent(gateway, organization.id);
  });
});
