/**
 * The payout's effects (store.ts: recordPayout with the organisation's lease, applyPayoutAnswer,
 * cancelAwaitingPayout) are ONE statement each, run the same way with or without an
 * Idempotency-Key (with one, inside the key's transaction). Whatever the outcome, the ledger
 * balances with the balance after each entry, and the lease is free for the next payout at once.
 */
import { describe, expect, it } from 'vitest';
import { approvePayout, rejectPayout } from '../../../src/domain/operations.js';
import { expectCatalogueError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { PHONES, feeOf, fundedMerchant, mainBalance, payoutBody, payoutEntries, postPayout } from '../../support/payouts.js';

const gateway = useGateway();

const KEYS = [
  ['without an Idempotency-Key', () => undefined],
  ['with an Idempotency-Key', () => `payout-${Math.random().toString(36).slice(2)}`],
] as const;

/** The payout's postings, each as its sum and its entries: [account or gateway account, amount, balance after]. */
async function postingsOf(payoutId: string) {
  const entries = await payoutEntries(gateway, payoutId);
  const kinds = [...new Set(entries.map((entry) => entry.kind))];
  return Object.fromEntries(
    kinds.map((kind) => {
      const posting = entries.filter((entry) => entry.kind === kind);
      const lines = posting.map((entry) => [entry.account?.name ?? entry.gatewayAccount, entry.amount, entry.balanceAfter]);
      return [
        kind,
        { sum: posting.reduce((total, entry) => total + entry.amount, 0n), entries: lines.sort((a, b) => String(a[0]).localeCompare(String(b[0]))) },
      ];
    }),
  );
}

describe.each(KEYS)('a payout %s', (_, newKey) => {
  it('sent: main pays amount + fees in one balanced posting, and the next payout may start at once', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    const sent = await postPayout(gateway, key, payoutBody(), newKey());
    expect(sent.status).toBe(200);
    expect(sent.body.payout_status).toBe('completed');
    expect(await postingsOf(sent.body.order_id)).toEqual({
      payout: {
        sum: 0n,
        entries: [
          ['fee_revenue', 100n, null],
          ['main', -10_100n, 89_900n],
          ['provider_clearing_wave', 10_000n, null],
        ],
      },
    });
    expect((await postPayout(gateway, key, payoutBody(), newKey())).status).toBe(200);
    expect(await mainBalance(gateway, organization.id)).toBe(100_000n - 2n * 10_100n);
    await expectBalancedLedger(gateway.ctx.db);
  });

  it('sent with a zero payout fee: main pays the amount alone, and no fee entry is written', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    await gateway.ctx.db.organization.update({ where: { id: organization.id }, data: { feePayoutBp: 0 } });
    const sent = await postPayout(gateway, key, payoutBody(), newKey());
    expect(sent.status).toBe(200);
    expect(await postingsOf(sent.body.order_id)).toEqual({
      payout: {
        sum: 0n,
        entries: [
          ['main', -10_000n, 90_000n],
          ['provider_clearing_wave', 10_000n, null],
        ],
      },
    });
    await expectBalancedLedger(gateway.ctx.db);
  });

  it('refused by the provider: recorded failed, the debit reversed in a posting of its own, and the next payout may start at once', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    const refused = await postPayout(gateway, key, payoutBody({ recipient: { phone: PHONES.fails } }), newKey());
    expectCatalogueError(refused, 'payout_failed', 'wave');
    const payout = await gateway.ctx.db.payout.findFirstOrThrow({ where: { organizationId: organization.id } });
    expect(payout.status).toBe('failed');
    expect(payout.failureReason).not.toBeNull();
    expect((await postingsOf(payout.id)).payout_reversal).toEqual({
      sum: 0n,
      entries: [
        ['fee_revenue', -100n, null],
        ['main', 10_100n, 100_000n],
        ['provider_clearing_wave', -10_000n, null],
      ],
    });
    expect(await mainBalance(gateway, organization.id)).toBe(100_000n);
    expect((await postPayout(gateway, key, payoutBody(), newKey())).status).toBe(200);
    await expectBalancedLedger(gateway.ctx.db);
  });

  it('short of funds: 400, nothing written, and the lease the statement took is given back', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 5_000 });
    expectCatalogueError(await postPayout(gateway, key, payoutBody(), newKey()), 'insufficient_balance');
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);
    expect(await mainBalance(gateway, organization.id)).toBe(5_000n);
    expect((await postPayout(gateway, key, payoutBody({ amount: 1_000 }), newKey())).status).toBe(200);
    expect(await mainBalance(gateway, organization.id)).toBe(5_000n - 1_000n - BigInt(feeOf(1_000)));
    await expectBalancedLedger(gateway.ctx.db);
  });

  it('above the review threshold: reserved and unsent; a rejection returns the funds, an approval sends it', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 5_000_000 });
    const amount = 2_000_001;
    const total = BigInt(amount + feeOf(amount));
    const waiting = await postPayout(gateway, key, payoutBody({ amount }), newKey());
    expect(waiting.status).toBe(200);
    expect(waiting.body.payout_status).toBe('pending');
    const approved = await postPayout(gateway, key, payoutBody({ amount }), newKey());
    expect(await mainBalance(gateway, organization.id)).toBe(5_000_000n - 2n * total);

    const rejected = await rejectPayout(gateway.ctx, gateway.operator, waiting.body.order_id, 'not this one');
    expect(rejected).toMatchObject({ status: 'cancelled', failureReason: 'not this one', sentAt: null });
    // The statement's row is the record Prisma reads, field for field and type for type.
    expect(rejected).toStrictEqual(await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: rejected.id } }));
    expect((await postingsOf(rejected.id)).payout_reversal?.sum).toBe(0n);
    expect(await mainBalance(gateway, organization.id)).toBe(5_000_000n - total);
    await expect(rejectPayout(gateway.ctx, gateway.operator, rejected.id)).rejects.toMatchObject({ code: 'payout_not_awaiting_review' });

    const sent = await approvePayout(gateway.ctx, gateway.operator, approved.body.order_id);
    expect(sent).toMatchObject({ status: 'completed' });
    expect(sent).toStrictEqual(await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: sent.id } }));
    expect(await mainBalance(gateway, organization.id)).toBe(5_000_000n - total);
    await expectBalancedLedger(gateway.ctx.db);
  });
});
