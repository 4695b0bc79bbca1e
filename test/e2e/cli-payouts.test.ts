/**
 * The operator CLI's review of payouts end to end (the CLI's `main`, in process):
 * `payout approve ORDER_ID` prints the payout once sent (`completed`); an approval the provider
 * refused (`failed`, funds returned) or has not answered (`pending`) prints {"error"} and exits 1,
 * like `sandbox pay`. `payout reject ORDER_ID [--reason R]` prints the `cancelled` payout. Effects
 * are checked on REST and in the ledger. Each spawn costs ~0.5 s, so independent commands run
 * together (approvals of distinct organisations: one payout per organisation at a time).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/access/auth.js';
import { runCli } from '../support/cli.js';
import { useGateway } from '../support/gateway.js';
import { expectBalancedLedger } from '../support/ledger.js';
import { PHONES, expectPayout, fundedMerchant, mainBalance, payoutBody, postPayout } from '../support/payouts.js';

const gateway = useGateway();

const cli = async (args: string[], env: Record<string, string> = {}) => {
  const { code, json } = await runCli(gateway, args, env);
  return { code, json };
};

const LARGE = 2_500_000;
const LARGE_DEBIT = 2_525_000n; // + 1 % fee
const FLOAT = 3_000_000;

/** A new organisation with FLOAT in main and one payout above the review threshold, pending. */
async function awaitingReview(phone: string = PHONES.succeeds) {
  const { organization, key } = await fundedMerchant(gateway, { balance: FLOAT });
  const payout = expectPayout(await postPayout(gateway, key, payoutBody({ amount: LARGE, recipient: { phone } })), 'pending');
  return { organizationId: organization.id, key, orderId: payout.order_id as string };
}

const restStatus = async (key: string, orderId: string) => (await gateway.rest('GET', `/api/v2/payouts/${orderId}`, { key })).body.payout_status;

describe('gateway payout approve / reject', () => {
  it('approve prints the completed payout; a refused or unanswered one prints {"error"} and exits 1', async () => {
    const [sent, refused, unanswered] = await Promise.all([awaitingReview(), awaitingReview(PHONES.fails), awaitingReview(PHONES.timesOut)]);
    const [approved, failed, pending] = await Promise.all([
      cli(['payout', 'approve', sent.orderId]),
      cli(['payout', 'approve', refused.orderId]),
      cli(['payout', 'approve', unanswered.orderId]),
    ]);

    expect(approved.code).toBe(0);
    expect(approved.json).toMatchObject({
      orderId: sent.orderId,
      organizationId: sent.organizationId,
      status: 'completed',
      awaitingReview: false,
      amount: LARGE,
      fees: 25_000,
      selectedPaymentMethod: 'wave',
      recipient: { phone: PHONES.succeeds },
      paidAt: expect.any(String),
    });
    expect(approved.json.providerReference).toMatch(/^sbx_payout_/);
    expect(await restStatus(sent.key, sent.orderId)).toBe('completed');
    expect(await mainBalance(gateway, sent.organizationId)).toBe(BigInt(FLOAT) - LARGE_DEBIT);

    expect(failed).toEqual({
      code: 1,
      json: {
        error: expect.stringMatching(
          new RegExp(`^the provider refused payout ${refused.orderId} .*: it is failed, its amount and fees were returned to main$`),
        ),
      },
    });
    expect(await restStatus(refused.key, refused.orderId)).toBe('failed');
    expect(await mainBalance(gateway, refused.organizationId)).toBe(BigInt(FLOAT));

    expect(pending).toEqual({
      code: 1,
      json: { error: expect.stringMatching(new RegExp(`^the provider has not answered for payout ${unanswered.orderId} yet: it stays pending`)) },
    });
    expect(await restStatus(unanswered.key, unanswered.orderId)).toBe('pending');
    expect(await mainBalance(gateway, unanswered.organizationId)).toBe(BigInt(FLOAT) - LARGE_DEBIT);

    // Decided once: approving or rejecting again is the gateway's refusal, passed on.
    const [again, rejectSent, rejectUnanswered] = await Promise.all([
      cli(['payout', 'approve', sent.orderId]),
      cli(['payout', 'reject', sent.orderId]),
      cli(['payout', 'reject', unanswered.orderId]),
    ]);
    expect(again).toEqual({ code: 1, json: { error: 'This payout is not awaiting review: it is completed' } });
    expect(rejectSent).toEqual({ code: 1, json: { error: 'This payout is not awaiting review: it is completed' } });
    expect(rejectUnanswered).toEqual({ code: 1, json: { error: 'This payout is not awaiting review: it is pending with the provider' } });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('reject prints the cancelled payout with its reason (a default without --reason); funds return', async () => {
    const [first, second] = await Promise.all([awaitingReview(), awaitingReview()]);
    const [withReason, withoutReason] = await Promise.all([
      cli(['payout', 'reject', first.orderId, '--reason', 'Unknown recipient']),
      cli(['payout', 'reject', second.orderId]),
    ]);
    expect(withReason).toMatchObject({
      code: 0,
      json: { orderId: first.orderId, status: 'cancelled', failureReason: 'Unknown recipient', paidAt: null, sentAt: null },
    });
    expect(withoutReason).toMatchObject({ code: 0, json: { orderId: second.orderId, status: 'cancelled', failureReason: 'rejected by the operator' } });
    for (const { key, orderId, organizationId } of [first, second]) {
      expect(await restStatus(key, orderId)).toBe('cancelled');
      expect(await mainBalance(gateway, organizationId)).toBe(BigInt(FLOAT));
    }
    expect(await cli(['payout', 'approve', first.orderId])).toEqual({ code: 1, json: { error: 'This payout is not awaiting review: it is cancelled' } });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('refuses bad command lines, unknown payouts and a read-only operator, changing nothing', async () => {
    const { key, orderId } = await awaitingReview();
    const analyst = `gw_op_${randomBytes(32).toString('base64url')}`;
    await gateway.ctx.db.operatorToken.create({ data: { role: 'analyst', prefix: analyst.slice(0, 14), tokenDigest: sha256Hex(analyst) } });
    const [noId, extra, badFlag, unknown, malformed, asAnalyst, rejectAsAnalyst] = await Promise.all([
      cli(['payout', 'approve']),
      cli(['payout', 'reject', orderId, 'now']),
      cli(['payout', 'reject', orderId, '--why', 'x']),
      cli(['payout', 'approve', randomUUID()]),
      cli(['payout', 'reject', 'not-an-id', '--reason', 'x']),
      cli(['payout', 'approve', orderId], { GATEWAY_ADMIN_TOKEN: analyst }),
      cli(['payout', 'reject', orderId], { GATEWAY_ADMIN_TOKEN: analyst }),
    ]);
    expect(noId).toEqual({ code: 1, json: { error: 'missing ORDER_ID (usage: gateway payout approve ORDER_ID)' } });
    expect(extra).toEqual({ code: 1, json: { error: "unexpected argument 'now' (usage: gateway payout reject ORDER_ID [--reason R])" } });
    expect(badFlag).toEqual({
      code: 1,
      json: { error: expect.stringMatching(/^Unknown option '--why'.*\(usage: gateway payout reject ORDER_ID \[--reason R\]\)$/) },
    });
    expect(unknown).toEqual({ code: 1, json: { error: 'Payout not found' } });
    expect(malformed).toEqual({ code: 1, json: { error: 'Payout not found' } });
    expect(asAnalyst).toEqual({ code: 1, json: { error: 'This operator role cannot perform this action' } });
    expect(rejectAsAnalyst).toEqual({ code: 1, json: { error: 'This operator role cannot perform this action' } });
    expect(await restStatus(key, orderId)).toBe('pending');
  });
});
