/**
 * Real gateway processes killed (SIGKILL) in the middle of a payout with an Idempotency-Key, the
 * client seeing no answer and retrying with the same key on a fresh process:
 *
 * - after the provider was called, before its answer was recorded: the retry never sends it again
 *   (409 while it is unsettled); the reconciler ASKS the provider, settles it `completed`, and the
 *   retry then replays that payout;
 * - after phase 1 committed, before the call: the provider never received it; "not found" is not
 *   "failed", so it stays open (the retry gets 409) until an operator decides it failed: the funds
 *   return and the retry replays that answer.
 *
 * Either way there is one payout row, one debit at most, and no second send.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { settleProviderCall } from '../../src/domain/operations.js';
import { settlePendingPayouts } from '../../src/domain/payouts/payouts.js';
import type { PaymentProvider } from '../../src/domain/ports.js';
import { useGateway } from '../support/gateway.js';
import { expectBalancedLedger } from '../support/ledger.js';
import { startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { countingProvider, fundedMerchant, mainBalance, payoutBody } from '../support/payouts.js';

const gateway = useGateway();
const processes: GatewayProcess[] = [];

afterAll(async () => {
  await Promise.allSettled(processes.map((process) => process.stop()));
});

const start = async (nodeArgs: string[] = [], env: Record<string, string> = {}) => {
  const started = await startGatewayProcess(
    { DATABASE_URL: gateway.databaseUrl, GATEWAY_ADMIN_TOKEN: 'gw_op_payout_crash_token_0123456789', ...env },
    nodeArgs,
  );
  processes.push(started);
  return started;
};

/** Sends the payout to a process that dies on the way; the client sees no answer. Returns how long the request lived (ms). */
async function lostPayout(preload: string, headers: Record<string, string>, body: string, env: Record<string, string> = {}): Promise<number> {
  const doomed = await start(['--import', preload], env);
  const sentAt = performance.now();
  const lost = await fetch(`${doomed.url}/api/v2/payouts`, { method: 'POST', headers, body }).then(
    (response) => `answered ${response.status}`,
    () => 'no answer',
  );
  const lived = performance.now() - sentAt;
  expect(lost).toBe('no answer');
  expect((await doomed.exited).signal).toBe('SIGKILL');
  return lived;
}

/** The doomed process's sandbox takes this long to answer: a request that lived longer was in the provider call. */
const PROVIDER_LATENCY_MS = 1_500;

/** A provider that must never be asked to send: the reconciler only asks. */
const askOnly = (status: 'succeeded' | 'not_found'): ReturnType<typeof countingProvider> =>
  countingProvider(gateway.ctx.provider, {
    payout: async () => {
      throw new Error('the reconciler must never send a payout');
    },
    payoutStatus: async (reference) => ({ status, providerReference: status === 'succeeded' ? `prv_${reference.slice(0, 8)}` : '' }),
  });

const settleWith = (provider: PaymentProvider) => settlePendingPayouts({ ...gateway.ctx, provider }, { olderThanMs: 0 });

describe('a gateway killed in the middle of a payout', () => {
  it('after the provider call: never sent twice; reconciled by asking; the retry replays the payout', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'crash-after-call' };
    const body = JSON.stringify(payoutBody({ amount: 70_000 }));
    const lived = await lostPayout('./test/support/crash-after-call.ts', headers, body, { SANDBOX_LATENCY_MS: String(PROVIDER_LATENCY_MS) });
    // The process died after the provider call, not before it: only the call waits that long.
    expect(lived).toBeGreaterThanOrEqual(PROVIDER_LATENCY_MS);

    // Phase 1 is durable and the payout was handed to the provider: debited, pending, key in progress.
    const [payout, ...others] = await gateway.ctx.db.payout.findMany({ where: { organizationId: organization.id } });
    expect(others).toEqual([]);
    expect(payout).toMatchObject({ status: 'pending', amount: 70_000n, fees: 700n });
    expect(payout!.sentAt).toBeInstanceOf(Date);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 70_700n);
    const keyRow = await gateway.ctx.db.idempotencyKey.findUniqueOrThrow({
      where: { organizationId_key: { organizationId: organization.id, key: 'crash-after-call' } },
    });
    expect(keyRow.state).toBe('in_progress');

    const fresh = await start();
    const meanwhile = await fetch(`${fresh.url}/api/v2/payouts`, { method: 'POST', headers, body });
    expect(meanwhile.status).toBe(409);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);

    // The provider (which, unlike the killed process's sandbox, remembers) says it went through.
    const provider = askOnly('succeeded');
    expect(await settleWith(provider)).toMatchObject({ settled: 1, errors: 0 });
    expect(provider.sent.size).toBe(0);
    expect(provider.asked).toEqual([payout!.id]);

    const retried = await fetch(`${fresh.url}/api/v2/payouts`, { method: 'POST', headers, body });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await retried.json()).toMatchObject({ _id: payout!.id, order_id: payout!.id, payout_status: 'completed', amount: 70_000 });
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 70_700n);
    await expectBalancedLedger(gateway.db.prisma);
  }, 120_000);

  it('before the provider call: "never received" keeps it open (funds reserved, the retry waits with 409); an operator fails it, the funds return, and the retry replays that answer', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'crash-before-call' };
    const body = JSON.stringify(payoutBody({ amount: 20_000 }));
    await lostPayout('./test/support/crash-after-commit.ts', headers, body);

    const [payout] = await gateway.ctx.db.payout.findMany({ where: { organizationId: organization.id } });
    expect(payout).toMatchObject({ status: 'pending' });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 20_200n);

    const provider = askOnly('not_found');
    expect(await settleWith(provider)).toMatchObject({ settled: 0, stillPending: 1, errors: 0 });
    expect(provider.sent.size).toBe(0);
    expect(await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout!.id } })).toMatchObject({ status: 'pending', providerChecks: 1 });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 20_200n);
    const fresh = await start();
    expect((await fetch(`${fresh.url}/api/v2/payouts`, { method: 'POST', headers, body })).status).toBe(409);

    await settleProviderCall(gateway.ctx, gateway.operator, { kind: 'payout', id: payout!.id, outcome: 'failed' }, 'the provider has no such payout');
    expect(await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: payout!.id } })).toMatchObject({ status: 'failed' });
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n);

    const retried = await fetch(`${fresh.url}/api/v2/payouts`, { method: 'POST', headers, body });
    expect(retried.status).toBe(500);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect((await retried.json()).error).toMatch(/^Failed to withdraw/);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
    await expectBalancedLedger(gateway.db.prisma);
  }, 120_000);
});
