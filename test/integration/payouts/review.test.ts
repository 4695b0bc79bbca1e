/**
 * Above 2,000,000 XOF a payout is `pending` with its funds reserved (amount + fees debited) and
 * nothing sent; the operator approves it (sent: `completed`, or `failed` with the funds returned)
 * or rejects it (`cancelled`, funds returned). The review queue lists such payouts across
 * organisations. Admin and support operators decide; each payout is decided once and sent at most once.
 */
import { describe, expect, it } from 'vitest';
import type { OperatorCaller } from '../../../src/domain/access/auth.js';
import { DomainError } from '../../../src/domain/errors.js';
import { approvePayout, listPendingPayouts, rejectPayout, setSwitch } from '../../../src/domain/operations.js';
import { settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import { releasePayoutLease, takePayoutLease } from '../../../src/domain/payouts/store.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import {
  PHONES,
  countingProvider,
  expectPayout,
  fundedMerchant,
  mainBalance,
  payoutBody,
  payoutEntries,
  postPayout,
  withProvider,
} from '../../support/payouts.js';

const gateway = useGateway();

const LARGE = 2_500_000;
const LARGE_DEBIT = 2_525_000n; // + 1 % fee

async function pendingLargePayout(phone: string = PHONES.succeeds) {
  const merchant = await fundedMerchant(gateway, { balance: 3_000_000 });
  const provider = countingProvider(gateway.ctx.provider);
  const payout = await withProvider(gateway, provider, async () =>
    expectPayout(await postPayout(gateway, merchant.key, payoutBody({ amount: LARGE, recipient: { phone } })), 'pending'),
  );
  expect(provider.sent.size, 'a payout under review is not sent').toBe(0);
  return { ...merchant, payout };
}

const refusalOf = async (work: Promise<unknown>): Promise<DomainError> => {
  const error = await work.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
};

describe('a payout above 2,000,000 XOF', () => {
  it('is pending with its funds reserved, unsent, readable by the merchant', async () => {
    const { organization, key, payout } = await pendingLargePayout();
    expect(payout).toMatchObject({ amount: LARGE, fees: 25_000, paid_at: null, provider_reference: '' });
    expect(await mainBalance(gateway, organization.id)).toBe(3_000_000n - LARGE_DEBIT);
    const row = await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.order_id } });
    expect(row.sentAt).toBeNull();
    expect((await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('pending');
    // Not the reconciler's business: it was never sent.
    const provider = countingProvider(gateway.ctx.provider);
    await withProvider(gateway, provider, () => settlePendingPayouts(gateway.ctx, { olderThanMs: 0 }));
    expect(provider.asked).not.toContain(payout.order_id);
  });

  it('approved, is sent once and completed; main stays debited', async () => {
    const { organization, key, payout } = await pendingLargePayout();
    const provider = countingProvider(gateway.ctx.provider);
    const approved = await withProvider(gateway, provider, () => approvePayout(gateway.ctx, gateway.operator, payout.order_id));
    expect(approved).toMatchObject({ status: 'completed', id: payout.order_id });
    expect(approved.paidAt).toBeInstanceOf(Date);
    expect(approved.providerReference).toMatch(/^sbx_payout_/);
    expect([...provider.sent]).toEqual([[payout.order_id, 1]]);
    expect(await mainBalance(gateway, organization.id)).toBe(3_000_000n - LARGE_DEBIT);
    expect((await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('completed');

    // Decided once: a second approval or a rejection is refused and sends nothing.
    const again = await refusalOf(withProvider(gateway, provider, () => approvePayout(gateway.ctx, gateway.operator, payout.order_id)));
    expect(again.code).toBe('payout_not_awaiting_review');
    expect(again.message).toBe('This payout is not awaiting review: it is completed');
    expect((await refusalOf(rejectPayout(gateway.ctx, gateway.operator, payout.order_id))).code).toBe('payout_not_awaiting_review');
    expect(provider.sent.get(payout.order_id)).toBe(1);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('approved but refused by the provider, is failed with amount and fees returned', async () => {
    const { organization, payout } = await pendingLargePayout(PHONES.fails);
    const approved = await approvePayout(gateway.ctx, gateway.operator, payout.order_id);
    expect(approved.status).toBe('failed');
    expect(approved.paidAt).toBeNull();
    expect(await mainBalance(gateway, organization.id)).toBe(3_000_000n);
    expect((await payoutEntries(gateway, payout.order_id)).map((entry) => entry.kind).sort()).toEqual([
      'payout',
      'payout',
      'payout',
      'payout_reversal',
      'payout_reversal',
      'payout_reversal',
    ]);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('approved while the provider does not answer, stays pending until the reconciler asks', async () => {
    const { organization, payout } = await pendingLargePayout(PHONES.timesOut);
    const provider = countingProvider(gateway.ctx.provider);
    await withProvider(gateway, provider, async () => {
      expect((await approvePayout(gateway.ctx, gateway.operator, payout.order_id)).status).toBe('pending');
      expect((await refusalOf(approvePayout(gateway.ctx, gateway.operator, payout.order_id))).message).toBe(
        'This payout is not awaiting review: it is pending with the provider',
      );
      await settlePendingPayouts(gateway.ctx, { olderThanMs: 0 });
    });
    expect((await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.order_id } })).status).toBe('completed');
    expect([...provider.sent]).toEqual([[payout.order_id, 1]]);
    expect(provider.asked).toEqual([payout.order_id]);
    expect(await mainBalance(gateway, organization.id)).toBe(3_000_000n - LARGE_DEBIT);
  });

  it('rejected, is cancelled with amount and fees returned and nothing sent', async () => {
    const { organization, key, payout } = await pendingLargePayout();
    const provider = countingProvider(gateway.ctx.provider);
    const rejected = await withProvider(gateway, provider, () => rejectPayout(gateway.ctx, gateway.operator, payout.order_id, '  Unknown recipient  '));
    expect(rejected).toMatchObject({ status: 'cancelled', failureReason: 'Unknown recipient', paidAt: null });
    expect(provider.sent.size).toBe(0);
    expect(await mainBalance(gateway, organization.id)).toBe(3_000_000n);
    expect((await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('cancelled');
    expect((await refusalOf(approvePayout(gateway.ctx, gateway.operator, payout.order_id))).message).toBe(
      'This payout is not awaiting review: it is cancelled',
    );
    expect((await refusalOf(rejectPayout(gateway.ctx, gateway.operator, payout.order_id))).code).toBe('payout_not_awaiting_review');
    expect((await rejectPayout(gateway.ctx, gateway.operator, (await pendingLargePayout()).payout.order_id)).failureReason).toBe('rejected by the operator');
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('approved and rejected at once: exactly one decision wins', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { organization, payout } = await pendingLargePayout();
      const provider = countingProvider(gateway.ctx.provider);
      const outcomes = await withProvider(gateway, provider, () =>
        Promise.allSettled([approvePayout(gateway.ctx, gateway.operator, payout.order_id), rejectPayout(gateway.ctx, gateway.operator, payout.order_id)]),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const row = await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout.order_id } });
      const balance = await mainBalance(gateway, organization.id);
      if (row.status === 'completed') {
        expect(provider.sent.get(payout.order_id)).toBe(1);
        expect(balance).toBe(3_000_000n - LARGE_DEBIT);
      } else {
        expect(row.status).toBe('cancelled');
        expect(provider.sent.size).toBe(0);
        expect(balance).toBe(3_000_000n);
      }
    }
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('is not sent by an approval while payouts or its method are switched off (503), nor while another payout of the organisation runs (409)', async () => {
    const { key, payout } = await pendingLargePayout();
    for (const name of ['payouts', 'wave']) {
      await setSwitch(gateway.ctx, gateway.operator, name, false);
      try {
        expect((await refusalOf(approvePayout(gateway.ctx, gateway.operator, payout.order_id))).status).toBe(503);
      } finally {
        await setSwitch(gateway.ctx, gateway.operator, name, true);
      }
    }
    // Another payout of the organisation holds its lease (in PostgreSQL).
    const held = await takePayoutLease(gateway.ctx, payout.organization_id);
    try {
      expect((await refusalOf(approvePayout(gateway.ctx, gateway.operator, payout.order_id))).code).toBe('payout_in_progress');
      expect((await postPayout(gateway, key)).status).toBe(409);
    } finally {
      await releasePayoutLease(gateway.ctx, held);
    }
    expect((await approvePayout(gateway.ctx, gateway.operator, payout.order_id)).status).toBe('completed');
  });

  it('is decided by admin operators only; merchants and unknown ids are refused', async () => {
    const { organization, payout } = await pendingLargePayout();
    const analyst: OperatorCaller = { kind: 'operator', role: 'analyst', tokenId: null };
    expect((await refusalOf(approvePayout(gateway.ctx, analyst, payout.order_id))).code).toBe('operator_forbidden');
    expect((await refusalOf(rejectPayout(gateway.ctx, analyst, payout.order_id))).code).toBe('operator_forbidden');
    const merchant = { kind: 'merchant' as const, apiKeyId: 'x', scope: 'payout' as const, organization };
    expect((await refusalOf(approvePayout(gateway.ctx, merchant, payout.order_id))).code).toBe('permission_denied');
    expect((await refusalOf(listPendingPayouts(gateway.ctx, merchant))).code).toBe('permission_denied');
    for (const id of ['nope', '00000000-0000-4000-8000-000000000000']) {
      expect((await refusalOf(approvePayout(gateway.ctx, gateway.operator, id))).code).toBe('payout_not_found');
      expect((await refusalOf(rejectPayout(gateway.ctx, gateway.operator, id))).code).toBe('payout_not_found');
    }
    expect((await refusalOf(rejectPayout(gateway.ctx, gateway.operator, payout.order_id, 'x'.repeat(1001)))).code).toBe('invalid_input');
    // An analyst may read the queue.
    expect((await listPendingPayouts(gateway.ctx, analyst, { organizationId: organization.id })).items.map((item) => item.id)).toEqual([payout.order_id]);
  });
});

describe('the review queue', () => {
  it('lists payouts awaiting review across organisations, oldest first, and only those', async () => {
    const first = await pendingLargePayout();
    const second = await pendingLargePayout();
    const timedOut = await fundedMerchant(gateway);
    await postPayout(gateway, timedOut.key, payoutBody({ recipient: { phone: PHONES.timesOut } })); // pending with the provider
    const decided = await pendingLargePayout();
    await rejectPayout(gateway.ctx, gateway.operator, decided.payout.order_id);

    const queue = await listPendingPayouts(gateway.ctx, gateway.operator, { limit: 100 });
    const queued = queue.items.map((item) => item.id);
    expect(queued.indexOf(first.payout.order_id)).toBeLessThan(queued.indexOf(second.payout.order_id));
    expect(queued).not.toContain(decided.payout.order_id);
    expect(queue.items.every((item) => item.status === 'pending' && item.sentAt === null)).toBe(true);
    expect(new Set(queue.items.map((item) => item.organizationId)).size).toBeGreaterThan(1);
    expect((await listPendingPayouts(gateway.ctx, gateway.operator, { organizationId: second.organization.id })).items.map((item) => item.id)).toEqual([
      second.payout.order_id,
    ]);
    expect((await listPendingPayouts(gateway.ctx, gateway.operator, { organizationId: timedOut.organization.id })).totalCount).toBe(0);
    expect((await listPendingPayouts(gateway.ctx, gateway.operator, { organizationId: 'nope' })).totalCount).toBe(0);
    expect((await listPendingPayouts(gateway.ctx, gateway.operator, { limit: 1 })).items).toHaveLength(1);
  });
});
