/**
 * `npm start` with DATABASE_REPLICA_URL: the composition root (src/main.ts) opens the replica and
 * its lists read it. A real gateway process on a primary and its streaming standby of our own
 * (test/support/streamingReplica.ts); with the standby's replay paused, a transaction created
 * through the process is read back by id (primary) but missing from its list (replica) until the
 * lag bound passes. And the embedded database with a replica is refused in one line.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WEBHOOK_SERVER_KEY } from '../support/gateway.js';
import { CreateApiKeyDocument, CreateOrganizationDocument } from '../support/graphql/generated.js';
import { startGatewayProcess, waitFor, type GatewayProcess } from '../support/processes.js';
import { startStreamingReplica, type StreamingReplica } from '../support/streamingReplica.js';
import { runGatewayUntilExit, stderrLines } from './startup-processes.js';

const ADMIN_TOKEN = 'gw_op_read_replica_process_0123456789abcdef';
/** Long enough for a few calls on a busy 2-core machine; then waited out once. */
const MAX_LAG_MS = 3_000;

let cluster: StreamingReplica;
let gateway: GatewayProcess;
let dataDir: string;

beforeAll(async () => {
  cluster = await startStreamingReplica();
  dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-replica-process-'));
  gateway = await startGatewayProcess({
    DATABASE_URL: cluster.primaryUrl,
    DATABASE_REPLICA_URL: cluster.replicaUrl,
    REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
    REPLICA_CHECK_INTERVAL_MS: '100',
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
    GATEWAY_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  });
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  await cluster?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function graphql<Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables): Promise<Result> {
  const { status, body } = await call('POST', `${gateway.url}/graphql`, ADMIN_TOKEN, { query: print(document), variables });
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

describe('a gateway process with DATABASE_REPLICA_URL', () => {
  it('lists what the standby has replayed, and reads by id what the primary has', async () => {
    expect(gateway.output()).toContain('read replica opened');
    const { createOrganization } = await graphql(CreateOrganizationDocument, { input: { name: 'Replica shop' } });
    const { createApiKey } = await graphql(CreateApiKeyDocument, { organizationId: createOrganization.id, scope: 'checkout' });
    const key: string = createApiKey.key;
    // The rule serving lists from the standby (the process logs each change of its state).
    const serving = () => gateway.output().lastIndexOf('read replica serves lagging reads') > gateway.output().lastIndexOf('read replica skipped');
    await waitFor(async () => serving(), 20_000, gateway.output);

    await cluster.pauseReplay();
    const created = await call('POST', `${gateway.url}/api/v2/transactions`, key, {
      method_of_payment: ['wave'],
      products: [{ name: 'Bissap', price: 500, quantity: 1 }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orderId: string = created.body.order_id;
    const listed = await call('GET', `${gateway.url}/api/v2/transactions`, key);
    expect(listed.status).toBe(200);
    expect(
      listed.body.transactions.map((t: { order_id: string }) => t.order_id),
      'the list, read on the paused standby',
    ).toEqual([]);
    expect((await call('GET', `${gateway.url}/api/v2/transactions/${orderId}`, key)).status, 'the get by id, read on the primary').toBe(200);

    // Past the bound, the list reads the primary.
    await waitFor(
      async () => (await call('GET', `${gateway.url}/api/v2/transactions`, key)).body.transactions.length === 1,
      MAX_LAG_MS + 5_000,
      gateway.output,
    );
    // A read decides with the time since the last check too, so it may go to the primary a little
    // before the next check finds the lag and logs it.
    await waitFor(async () => /read replica skipped/.test(gateway.output()), 5_000, gateway.output);
    await cluster.resumeReplay();
  });
});

describe('a start with DATABASE_REPLICA_URL', () => {
  it('without DATABASE_URL (the embedded database) is refused in one line naming both variables', async () => {
    const finished = await runGatewayUntilExit({ DATABASE_REPLICA_URL: cluster.replicaUrl, GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(finished.code).toBe(1);
    expect(stderrLines(finished)).toEqual([expect.stringMatching(/^gateway: DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database has no replica/)]);
  });
});
