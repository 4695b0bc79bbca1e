/**
 * Several hosts of one deployment (real gateway processes sharing PostgreSQL and Redis, each with
 * its own data folder, as separate machines have): they work as one service only when they share
 * the operator token (the checkout form key derives from it) and the webhook secret key. A host
 * that would use another value than its peers refuses to start with one line naming the variable,
 * and never generates its own once a peer recorded theirs; hosts that share them accept each
 * other's checkout forms.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../support/env.js';
import { transactionBody, useGateway } from '../support/gateway.js';
import { ownRedisKeyPrefix, startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { killLeftovers, looksLikeStackFrame, runGatewayUntilExit, stderrLines } from './startup-processes.js';

const REDIS_KEY_PREFIX = ownRedisKeyPrefix('production-hosts');
const ADMIN_TOKEN = 'gw_op_production_hosts_shared_0123456789';
const WEBHOOK_KEY = 'production hosts test: the webhook secret key every host shares';
const gateway = useGateway();
const processes: GatewayProcess[] = [];
const folders: string[] = [];

/** A data folder of its own, as a separate machine has. */
async function hostFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'gateway-host-'));
  folders.push(folder);
  return folder;
}

const hostEnv = async (overrides: Record<string, string> = {}) => ({
  DATABASE_URL: gateway.databaseUrl,
  REDIS_URL: TEST_REDIS_URL,
  REDIS_KEY_PREFIX,
  GATEWAY_DATA_DIR: await hostFolder(),
  GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
  WEBHOOK_SECRET_KEY: WEBHOOK_KEY,
  ...overrides,
});

/**
 * A host on ports the harness chooses (and chooses again if another process takes one first: a
 * port this file chose itself was once taken before the host bound it).
 */
async function startHost(overrides: Record<string, string> = {}): Promise<GatewayProcess> {
  const started = await startGatewayProcess(await hostEnv(overrides));
  processes.push(started);
  return started;
}

/** A refused start: exit code 1 and exactly one line on stderr, no stack. */
async function refusedStart(env: Record<string, string>): Promise<string> {
  const finished = await runGatewayUntilExit(env);
  expect(finished.code, finished.stdout + finished.stderr).toBe(1);
  const lines = stderrLines(finished);
  expect(lines.some(looksLikeStackFrame)).toBe(false);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

let hostA: GatewayProcess;
beforeAll(async () => {
  hostA = await startHost();
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(processes.map((process) => process.stop()));
  await killLeftovers();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('hosts sharing one database', () => {
  it('the first host records fingerprints of the shared secrets, never the secrets', async () => {
    const rows = await gateway.db.prisma.sharedSecretFingerprint.findMany({ orderBy: { name: 'asc' } });
    expect(rows.map((row) => row.name)).toEqual(['GATEWAY_ADMIN_TOKEN', 'WEBHOOK_SECRET_KEY']);
    for (const row of rows) {
      expect(row.fingerprint).toMatch(/^pbkdf2-sha256\$210000\$[\w-]+\$[\w-]{43}$/);
      expect(row.fingerprint).not.toContain(ADMIN_TOKEN);
      expect(row.fingerprint).not.toContain(Buffer.from(ADMIN_TOKEN).toString('base64url'));
    }
  });

  it('a second host with another GATEWAY_ADMIN_TOKEN refuses to start, naming the variable, and does not print the token', async () => {
    const other = 'gw_op_production_hosts_OTHER_0123456789';
    const line = await refusedStart(await hostEnv({ GATEWAY_ADMIN_TOKEN: other }));
    expect(line).toBe(
      'gateway: GATEWAY_ADMIN_TOKEN differs from the value the other hosts sharing this database use: set GATEWAY_ADMIN_TOKEN to the same value on every host (changing it on purpose: docs/operations.md, "Rotating a shared secret")',
    );
  });

  it('a second host with another WEBHOOK_SECRET_KEY refuses to start, naming the variable', async () => {
    const line = await refusedStart(await hostEnv({ WEBHOOK_SECRET_KEY: 'another webhook secret key, 32 characters or more' }));
    expect(line).toMatch(
      /^gateway: WEBHOOK_SECRET_KEY differs from the value the other hosts sharing this database use: set WEBHOOK_SECRET_KEY to the same value on every host/,
    );
  });

  it('a host without GATEWAY_ADMIN_TOKEN does not generate its own: it refuses, and its data folder stays without a token', async () => {
    const env = await hostEnv({ GATEWAY_ADMIN_TOKEN: '' });
    const line = await refusedStart(env);
    expect(line).toBe(
      'gateway: GATEWAY_ADMIN_TOKEN is unset on this host, and the hosts sharing this database already use one: set GATEWAY_ADMIN_TOKEN to the same value on every host (this host will not generate its own)',
    );
    expect(await readdir(env.GATEWAY_DATA_DIR)).not.toContain('admin-token');
  });

  it('with the same secrets both hosts start, and a checkout form rendered by host A is accepted by host B', async () => {
    const hostB = await startHost();
    const { key } = await gateway.merchant({ name: 'Boutique Thiès' });
    const created = await fetch(`${hostA.url}/api/v2/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(transactionBody()),
    });
    expect(created.status).toBe(200);
    const { order_id: orderId } = (await created.json()) as { order_id: string };

    const page = await (await fetch(`${hostA.checkoutUrl}/checkout/${orderId}`)).text();
    const token = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1];
    expect(token).toMatch(/^\d+\.[\w-]{43}$/);
    const form = new URLSearchParams({ method: 'wave', phone: '+221771234567', csrf_token: token! }).toString();
    const post = (base: string) =>
      fetch(`${base}/checkout/${orderId}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });

    // A gateway with another form key (the in-process test gateway's is random) refuses that form...
    const foreign = await post(gateway.checkoutUrl);
    expect(foreign.status).toBe(403);
    // ...host B, sharing host A's operator token, accepts it and the payment goes through.
    const paid = await post(hostB.checkoutUrl);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://shop.example.sn/merci');
    expect((await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } })).status).toBe('paid');

    // The operator token works on either host.
    const query = JSON.stringify({ query: '{ organizations { pagination { totalCount } } }' });
    for (const host of [hostA, hostB]) {
      const answer = await fetch(`${host.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: query,
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { errors?: unknown }).errors).toBeUndefined();
    }
  });
});

describe('a host started with a bad TRUSTED_PROXIES', () => {
  it('refuses to start with one line naming the variable', async () => {
    const line = await refusedStart({ GATEWAY_DATA_DIR: await hostFolder(), GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, TRUSTED_PROXIES: '10.0.0.1, proxy.internal' });
    expect(line).toBe(
      'gateway: TRUSTED_PROXIES must list addresses or CIDRs of your reverse proxies, separated by commas (e.g. "10.0.0.5, 10.1.0.0/16", or "loopback"); not understood: "proxy.internal"',
    );
  });
});
