/**
 * A real gateway process killed (SIGKILL) right after the refund's first transaction committed
 * (intent, debit and `in_progress` Idempotency-Key), before it called the provider. The client saw
 * no answer. A retry on a fresh process must not send the refund (409: the key is in progress);
 * the reconciler asks the provider, which never received it: "not found" is not "failed", so the
 * refund stays open until an operator decides; the decision returns the debit and frees the key;
 * the retry then runs as a new attempt and succeeds exactly once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { settleProviderCall } from '../../../src/domain/operations.js';
import { settlePendingRefunds } from '../../../src/domain/refunds/refunds.js';
import { useGateway } from '../../support/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../../support/processes.js';
import { balances, expectLedgerConsistent, paidTransaction, statusOf, stubProvider } from '../../support/refunds.js';

const gateway = useGateway();
const processes: GatewayProcess[] = [];

afterAll(async () => {
  await Promise.allSettled(processes.map((process) => process.stop()));
});

const start = async (nodeArgs: string[] = []) => {
  const started = await startGatewayProcess({ DATABASE_URL: gateway.databaseUrl, GATEWAY_ADMIN_TOKEN: 'gw_op_refund_crash_token_0123456789' }, nodeArgs);
  processes.push(started);
  return started;
};

describe('a crash between recording a refund and calling the provider', () => {
  it('is never sent twice: the retry waits (409), the provider\'s "not found" keeps it open, an operator decides, the next attempt succeeds once', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    const orderId = await paidTransaction(gateway, key, { price: 3000, feesCustomerSide: true });
    const headers = { authorization: `Bearer ${key}`, 'idempotency-key': 'crash-refund' };

    const doomed = await start(['--import', './test/support/crash-after-commit.ts']);
    const lost = await fetch(`${doomed.url}/api/v2/refund/${orderId}`, { headers }).then(
      (response) => `answered ${response.status}`,
      () => 'no answer',
    );
    expect(lost).toBe('no answer');
    expect((await doomed.exited).signal).toBe('SIGKILL');

    // Phase 1 is durable: the debit, the pending refund and the key in progress.
    expect((await balances(gateway, organization.id)).main).toBe(0n);
    const refundRow = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(refundRow).toMatchObject({ status: 'pending', attempts: 1 });
    const keyRow = await gateway.ctx.db.idempotencyKey.findUniqueOrThrow({
      where: { organizationId_key: { organizationId: organization.id, key: 'crash-refund' } },
    });
    expect(keyRow.state).toBe('in_progress');

    const fresh = await start();
    const meanwhile = await fetch(`${fresh.url}/api/v2/refund/${orderId}`, { headers });
    expect(meanwhile.status).toBe(409);

    const provider = stubProvider('not_found');
    expect(await settlePendingRefunds({ ...gateway.ctx, provider }, { olderThanMs: 0 })).toMatchObject({ settled: 0, stillPending: 1 });
    expect(provider.calls).toEqual({ refund: 0, refundStatus: [refundRow.id] });
    expect((await balances(gateway, organization.id)).main).toBe(0n);
    await settleProviderCall(gateway.ctx, gateway.operator, { kind: 'refund', id: refundRow.id, outcome: 'failed' }, 'the provider has no record of it');
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect((await balances(gateway, organization.id)).main).toBe(3000n);
    expect(await gateway.ctx.db.idempotencyKey.count({ where: { organizationId: organization.id, key: 'crash-refund' } })).toBe(0);

    const retried = await fetch(`${fresh.url}/api/v2/refund/${orderId}`, { headers });
    expect(retried.status).toBe(200);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect((await balances(gateway, organization.id)).main).toBe(0n);
    await expectLedgerConsistent(gateway, organization.id);
  }, 120_000);
});
