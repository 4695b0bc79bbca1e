/**
 * The webhook dispatch scenario (issue 9, item 8): the gateway drains a backlog of outbox
 * deliveries to a local receiver, compared with the receiver's own floor measured in the same run.
 *
 *   1. a receiver process (floors/receiver.ts: verifies every signature over the raw bytes in
 *      constant time, answers 200, counts distinct event ids) and `organizations` organisations,
 *      each with one v2 endpoint on it: real `Webhook` rows, secrets encrypted as the gateway
 *      stores them (AES-256-GCM under the WEBHOOK_SECRET_KEY the bench gives the gateway);
 *   2. the receiver's floor: autocannon posting the same size signed bodies, with the same
 *      headers, to the same endpoints, at the dispatcher's overall concurrency;
 *   3. the backlog: `backlog` pending deliveries in ONE INSERT ... SELECT (so the gateway's
 *      dispatcher sees them all at once, from the commit on), endpoints interleaved and due over
 *      the last `backlog` milliseconds, as events of many merchants pile up;
 *   4. the running gateway (started as every scenario's: compiled dist/main.js) drains it; the
 *      drain ends at the last delivery the database marks delivered;
 *   5. checks: the receiver got every seeded event id exactly once, every signature valid, and
 *      the database holds every delivery as delivered after one attempt answered 200;
 *   6. the floor once more (rounds >= 2), so a noisy moment weighs on both sides; then the rows go.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { TransactionRecord } from '../src/domain/transactions/store.js';
import { paymentStatusBodyV2, PAYMENT_STATUS_EVENT } from '../src/domain/webhooks/bodies.js';
import { deriveWebhookSecretKey, encryptWebhookSecret, generateWebhookSecret } from '../src/domain/webhooks/secrets.js';
import { DISPATCHER_DEFAULTS } from '../src/webhooks/dispatcher.js';
import { benchDatabaseUrl, WEBHOOK_ORGANIZATION_NAME } from './database.js';
import { combine, measure } from './load.js';
import { cpuMs, sampleRss, startServer, type ServerProcess } from './processes.js';
import { backlogRow } from './report.js';
import { BENCH_WEBHOOK_SECRET_KEY } from './servers.js';
import { LOAD, RECEIVER_COMMAND } from './settings.js';
import type { BacklogContext, BacklogScenario, DrainFigures, Figures, RequestFactory, Row, ThroughputTarget } from './shapes.js';

/** The order id in the body template, replaced per delivery (same length: every body has the same size). */
const ORDER_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';
const USER_AGENT = 'xof-gateway-webhooks/1';
/** Bound on the receiver's start, the endpoints and the backlog's insert (measured: 4-6 s). */
const SET_UP_SECONDS = 10;
/** Bound on the checks and the clean-up after the drain (measured: 5-10 s). */
const CLEAN_UP_SECONDS = 20;
/**
 * The least drain time the scenario starts with (measured drains: 21-29 s). The drain waits up to
 * the target (60 s), or less when the bench's 10 minutes are running out: a drain cut short is
 * reported as not drained, how far it got, and the target as missed.
 */
const MIN_DRAIN_SECONDS = 45;
/** Bound on one round of the floor: warm-up, run, settling (as run.ts bounds a scenario's runs). */
const floorRoundSeconds = (warmupSeconds: number): number => warmupSeconds + LOAD.durationSeconds + 8;
/** How often the drain's progress is read from the receiver (and, at its end, from the database). */
const POLL_MS = 200;
/** No delivery arriving for this long ends the wait: something is stuck (the checks say what). */
const STALL_MS = 15_000;

export interface WebhookDispatchOptions {
  name: string;
  backlog: number;
  organizations: number;
  target: ThroughputTarget;
}

interface Endpoint {
  id: string;
  secret: string;
}

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: benchDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A v2 payment_status body, built by the gateway's own function, with a placeholder order id. */
function bodyTemplate(): string {
  const at = new Date('2026-11-20T10:15:00.000Z');
  const transaction = {
    id: ORDER_PLACEHOLDER,
    methodOfPayment: ['wave', 'orange_money'],
    selectedPaymentMethod: 'wave',
    amount: 27_500n,
    fees: 275n,
    currency: 'XOF',
    customerFirstName: 'Awa',
    customerLastName: 'Diop',
    customerPhone: '+221770000001',
    status: 'paid',
    isEscrow: false,
    isMerchant: false,
    feesCustomerSide: false,
    successUrl: 'https://shop.example.sn/merci',
    errorUrl: 'https://shop.example.sn/erreur',
    createdAt: at,
    updatedAt: at,
    paidAt: at,
    products: [
      { name: 'Riz parfumé 5 kg', price: 4_500n, quantity: 3, description: null },
      { name: 'Pagne wax', price: 14_000n, quantity: 1, description: 'Coton, 6 yards' },
    ],
  } as unknown as TransactionRecord;
  return paymentStatusBodyV2(transaction);
}

/** Deletes the scenario's organisations: their webhooks, deliveries and attempts go with them. */
async function removeWebhookRows(client?: pg.Client): Promise<number> {
  const run = async (c: pg.Client) => (await c.query(`DELETE FROM "Organization" WHERE name LIKE $1`, [`${WEBHOOK_ORGANIZATION_NAME}%`])).rowCount ?? 0;
  return client ? run(client) : withClient(run);
}

/** The organisations and their endpoints on the receiver, secrets stored encrypted as the gateway stores them. */
async function createEndpoints(client: pg.Client, count: number, receiverUrl: string): Promise<Endpoint[]> {
  const key = deriveWebhookSecretKey(BENCH_WEBHOOK_SECRET_KEY);
  const endpoints = Array.from({ length: count }, () => ({ id: randomUUID(), organizationId: randomUUID(), secret: generateWebhookSecret() }));
  await client.query(
    `WITH orgs AS (
       INSERT INTO "Organization" (id, name, verified, "businessSector", "updatedAt")
       SELECT o, $1 || n, true, 'retail', now() FROM unnest($2::uuid[]) WITH ORDINALITY AS t(o, n))
     INSERT INTO "Webhook" (id, "organizationId", url, version, "encryptedSecret", "updatedAt")
     SELECT w, o, $4 || '/hooks/' || w, 'v2', s, now() FROM unnest($3::uuid[], $2::uuid[], $5::text[]) AS t(w, o, s)`,
    [
      WEBHOOK_ORGANIZATION_NAME,
      endpoints.map((e) => e.organizationId),
      endpoints.map((e) => e.id),
      receiverUrl,
      endpoints.map((e) => encryptWebhookSecret(key, e.id, e.secret)),
    ],
  );
  return endpoints.map(({ id, secret }) => ({ id, secret }));
}

/**
 * The backlog in one transaction (one commit: the dispatcher sees it all at once), analysed before
 * it commits. Returns when it committed.
 *
 * Why ANALYZE: this scenario empties the table at its end (and VACUUM then records it as empty).
 * Planned on "empty" statistics, the dispatcher's record statement joins its batch to the table
 * by a nested loop over every row: 6.4 s for a batch of 500 among 100,000 rows (EXPLAIN ANALYZE),
 * and a drain that stalls. A table that grows in production is analysed by autovacuum as it grows;
 * the bench does here what autovacuum would have done by then.
 */
async function insertBacklog(client: pg.Client, endpoints: Endpoint[], backlog: number, template: string): Promise<number> {
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO "WebhookDelivery" (id, "webhookId", event, "eventId", body, "nextAttemptAt", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), ($1::uuid[])[1 + i % $2], $3, gen_random_uuid(), replace($4, $5, gen_random_uuid()::text), t, t, t
     FROM generate_series(0, $6::int - 1) AS i, LATERAL (SELECT now() - ($6::int - i) * interval '1 millisecond') AS d(t)`,
    [endpoints.map((e) => e.id), endpoints.length, PAYMENT_STATUS_EVENT, template, ORDER_PLACEHOLDER, backlog],
  );
  // Inside the transaction: ANALYZE counts this transaction's own rows, and the dispatcher sees none before the commit.
  await client.query(`ANALYZE "WebhookDelivery"`);
  await client.query('COMMIT');
  return Date.now();
}

/** What the dispatcher sends, to the same endpoints: the floor's requests (each body and event id new). */
function floorRequests(endpoints: Endpoint[], template: string): RequestFactory {
  const keys = endpoints.map((e) => Buffer.from(e.secret, 'utf8'));
  let n = 0;
  return () => {
    const index = n++ % endpoints.length;
    const body = template.replace(ORDER_PLACEHOLDER, randomUUID());
    return {
      method: 'POST',
      path: `/hooks/${endpoints[index]!.id}`,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-signature': createHmac('sha256', keys[index]!).update(body).digest('hex'),
        'x-event-id': randomUUID(),
        'x-event-type': PAYMENT_STATUS_EVENT,
        'x-event-timestamp': new Date().toISOString(),
        'x-delivery-id': randomUUID(),
        'x-delivery-attempt': '1',
      },
    };
  };
}

interface ReceiverStats {
  requests: number;
  valid: number;
  invalid: number;
  duplicates: number;
  withoutEventId: number;
  distinctEvents: number;
  firstAt: number;
  lastAt: number;
  connections: number;
}

const receiverCall = async <T>(receiver: ServerProcess, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
  const response = await fetch(receiver.url + path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`receiver ${method} ${path}: ${response.status}`);
  return (await response.json()) as T;
};

/** Busy share of the machine's CPU time since the last call (/proc/stat), or null. */
function machineCpu(): () => number | null {
  const read = () => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
      const idle = fields[3]! + (fields[4] ?? 0);
      return { total: fields.reduce((a, b) => a + b, 0), idle };
    } catch {
      return null;
    }
  };
  const before = read();
  return () => {
    const after = read();
    if (!before || !after || after.total === before.total) return null;
    return Math.round((1 - (after.idle - before.idle) / (after.total - before.total)) * 100) / 100;
  };
}

/** CPU so far of the bench database's PostgreSQL backends, by pid (ms). */
async function backendCpu(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  return new Map(rows.map((row: { pid: number }) => [row.pid, cpuMs(row.pid) ?? 0]));
}

/** CPU the backends used since `before` (a backend that started since counts whole; one that ended is lost). */
async function backendCpuSince(client: pg.Client, before: Map<number, number>): Promise<number> {
  let total = 0;
  for (const [pid, ms] of await backendCpu(client)) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Waits until the receiver has them all and the database has recorded them all, or nothing moves for STALL_MS, or the deadline. */
async function waitDrained(
  client: pg.Client,
  receiver: ServerProcess,
  endpointIds: string[],
  backlog: number,
  deadline: number,
  log: (line: string) => void,
): Promise<void> {
  let seen = -1;
  let movedAt = Date.now();
  let loggedAt = Date.now();
  while (Date.now() < deadline && Date.now() - movedAt < STALL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const stats = await receiverCall<ReceiverStats>(receiver, 'GET', '/stats');
    if (stats.requests !== seen) {
      seen = stats.requests;
      movedAt = Date.now();
    }
    if (Date.now() - loggedAt >= 10_000) {
      loggedAt = Date.now();
      log(`    ${stats.requests.toLocaleString('en')} received`);
    }
    if (stats.requests < backlog) continue;
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "webhookId" = ANY($1::uuid[]) AND status = 'pending'`, [
      endpointIds,
    ]);
    if (rows[0].n === 0) return;
  }
}

/** The checks, and the gateway side's figures from its own delivery log. */
async function inspect(client: pg.Client, receiver: ServerProcess, endpointIds: string[], backlog: number, committedAt: number) {
  const stats = await receiverCall<ReceiverStats>(receiver, 'GET', '/stats');
  const received = new Set(await receiverCall<string[]>(receiver, 'GET', '/events'));
  const { rows: states } = await client.query(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*) FILTER (WHERE status = 'pending')::int AS pending,
       count(*) FILTER (WHERE status = 'dropped')::int AS dropped, count(*) FILTER (WHERE "attemptCount" <> 1)::int AS "notOneAttempt",
       max("deliveredAt") AS "lastDeliveredAt"
     FROM "WebhookDelivery" WHERE "webhookId" = ANY($1::uuid[])`,
    [endpointIds],
  );
  const { rows: attempts } = await client.query(
    `SELECT coalesce(a."statusCode"::text, 'none') AS code, count(*)::int AS n, count(a.error)::int AS errors
     FROM "WebhookAttempt" a JOIN "WebhookDelivery" d ON d.id = a."deliveryId" WHERE d."webhookId" = ANY($1::uuid[]) GROUP BY 1`,
    [endpointIds],
  );
  const { rows: durations } = await client.query(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a."durationMs") AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY a."durationMs") AS p99
     FROM "WebhookAttempt" a JOIN "WebhookDelivery" d ON d.id = a."deliveryId" WHERE d."webhookId" = ANY($1::uuid[])`,
    [endpointIds],
  );
  const { rows: events } = await client.query(`SELECT "eventId" AS id FROM "WebhookDelivery" WHERE "webhookId" = ANY($1::uuid[])`, [endpointIds]);
  const seeded = new Set(events.map((row: { id: string }) => row.id));
  const missing = [...seeded].filter((id) => !received.has(id)).length;
  const unexpected = [...received].filter((id) => !seeded.has(id)).length;
  const state = states[0];
  const statusCodes = Object.fromEntries(attempts.map((row: { code: string; n: number }) => [row.code, row.n]));
  const checks = {
    seeded: seeded.size,
    received: stats.requests,
    distinctReceived: stats.distinctEvents,
    missing,
    unexpected,
    duplicates: stats.duplicates,
    invalidSignatures: stats.invalid,
    withoutEventId: stats.withoutEventId,
    delivered: state.delivered,
    pending: state.pending,
    dropped: state.dropped,
    notOneAttempt: state.notOneAttempt,
  };
  const problems = [
    seeded.size !== backlog && `${seeded.size} deliveries seeded, not ${backlog}`,
    missing && `${missing} event ids never arrived`,
    unexpected && `${unexpected} unknown event ids arrived`,
    stats.duplicates && `${stats.duplicates} event ids arrived more than once`,
    stats.invalid && `${stats.invalid} bad signatures`,
    stats.withoutEventId && `${stats.withoutEventId} requests without X-Event-Id`,
    state.delivered !== backlog && `${state.delivered} of ${backlog} marked delivered (${state.pending} pending, ${state.dropped} dropped)`,
    state.notOneAttempt && `${state.notOneAttempt} deliveries took other than one attempt`,
  ].filter((problem): problem is string => typeof problem === 'string');
  const drained = state.delivered === backlog && state.lastDeliveredAt;
  const seconds = drained ? Math.round((new Date(state.lastDeliveredAt).getTime() - committedAt) / 10) / 100 : null;
  const attemptsTotal = attempts.reduce((sum: number, row: { n: number }) => sum + row.n, 0);
  const gateway: Omit<Figures, 'rssMaxMB' | 'cpuMsPerRequest'> = {
    reqPerSec: seconds ? Math.round(state.delivered / seconds) : Math.round(state.delivered / Math.max((Date.now() - committedAt) / 1000, 0.001)),
    p50: Math.round(Number(durations[0].p50 ?? 0) * 100) / 100,
    p99: Math.round(Number(durations[0].p99 ?? 0) * 100) / 100,
    requests: attemptsTotal,
    failedAnswers: attempts.filter((row: { code: string }) => !/^2/.test(row.code)).reduce((sum: number, row: { n: number }) => sum + row.n, 0),
    errors: attempts.reduce((sum: number, row: { errors: number }) => sum + row.errors, 0),
    timeouts: 0,
    statusCodes,
  };
  const receiverSeconds = stats.lastAt > stats.firstAt ? (stats.lastAt - stats.firstAt) / 1000 : null;
  return { gateway, checks, problems, seconds, receiverSeconds, receiverConnections: stats.connections };
}

export function webhookDispatch(options: WebhookDispatchOptions): BacklogScenario {
  const concurrency = { overall: DISPATCHER_DEFAULTS.maxConcurrency, perEndpoint: DISPATCHER_DEFAULTS.perEndpointConcurrency };
  const floorName = `receiver floor (node:http, verifies each signature), ${concurrency.overall} connections`;
  return {
    kind: 'backlog',
    name: options.name,
    target: options.target,
    // Set-up, one floor round, a drain of MIN_DRAIN_SECONDS at least, the checks and the clean-up
    // (measured: 65-80 s in all with a 21-29 s drain). The drain may then take up to the target
    // if the bench's time allows, and the floor's later rounds run only if it still does.
    budgetMs: (SET_UP_SECONDS + floorRoundSeconds(LOAD.warmupSeconds) + MIN_DRAIN_SECONDS + CLEAN_UP_SECONDS) * 1000,
    async run({ servers, profiling, log, deadline }: BacklogContext): Promise<Row> {
      const template = bodyTemplate();
      const gatewayProcess = await servers.get('gateway');
      const receiver = await startServer('webhook receiver', RECEIVER_COMMAND.nodeArgs, {});
      try {
        return await withClient(async (client) => {
          await removeWebhookRows(client);
          const endpoints = await createEndpoints(client, options.organizations, receiver.url);
          const endpointIds = endpoints.map((e) => e.id);
          await receiverCall(receiver, 'POST', '/secrets', Object.fromEntries(endpoints.map((e) => [e.id, e.secret])));
          const receiverTarget = { url: receiver.url, pid: receiver.pid, headers: {} };
          const floorRounds: Figures[] = [];
          const measureFloor = async (warmupSeconds: number) => {
            floorRounds.push(await measure(receiverTarget, floorRequests(endpoints, template), warmupSeconds, concurrency.overall));
            await receiverCall(receiver, 'POST', '/reset');
          };
          // The receiver is a small node:http process: the short warm-up is enough for its JIT.
          await measureFloor(LOAD.warmupSeconds);
          log(`  ${floorName}: ${floorRounds[0]!.reqPerSec} req/s, p99 ${floorRounds[0]!.p99} ms`);

          const seedStarted = performance.now();
          const committedAt = await insertBacklog(client, endpoints, options.backlog, template);
          const seedSeconds = Math.round(performance.now() - seedStarted) / 1000;
          log(`  ${options.backlog.toLocaleString('en')} deliveries to ${endpoints.length} endpoints committed in ${seedSeconds} s: draining`);
          const rss = sampleRss(gatewayProcess.pid, LOAD.rssSampleMs);
          const cpu = { gateway: cpuMs(gatewayProcess.pid), receiver: cpuMs(receiver.pid), postgres: await backendCpu(client), machine: machineCpu() };
          // Not drained within the target: missed, and the row says how far it got (the bench's 10 minutes matter more).
          const drainBoundMs = Math.min(options.target.maxSeconds * 1000, deadline - Date.now() - CLEAN_UP_SECONDS * 1000);
          if (drainBoundMs < options.target.maxSeconds * 1000)
            log(`  the drain may take ${Math.round(drainBoundMs / 1000)} s at most (the bench's time bound)`);
          await waitDrained(client, receiver, endpointIds, options.backlog, Date.now() + drainBoundMs, log);
          const machineBusy = cpu.machine();
          const postgresMs = await backendCpuSince(client, cpu.postgres);
          const perDelivery = (before: number | null, pid: number) => {
            const after = cpuMs(pid);
            return before === null || after === null ? null : Math.round(((after - before) / options.backlog) * 1000) / 1000;
          };
          const cpuFigures = {
            gatewayMsPerDelivery: perDelivery(cpu.gateway, gatewayProcess.pid),
            receiverMsPerDelivery: perDelivery(cpu.receiver, receiver.pid),
            postgresMsPerDelivery: Math.round((postgresMs / options.backlog) * 1000) / 1000,
            machineBusy,
          };
          const rssMaxMB = rss.stop();
          // Profiling: the profile is written when the gateway exits; it holds the drain, not the floor's second round.
          if (profiling) await servers.stop('gateway');

          const found = await inspect(client, receiver, endpointIds, options.backlog, committedAt);
          await receiverCall(receiver, 'POST', '/reset');
          // The floor's later rounds (a noisy moment weighs on both sides), if the bench's 10 minutes allow.
          for (let round = 1; round < LOAD.rounds && !profiling; round++) {
            if (Date.now() + (floorRoundSeconds(LOAD.warmupSeconds) + CLEAN_UP_SECONDS) * 1000 > deadline) {
              log(`  ${floorName}: ${round} round${round > 1 ? 's' : ''} only (the bench's time bound)`);
              break;
            }
            await measureFloor(LOAD.warmupSeconds);
          }
          const floor = combine(floorRounds);
          log(`  baseline ${floorName}: ${floor.reqPerSec} req/s, p99 ${floor.p99} ms, ${floor.cpuMsPerRequest} ms CPU/request`);

          const removed = performance.now();
          await removeWebhookRows(client);
          await client.query(`VACUUM (ANALYZE) "WebhookDelivery", "WebhookAttempt"`);
          log(`  removed the scenario's rows in ${Math.round(performance.now() - removed) / 1000} s`);

          const drain: DrainFigures = {
            items: options.backlog,
            seconds: found.seconds,
            perSecond: found.gateway.reqPerSec,
            receiverSeconds: found.receiverSeconds,
            problems: found.problems,
            checks: found.checks,
            cpu: cpuFigures,
            receiverConnections: found.receiverConnections,
            concurrency,
            endpoints: endpoints.length,
            bodyBytes: Buffer.byteLength(template),
            seedSeconds,
          };
          return backlogRow(options, floorName, { ...found.gateway, rssMaxMB, cpuMsPerRequest: cpuFigures.gatewayMsPerDelivery }, floor, drain);
        });
      } finally {
        await receiver.stop();
      }
    },
  };
}
