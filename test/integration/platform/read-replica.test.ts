/**
 * DATABASE_REPLICA_URL against a real streaming replica (test/support/streamingReplica.ts: a
 * primary and its hot standby of our own, pg_basebackup on 127.0.0.1). With the standby's replay
 * paused, what a list shows tells where it was read: a row written after the pause is on the
 * primary only. The rule (src/infra/prisma/replica.ts): lists read the replica while it is at most
 * REPLICA_MAX_LAG_MS behind, else the primary; money, gets and idempotency always read the primary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { authorizeRead } from '../../../src/domain/access/auth.js';
import { adjustAccount, getAccount, listAccountEntries, listPayouts, listTransactions } from '../../../src/domain/operations.js';
import { payTransaction } from '../../../src/domain/payments/payTransaction.js';
import { openReplica } from '../../../src/infra/prisma/replica.js';
import { StartupError } from '../../../src/infra/startupErrors.js';
import { startGateway, type TestGateway } from '../../support/gateway.js';
import { startStreamingReplica, type StreamingReplica } from '../../support/streamingReplica.js';
import { moneySurfaces, type PortableTransaction } from '../../support/surfaces/money.js';
import { must } from '../../support/surfaces/transactions.js';

/** Long enough for a scenario's calls on a busy 2-core machine (under 2 s alone), short enough to wait out once. */
const MAX_LAG_MS = 5_000;
const CHECK_INTERVAL_MS = 100;

let cluster: StreamingReplica;
let gateway: TestGateway;
const warnings: string[] = [];

beforeAll(async () => {
  cluster = await startStreamingReplica();
  const log = { info: () => undefined, error: () => undefined, warn: (_obj: object, message?: string) => void warnings.push(message ?? '') };
  gateway = await startGateway({
    replica: { primaryUrl: cluster.primaryUrl, url: cluster.replicaUrl, maxLagMs: MAX_LAG_MS, checkIntervalMs: CHECK_INTERVAL_MS },
    log,
    metrics: true,
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await cluster?.close();
});

const order: PortableTransaction = { method: 'wave', products: [{ name: 'Thieboudienne', price: 2500, quantity: 2 }] };

/** Until `condition` holds (polled), or fails the test after `ms`. */
async function until(what: string, condition: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The order ids of the transactions CSV export (a streamed read through laggingReads). */
async function exportedOrderIds(key: string): Promise<string[]> {
  const response = await fetch(`${gateway.url}/exports/transactions.csv`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  const [header = '', ...rows] = (await response.text()).split(/\r?\n/).filter(Boolean);
  const column = header.split(',').indexOf('order_id');
  expect(column, header).toBeGreaterThanOrEqual(0);
  return rows.map((row) => row.split(',')[column]!);
}

/** The replica's lines of /metrics. */
const replicaMetrics = async (): Promise<string[]> =>
  (await (await fetch(`${gateway.url}/metrics`)).text()).split('\n').filter((line) => line.startsWith('db_replica_'));

/** The standby has replayed everything the primary had written when this was called, and serves. */
async function replicaCaughtUp(): Promise<void> {
  const [{ lsn }] = (await gateway.db.prisma.$queryRaw<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`) as [{ lsn: string }];
  await until('the replica replayed the primary', async () => {
    const [{ replayed }] = (await gateway.replica!.prisma.$queryRaw<
      { replayed: boolean }[]
    >`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS replayed`) as [{ replayed: boolean }];
    return replayed;
  });
  await until('the rule serves lists from the replica', () => gateway.replica!.status().state === 'serving');
}

describe('lists read the replica; gets and money read the primary', () => {
  it('with replay paused, new rows are missing from every list but read by id, paid, cancelled and paid out at once', async () => {
    const { surfaces } = moneySurfaces(gateway);
    const { key } = await gateway.merchant();
    const payouts = await gateway.merchant({ payoutEnabled: true, scope: 'payout' });
    await replicaCaughtUp();
    await cluster.pauseReplay();

    // Written on the primary after the pause: on the replica these rows do not exist.
    const created: Record<string, string> = {};
    for (const surface of surfaces) created[surface.name] = must(await surface.create(key, order), `create through ${surface.name}`).orderId;
    const credited = await adjustAccount(gateway.ctx, gateway.operator, {
      organizationId: payouts.organization.id,
      amount: 50_000,
      reason: 'replica test credit',
    });
    // A money decision on the balance credited after the pause: the replica's balance is 0.
    const payout = await gateway.rest('POST', '/api/v2/payouts', {
      key: payouts.key,
      body: { selected_payment_method: 'wave', amount: 10_000, recipient: { first_name: 'Awa', last_name: 'Diop', phone: '+221770000001' } },
    });
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    expect(payout.body.payout_status).toBe('completed');

    // Lists (REST v1, v2, GraphQL; payouts; account entries) answer from the replica's past.
    for (const surface of surfaces)
      expect(must(await surface.list(key, {}), `list through ${surface.name}`), `${surface.name} list (${JSON.stringify(gateway.replica!.status())})`).toEqual(
        [],
      );
    expect(await exportedOrderIds(key), 'transactions export').toEqual([]);
    const payoutList = await gateway.rest('GET', '/api/v2/payouts', { key: payouts.key });
    expect(payoutList.status).toBe(200);
    expect(payoutList.body.payouts, 'payouts list').toEqual([]);
    const operatorEntries = authorizeRead(gateway.operator, 'listAccountEntries', null);
    expect((await listAccountEntries(gateway.ctx, operatorEntries, credited.id, {})).items, 'account entries').toHaveLength(0);
    expect(gateway.replica!.status().state, 'still within the lag bound').toBe('serving');

    // Gets by id and money read the primary.
    for (const surface of surfaces) expect(must(await surface.getOne(key, created[surface.name]!), `get through ${surface.name}`).status).toBe('pending');
    expect((await gateway.rest('GET', `/api/v2/payouts/${payout.body.order_id}`, { key: payouts.key })).status).toBe(200);
    expect(Number((await getAccount(gateway.ctx, authorizeRead(gateway.operator, 'getAccount', null), credited.id)).balance)).toBeLessThan(50_000);
    const paid = await payTransaction(gateway.ctx, gateway.operator, created.v2!, { method: 'wave', phone: '+221770000001' });
    expect(paid.transaction.status).toBe('paid');
    must(await surfaces[0]!.remove(key, created.v1!, 'cancel'), 'cancel through v1');

    // Past the bound the rule sends lists to the primary: the rows appear, replay still paused.
    await until('the rule finds the replica lagging', () => gateway.replica!.status().state === 'lagging', MAX_LAG_MS + 5_000);
    expect(await replicaMetrics()).toContain('db_replica_serving 0');
    const v2 = surfaces.find((surface) => surface.name === 'v2')!;
    expect(
      must(await v2.list(key, {}), 'list from the primary')
        .map((t) => t.orderId)
        .sort(),
    ).toEqual([created.v2, created.graphql].sort());
    expect((await exportedOrderIds(key)).sort(), 'transactions export from the primary').toEqual([created.v2, created.graphql].sort());
    expect((await gateway.rest('GET', '/api/v2/payouts', { key: payouts.key })).body.payouts.map((p: { order_id: string }) => p.order_id)).toEqual([
      payout.body.order_id,
    ]);
    expect((await listAccountEntries(gateway.ctx, operatorEntries, credited.id, {})).items.length).toBeGreaterThan(0);

    // Caught up, lists go back to the replica: a row written after a second pause is missing again.
    await cluster.resumeReplay();
    await replicaCaughtUp();
    await cluster.pauseReplay();
    const late = must(await v2.create(key, order), 'create after the second pause').orderId;
    expect(must(await v2.list(key, {}), 'list from the replica again').map((t) => t.orderId)).not.toContain(late);
    await cluster.resumeReplay();
    await replicaCaughtUp();
    expect(must(await v2.list(key, {}), 'list once replayed').map((t) => t.orderId)).toContain(late);
  });
});

describe('an idle primary', () => {
  it('is not lag: with nothing to replay, the measured lag stays 0 (the last replayed commit only gets older)', async () => {
    await replicaCaughtUp();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(gateway.replica!.status()).toEqual({ state: 'serving', lagMs: 0 });
    expect(await replicaMetrics()).toEqual(['db_replica_serving 1', 'db_replica_lag_seconds 0']);
  });
});

describe('refused at start', () => {
  it('refuses a replica without a PostgreSQL primary, and a check interval not shorter than the lag bound', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgresql://127.0.0.1/gateway' })).toThrow(/DATABASE_REPLICA_URL needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://127.0.0.1/gateway', DATABASE_REPLICA_URL: 'replica-host:5432' })).toThrow(
      /DATABASE_REPLICA_URL must be a postgresql:\/\/ URL/,
    );
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgresql://127.0.0.1/gateway',
        DATABASE_REPLICA_URL: 'postgresql://127.0.0.1:5433/gateway',
        REPLICA_MAX_LAG_MS: '500',
        REPLICA_CHECK_INTERVAL_MS: '500',
      }),
    ).toThrow(/REPLICA_CHECK_INTERVAL_MS \(500\) must be less than REPLICA_MAX_LAG_MS \(500\)/);
    expect(loadConfig({ DATABASE_URL: 'postgresql://127.0.0.1/gateway', DATABASE_REPLICA_URL: 'postgresql://127.0.0.1:5433/gateway' }).replica).toEqual({
      url: 'postgresql://127.0.0.1:5433/gateway',
      maxLagMs: 1_000,
      checkIntervalMs: 250,
    });
  });

  it('refuses a server that is not a standby, a standby of another database, and an unknown database', async () => {
    const open = (url: string) =>
      openReplica({
        url,
        primaryUrl: cluster.primaryUrl,
        primary: gateway.db.pool!,
        maxLagMs: MAX_LAG_MS,
        checkIntervalMs: CHECK_INTERVAL_MS,
        log: gateway.ctx.log,
      });
    await expect(open(cluster.primaryUrl)).rejects.toThrow(StartupError);
    await expect(open(cluster.primaryUrl)).rejects.toThrow(/not a standby/);
    const otherDatabase = new URL(cluster.replicaUrl);
    otherDatabase.pathname = '/postgres';
    await expect(open(otherDatabase.toString())).rejects.toThrow(/not a replica of the database DATABASE_URL names/);
    otherDatabase.pathname = '/no_such_database';
    await expect(open(otherDatabase.toString())).rejects.toThrow(/database "no_such_database" does not exist.*DATABASE_REPLICA_URL/);
  });
});

describe('the replica down', () => {
  it('lists answer from the primary, with one warning, not one per request, even before a check notices', async () => {
    const { surfaces } = moneySurfaces(gateway);
    const { organization, key } = await gateway.merchant();
    await replicaCaughtUp();
    // A second replica client whose checks will not run during the test: only the requests
    // themselves can find the replica down. Its pool holds a replica connection the stop cuts.
    const uncheckedWarnings: string[] = [];
    const unchecked = await openReplica({
      url: cluster.replicaUrl,
      primaryUrl: cluster.primaryUrl,
      primary: gateway.db.pool!,
      maxLagMs: 60_000,
      checkIntervalMs: 59_000,
      log: { ...gateway.ctx.log, warn: (_obj: object, message?: string) => void uncheckedWarnings.push(message ?? '') },
    });
    const ctx = { ...gateway.ctx, replica: unchecked.prisma };
    const transactionsOf = async () =>
      (await listTransactions(ctx, authorizeRead(gateway.operator, 'listTransactions', organization.id), {})).items.map((t) => t.id);
    const payoutsOf = async () => (await listPayouts(ctx, authorizeRead(gateway.operator, 'listPayouts', organization.id), {})).items;
    try {
      expect(await transactionsOf()).toEqual([]);
      expect(await payoutsOf()).toEqual([]);
      const warningsBefore = warnings.length;
      await cluster.stopReplica();
      const created = must(await surfaces[1]!.create(key, order), 'create with the replica down').orderId;

      // Direct statements (transactions) and Prisma's model calls (payouts), from the primary.
      expect(await transactionsOf()).toEqual([created]);
      expect(await payoutsOf()).toEqual([]);
      expect(unchecked.status().state).toBe('unreachable');
      expect(uncheckedWarnings.filter((line) => /read replica failed/.test(line))).toHaveLength(1);

      // Through every surface, again and again: answers, and one warning in all.
      for (let i = 0; i < 3; i++) {
        for (const surface of surfaces)
          expect(must(await surface.list(key, {}), `list through ${surface.name}, replica down`).map((t) => t.orderId)).toEqual([created]);
        expect(await transactionsOf()).toEqual([created]);
      }
      expect(gateway.replica!.status().state).toBe('unreachable');
      expect(warnings.slice(warningsBefore).filter((line) => /read replica failed/.test(line))).toHaveLength(1);
      expect(uncheckedWarnings.filter((line) => /read replica failed/.test(line))).toHaveLength(1);
    } finally {
      await unchecked.close();
    }
  });
});
