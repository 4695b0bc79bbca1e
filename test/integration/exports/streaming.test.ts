/**
 * A large export streams: every row arrives, newest first, while the gateway reads one batch at a
 * time through one connection; a client that goes away gives that connection back at once; and
 * no more than MAX_CONCURRENT_EXPORTS exports hold connections at the same time; one whose client
 * stops reading without closing is cut off after the stall time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { MAX_CONCURRENT_EXPORTS } from '../../../src/domain/exports.js';
import { registerExports } from '../../../src/rest/exports/routes.js';
import { parseCsv } from '../../support/csv.js';
import { useGateway } from '../../support/gateway.js';
import { seedTransactions } from '../../support/seedTransactions.js';

const ROWS = 60_000;
const gateway = useGateway();
let key: string;
let organizationId: string;

beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'read' });
  ({ key } = merchant);
  organizationId = merchant.organization.id;
  await seedTransactions({
    url: gateway.databaseUrl,
    organizationId,
    rows: ROWS,
    end: new Date('2026-11-01T00:00:00Z'),
    spanDays: 365,
    productRows: [1, ROWS],
  });
}, 120_000);

/** Connections the gateway's pool has handed out and not taken back. */
const checkedOut = (): number => {
  const stats = gateway.db.poolStats!();
  return stats.total - stats.idle;
};

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still not ${what} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts an export and reads its first chunk only: the rest waits on the socket (backpressure).
 * node:http rather than fetch, so that going away is a closed socket, as a client that quits.
 */
async function startExport(): Promise<{ quit: () => void }> {
  const request = http.get(`${gateway.url}/exports/transactions.csv`, { headers: { authorization: `Bearer ${key}` } });
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => request.on('response', resolve).on('error', reject));
  expect(response.statusCode).toBe(200);
  await new Promise((resolve) => response.once('data', resolve));
  response.pause();
  return { quit: () => request.destroy() };
}

/** Sessions of the test database inside a transaction (the export's cursor holds one open). */
async function openTransactionsInDatabase(): Promise<number> {
  const client = new pg.Client({ connectionString: gateway.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`,
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

describe('a large export', () => {
  it('holds every row once, newest first, with their products', async () => {
    const response = await fetch(`${gateway.url}/exports/transactions.csv?include_deleted=true`, { headers: { authorization: `Bearer ${key}` } });
    const [header, ...rows] = parseCsv(await response.text());
    expect(rows).toHaveLength(ROWS);
    const column = (name: string) => header!.indexOf(name);
    expect(new Set(rows.map((row) => row[column('order_id')])).size).toBe(ROWS);
    const created = rows.map((row) => row[column('created_at')]!);
    expect(created.every((at, i) => i === 0 || at <= created[i - 1]!)).toBe(true);
    expect(rows.every((row) => Number(row[column('product_count')]) >= 1)).toBe(true);
    expect(checkedOut()).toBe(0);
  }, 60_000);

  it('gives its connection back when the client goes away mid-export', async () => {
    const { quit } = await startExport();
    // The export is under way: its cursor holds a connection and a transaction.
    expect(checkedOut()).toBe(1);
    expect(await openTransactionsInDatabase()).toBe(1);
    quit();
    await until(() => checkedOut() === 0, 'given back');
    await until(async () => (await openTransactionsInDatabase()) === 0, 'closed in the database');
  });

  it(`refuses an export past ${MAX_CONCURRENT_EXPORTS} at once with 429, and takes one again once a slot is free`, async () => {
    const running = [];
    for (let i = 0; i < MAX_CONCURRENT_EXPORTS; i++) running.push(await startExport());
    expect(checkedOut()).toBe(MAX_CONCURRENT_EXPORTS);
    const refused = await fetch(`${gateway.url}/exports/payouts.csv`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: 'Too many exports are running. Try again later.' });
    // The API itself is not held up meanwhile.
    expect((await gateway.rest('GET', '/api/v2/transactions?limit=1', { key })).status).toBe(200);

    running[0]!.quit();
    await until(() => checkedOut() === MAX_CONCURRENT_EXPORTS - 1, 'given back');
    const accepted = await fetch(`${gateway.url}/exports/payouts.csv`, { headers: { authorization: `Bearer ${key}` } });
    expect(accepted.status).toBe(200);
    await accepted.text();
    for (const { quit } of running.slice(1)) quit();
    await until(() => checkedOut() === 0, 'all given back');
  });
});

describe('a client that stops reading without closing', () => {
  it('is cut off once its socket makes no progress for the stall time, giving back the connection and the slot', async () => {
    // The exports on a server of their own, with a short stall time (the gateway's is a minute).
    const app = Fastify();
    registerExports(app, gateway.ctx, { adminToken: null, stallMs: 500 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { port } = app.server.address() as AddressInfo;
      const request = http.get(`http://127.0.0.1:${port}/exports/transactions.csv`, { headers: { authorization: `Bearer ${key}` } });
      request.on('error', () => undefined);
      const response = await new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve));
      response.on('error', () => undefined);
      await new Promise((resolve) => response.once('data', resolve));
      response.pause();
      // Stalled: the export still holds its connection once the socket buffers are full.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(checkedOut()).toBe(1);
      // The client, paused, never reads the close; the gateway's side is what matters.
      await until(() => checkedOut() === 0, 'given back');
      request.destroy();
    } finally {
      await app.close();
    }
  });
});
