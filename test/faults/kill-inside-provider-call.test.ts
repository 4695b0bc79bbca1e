/**
 * kill -9 of a gateway instance INSIDE a provider call (issue 16): the provider has done what it
 * was asked (its books say so) and the instance dies before it hears the answer. The client gets
 * no answer. The OTHER instance of the deployment recovers it: its reconciler asks the provider
 * (never sends again) and settles the outcome exactly once, matching the provider's record; a
 * client retrying with its Idempotency-Key on the other instance gets the settled answer.
 *
 * Payment (sandboxPay, as the checkout page pays), refund and payout; and a payout killed after it
 * was recorded but before the provider received it, which must stay open ("not found" is not
 * "failed"). On PGlite (one embedded process), the same payout crash recovers on restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/infra/prisma/database.js';
import { expectLedgerInvariants } from '../support/ledger.js';
import { startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { call, FAULT_ENV, operatorGraphql, useCluster, type Instance } from '../support/faults/cluster.js';
import { expectAnswersAgain, expectEveryWebhookDelivered, expectMoneyInvariants, expectProviderAgreesWithLedger } from '../support/faults/invariants.js';
import {
  createTransaction,
  faultMerchant,
  mainBalanceOf,
  pay,
  paidOn,
  payoutFeeOf,
  postPayout,
  refund,
  retryWhileUnsettled,
  WALLETS,
  type FaultMerchant,
} from '../support/faults/money.js';

const CRASH_INSIDE_PROVIDER_CALL = './test/support/faults/crash-inside-provider-call.ts';
const CRASH_BEFORE_PROVIDER_CALL = './test/support/crash-after-commit.ts';
const LATENCY_MS = 300;
/** The survivor's reconcilers take over within this (RECONCILE_AFTER_MS 1.5 s, every 0.3 s). */
const RECOVERY_MS = 20_000;

const cluster = useCluster({ env: { SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
let survivor: Instance;
let receiver: WebhookReceiver;
let merchant: FaultMerchant;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  survivor = await cluster.start('survivor');
  merchant = await faultMerchant(cluster.gateway, { receiver, path: '/kill' });
}, 90_000);
afterAll(async () => {
  await receiver?.close();
});

/** An instance that dies (SIGKILL) right after the provider recorded a call of `kind`. */
const doomedInstance = (name: string, kind: 'collect' | 'refund' | 'payout') =>
  cluster.start(name, { nodeArgs: ['--import', CRASH_INSIDE_PROVIDER_CALL], env: { FAULT_CRASH_KIND: kind } });

async function expectKilled(instance: Instance, answer: { status: number }): Promise<void> {
  expect(answer.status, 'the client got an answer from an instance that should have died').toBe(0);
  expect((await instance.exited).signal).toBe('SIGKILL');
}

/** The provider's books for one reference. */
const providerCall = async (kind: string, reference: string) =>
  (
    await cluster.gateway.ctx.db.$queryRaw<{ status: string; calls: number; amount: bigint }[]>`
    SELECT status, calls, amount FROM "SandboxProviderCall" WHERE kind = ${kind} AND reference = ${reference}`
  )[0] ?? null;

describe('kill -9 of an instance inside a provider call; the other instance recovers', () => {
  it('payment: the provider collected, the instance died; the survivor settles it paid once (one payment posting) and the webhook goes out', async () => {
    const doomed = await doomedInstance('doomed-payment', 'collect');
    const created = await createTransaction(survivor, merchant.checkoutKey, 2_500);
    expect(created.status).toBe(200);
    const orderId: string = created.body.order_id;

    await expectKilled(doomed, await pay(doomed, orderId));
    const db = cluster.gateway.ctx.db;
    const [attempt, ...others] = await db.paymentAttempt.findMany({ where: { transactionId: orderId } });
    expect(others).toEqual([]);
    expect(await providerCall('collect', attempt!.id)).toMatchObject({ status: 'succeeded', calls: 1 });

    await eventually(
      async () => (await db.transaction.findUniqueOrThrow({ where: { id: orderId } })).status === 'paid',
      RECOVERY_MS,
      'the survivor settling the payment',
    );
    expect(await db.paymentAttempt.findUniqueOrThrow({ where: { id: attempt!.id } })).toMatchObject({ state: 'succeeded' });

    // Paying again on the survivor collects nothing more.
    const again = await pay(survivor, orderId);
    expect(again.body?.data?.sandboxPay?.outcome ?? null).not.toBe('paid');
    const collections = await db.$queryRaw<{ calls: number }[]>`
      SELECT c.calls FROM "SandboxProviderCall" c JOIN "PaymentAttempt" a ON a.id::text = c.reference WHERE c.kind = 'collect' AND a."transactionId" = ${orderId}::uuid`;
    expect(collections).toEqual([{ calls: 1 }]);

    await expectMoneyInvariants(db);
    await expectEveryWebhookDelivered(db, receiver, RECOVERY_MS);
    await expectAnswersAgain(survivor, merchant.checkoutKey);
  }, 60_000);

  it('refund: the provider refunded, the instance died; the survivor settles it refunded once; the retry with its key replays the 200', async () => {
    const orderId = await paidOn(survivor, merchant.checkoutKey, 3_000);
    const before = await mainBalanceOf(cluster.gateway, merchant.organizationId);
    const doomed = await doomedInstance('doomed-refund', 'refund');
    const headers = { 'idempotency-key': 'kill-inside-refund' };

    await expectKilled(doomed, await refund(doomed, merchant.checkoutKey, orderId, { headers }));
    const db = cluster.gateway.ctx.db;
    const pending = await db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(pending.status).toBe('pending');
    expect(await providerCall('refund', pending.id)).toMatchObject({ status: 'succeeded', calls: 1, amount: 3_000n });

    await eventually(
      async () => (await db.transaction.findUniqueOrThrow({ where: { id: orderId } })).status === 'refunded',
      RECOVERY_MS,
      'the survivor settling the refund',
    );
    expect(await db.refund.findUniqueOrThrow({ where: { id: pending.id } })).toMatchObject({ status: 'succeeded' });

    const retried = await retryWhileUnsettled(() => refund(survivor, merchant.checkoutKey, orderId, { headers }), 20_000);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers?.get('idempotent-replayed')).toBe('true');
    const fresh = await refund(survivor, merchant.checkoutKey, orderId);
    expect(fresh.status).toBe(400);

    expect(await providerCall('refund', pending.id)).toMatchObject({ status: 'succeeded', calls: 1 });
    expect(await mainBalanceOf(cluster.gateway, merchant.organizationId)).toBe(before - 3_000n);
    await expectMoneyInvariants(db);
    await expectAnswersAgain(survivor, merchant.checkoutKey);
  }, 60_000);

  it('payout: the provider paid, the instance died; the survivor settles it completed with one debit; the retry with its key replays it', async () => {
    const before = await mainBalanceOf(cluster.gateway, merchant.organizationId);
    const doomed = await doomedInstance('doomed-payout', 'payout');
    const headers = { 'idempotency-key': 'kill-inside-payout' };

    await expectKilled(doomed, await postPayout(doomed, merchant.payoutKey, 40_000, { headers }));
    const db = cluster.gateway.ctx.db;
    const [payout, ...others] = await db.payout.findMany({ where: { organizationId: merchant.organizationId } });
    expect(others).toEqual([]);
    expect(payout!.status).toBe('pending');
    expect(await providerCall('payout', payout!.id)).toMatchObject({ status: 'succeeded', calls: 1, amount: 40_000n });

    await eventually(
      async () => (await db.payout.findUniqueOrThrow({ where: { id: payout!.id } })).status === 'completed',
      RECOVERY_MS,
      'the survivor settling the payout',
    );
    const retried = await retryWhileUnsettled(() => postPayout(survivor, merchant.payoutKey, 40_000, { headers }), 20_000);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers?.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toMatchObject({ _id: payout!.id, payout_status: 'completed', amount: 40_000 });

    expect(await db.payout.count({ where: { organizationId: merchant.organizationId } })).toBe(1);
    expect(await providerCall('payout', payout!.id)).toMatchObject({ status: 'succeeded', calls: 1 });
    expect(await mainBalanceOf(cluster.gateway, merchant.organizationId)).toBe(before - 40_000n - payoutFeeOf(40_000));
    await expectMoneyInvariants(db);
    await expectAnswersAgain(survivor, merchant.checkoutKey);
  }, 60_000);

  it('payout recorded but never received by the provider: asked again and again, never failed, the funds stay reserved', async () => {
    const other = await faultMerchant(cluster.gateway, { float: 100_000 });
    const doomed = await cluster.start('doomed-before-call', { nodeArgs: ['--import', CRASH_BEFORE_PROVIDER_CALL] });
    const headers = { 'idempotency-key': 'kill-before-payout' };
    await expectKilled(doomed, await postPayout(doomed, other.payoutKey, 20_000, { headers }));

    const db = cluster.gateway.ctx.db;
    const [payout] = await db.payout.findMany({ where: { organizationId: other.organizationId } });
    expect(payout).toMatchObject({ status: 'pending' });
    expect(await providerCall('payout', payout!.id)).toBeNull();
    // The survivor asks (the provider says "not found") at least twice, and never fails it.
    await eventually(
      async () => (await db.payout.findUniqueOrThrow({ where: { id: payout!.id } })).providerChecks >= 2,
      RECOVERY_MS,
      'the reconciler asking twice',
    );
    const after = await db.payout.findUniqueOrThrow({ where: { id: payout!.id } });
    expect(after).toMatchObject({ status: 'pending' });
    expect(after.nextProviderCheckAt).toBeInstanceOf(Date);
    expect(await providerCall('payout', payout!.id)).toBeNull();
    expect(await mainBalanceOf(cluster.gateway, other.organizationId)).toBe(100_000n - 20_000n - payoutFeeOf(20_000));

    // The client's retry is told it is still in flight; nothing is sent.
    const retried = await postPayout(survivor, other.payoutKey, 20_000, { headers });
    expect(retried.status).toBe(409);
    expect(await providerCall('payout', payout!.id)).toBeNull();
    const { open } = await expectMoneyInvariants(db);
    expect(open).toContainEqual({ kind: 'payout', id: payout!.id, provider: null });
  }, 60_000);
});

describe('on PGlite (one embedded process)', () => {
  let dataDir = '';
  const started: GatewayProcess[] = [];
  afterAll(async () => {
    await Promise.allSettled(started.map((process) => process.stop()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('kill -9 inside a payout call, then a restart on the same data folder: settled completed once by asking, the retry replays it', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'gw-fault-pglite-'));
    const env = { ...FAULT_ENV, GATEWAY_DATA_DIR: dataDir, SANDBOX_LATENCY_MS: String(LATENCY_MS) };
    const doomed = await startGatewayProcess({ ...env, FAULT_CRASH_KIND: 'payout' }, ['--import', CRASH_INSIDE_PROVIDER_CALL]);
    started.push(doomed);

    const graphql = async (query: string, variables: Record<string, unknown>) => {
      const answer = await operatorGraphql(doomed, query, variables);
      expect(answer.body?.errors, JSON.stringify(answer.body)).toBeUndefined();
      return answer.body.data;
    };
    const { createOrganization: organization } = await graphql(
      `mutation { createOrganization(input: { name: "Embedded", verified: true, payoutEnabled: true }) { id } }`,
      {},
    );
    const { createApiKey: issued } = await graphql(`mutation($id: ID!) { createApiKey(organizationId: $id, scope: payout) { key } }`, { id: organization.id });
    await graphql(`mutation($id: ID!) { adjustAccount(organizationId: $id, amount: 500000, reason: "float") { balance } }`, { id: organization.id });

    const headers = { 'idempotency-key': 'pglite-kill-inside-payout' };
    const lost = await postPayout(doomed, issued.key, 30_000, { headers });
    expect(lost.status).toBe(0);
    expect((await doomed.exited).signal).toBe('SIGKILL');

    // The restart takes the dead process's data-folder lock over; its reconciler asks the provider.
    const restarted = await startGatewayProcess(env);
    started.push(restarted);
    const listed = await eventually(
      async () => {
        const list = await call(restarted, 'GET', `/api/v2/payouts?recipient_phone=${encodeURIComponent(WALLETS.succeeds)}`, { key: issued.key });
        return list.body?.payouts?.[0]?.payout_status === 'completed' ? list.body.payouts : null;
      },
      RECOVERY_MS,
      'the restarted process settling the payout',
    );
    expect(listed).toHaveLength(1);
    const retried = await retryWhileUnsettled(() => postPayout(restarted, issued.key, 30_000, { headers }), 20_000);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ _id: listed[0].order_id, payout_status: 'completed' });
    expect(retried.headers?.get('idempotent-replayed')).toBe('true');

    await restarted.stop();
    const db = await openDatabase({ dataDir });
    try {
      await expectLedgerInvariants(db.prisma);
      await expectProviderAgreesWithLedger(db.prisma);
      const [account] = await db.prisma.account.findMany({ where: { organizationId: organization.id, name: 'main' } });
      expect(account!.balance).toBe(500_000n - 30_000n - payoutFeeOf(30_000));
    } finally {
      await db.close();
    }
  }, 120_000);
});
