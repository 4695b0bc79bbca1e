/**
 * The sandbox wallet provider: its outcomes follow docs/sandbox.md's phone table, and it behaves as ONE
 * external provider for every gateway instance, because its books are in the database: a call made
 * through one instance's sandbox is known to another's, and a reference sent twice is done once.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSandboxProvider } from '../../../src/infra/providers/sandbox.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
const request = (phone: string, reference: string, amount = 5000n) => ({ method: 'wave' as const, phone, amount, reference });
const fresh = () => randomUUID();
/** Two sandboxes, as two gateway processes would have, over the one database. */
const twoInstances = () => [createSandboxProvider({ db: gateway.db.prisma }), createSandboxProvider({ db: gateway.db.prisma })] as const;

describe('sandbox payouts', () => {
  it('follow the recipient wallet, and payoutStatus (asked of ANOTHER instance) answers what became of each reference', async () => {
    const [a, b] = twoInstances();
    const [ok, alsoOk, refused, slow] = [fresh(), fresh(), fresh(), fresh()];
    expect(await a.payout(request('+221770000001', ok))).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_payout_/) });
    expect((await a.payout(request('+221770000009', alsoOk))).status).toBe('succeeded');
    expect((await a.payout(request('+221770000000', refused))).status).toBe('failed');
    expect((await a.payout(request('+221770001111', slow))).status).toBe('pending');

    expect((await b.payoutStatus(ok)).status).toBe('succeeded');
    expect((await b.payoutStatus(refused)).status).toBe('failed');
    // The timed-out one went through: only its answer was lost.
    expect(await b.payoutStatus(slow)).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_payout_/) });
    expect((await b.payoutStatus(fresh())).status).toBe('not_found');
  });

  it('does not send a reference twice, even from two instances at once: one record, the repeat counted and answered from it', async () => {
    const [a, b] = twoInstances();
    const reference = fresh();
    const [first, second] = await Promise.all([a.payout(request('+221770000001', reference)), b.payout(request('+221770000000', reference))]);
    // Whichever arrived first decided; the other (even with another wallet) gets the same answer.
    expect(second.status).toBe(first.status);
    expect(second.providerReference).toBe(first.providerReference);
    const rows = await gateway.db.prisma.sandboxProviderCall.findMany({ where: { kind: 'payout', reference } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.calls).toBe(2);
  });
});

describe('sandbox refunds', () => {
  it('follow the payer wallet, and refundStatus answers what became of each reference', async () => {
    const [a, b] = twoInstances();
    const [ok, refused, empty, slow] = [fresh(), fresh(), fresh(), fresh()];
    expect((await a.refund(request('+221770000001', ok))).status).toBe('succeeded');
    expect((await a.refund(request('+221770000009', refused))).status).toBe('failed');
    expect((await a.refund(request('+221770000000', empty))).status).toBe('failed');
    expect((await a.refund(request('+221770001111', slow))).status).toBe('pending');

    expect((await b.refundStatus(ok)).status).toBe('succeeded');
    expect((await b.refundStatus(refused)).status).toBe('failed');
    expect((await b.refundStatus(empty)).status).toBe('failed');
    expect((await b.refundStatus(slow)).status).toBe('succeeded');
    expect((await b.refundStatus(fresh())).status).toBe('not_found');
  });
});

describe('sandbox collections', () => {
  it('0000 declines, 1111 stays unconfirmed, others pay; collectStatus agrees from another instance', async () => {
    const [a, b] = twoInstances();
    const [paid, declined, unconfirmed] = [fresh(), fresh(), fresh()];
    expect((await a.collect(request('+221770000001', paid))).status).toBe('succeeded');
    expect((await a.collect(request('+221770000000', declined))).status).toBe('failed');
    expect((await a.collect(request('+221770001111', unconfirmed))).status).toBe('pending');
    expect((await b.collectStatus(paid)).status).toBe('succeeded');
    expect((await b.collectStatus(declined)).status).toBe('failed');
    expect((await b.collectStatus(unconfirmed)).status).toBe('pending');
  });

  it('a caller that stops waiting loses the answer, not the call: the provider received it and did it', async () => {
    const slow = createSandboxProvider({ db: gateway.db.prisma, latencyMs: 5_000 });
    const controller = new AbortController();
    const reference = fresh();
    const call = slow.payout({ ...request('+221770000001', reference), signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toThrow(/abort/i);
    expect((await slow.payoutStatus(reference)).status).toBe('succeeded');
    expect(await gateway.db.prisma.sandboxProviderCall.findMany({ where: { reference }, select: { calls: true } })).toEqual([{ calls: 1 }]);
  });
});
