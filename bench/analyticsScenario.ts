/**
 * The analysts' scenario (issue 19): `connections` analysts at once, each asking over GraphQL (an
 * operator token, every organisation) for transactionStats over the last `days` whole UTC days, by
 * DAY and METHOD, one request after another. Target: p99 at most `maxP99Ms` (absolute: the issue's
 * figure). Floor: the bare SQL answering the same question on the same data, sent with pg by the
 * same number of sessions at once, in turn with the gateway (LOAD.rounds rounds each).
 *
 * The seed is loaded with triggers off (seedSql.ts), so the daily rollup the answer reads knows
 * nothing of it: the scenario forgets the rollup first (its "AnalyticsRollup" row), and the gateway
 * builds it whole at the first request of the warm-up, as it would on a new database.
 */
import pg from 'pg';
import { benchDatabaseUrl } from './database.js';
import { combine, comparedWithFloor, isValid, measure, percentile } from './load.js';
import { BENCH_ADMIN_TOKEN } from './servers.js';
import { LOAD } from './settings.js';
import type { BacklogContext, BacklogScenario, Figures, LatencyTarget, RequestFactory, Row } from './shapes.js';

/** p99 at most `maxMs`, whatever the floor's (reported beside it). */
export interface AnalyticsScenarioOptions {
  name: string;
  connections: number;
  days: number;
  target: LatencyTarget;
}

const DAY_MS = 86_400_000;

const STATS_QUERY = `query Stats($from: DateTime!, $to: DateTime!) {
  transactionStats(from: $from, to: $to, interval: DAY, groupBy: [METHOD]) { periodStart method count amount fees }
}`;

/**
 * The bare SQL of the same question: the daily rollup's whole days, grouped by day and method (the
 * statement analytics/store.ts sends for it, without the edges: the range is whole days).
 */
const FLOOR_SQL = `
SELECT date_trunc('day', (d.day::timestamp AT TIME ZONE 'UTC'), 'UTC') AS "periodStart", d.method,
       sum(d.count)::int AS count, sum(d.amount)::bigint AS amount, sum(d.fees)::bigint AS fees
FROM "TransactionStatsDay" d
WHERE d.day >= $1::date AND d.day < $2::date
GROUP BY 1, 2
ORDER BY 1, 2`;

/** The last `days` whole UTC days before today. */
function lastWholeDays(days: number): { from: Date; to: Date } {
  const now = new Date();
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { from: new Date(to.getTime() - days * DAY_MS), to };
}

/** `connections` sessions sending FLOOR_SQL back to back for `seconds`: the floor's figures. */
async function bareSql(pool: pg.Pool, connections: number, seconds: number, range: { from: Date; to: Date }): Promise<Figures> {
  const params = [range.from.toISOString().slice(0, 10), range.to.toISOString().slice(0, 10)];
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = await pool.connect();
      try {
        while (performance.now() < deadline) {
          const started = performance.now();
          try {
            await client.query({ text: FLOOR_SQL, values: params });
            latencies.push(performance.now() - started);
          } catch {
            errors += 1;
          }
        }
      } finally {
        client.release();
      }
    }),
  );
  const sorted = latencies.sort((a, b) => a - b);
  return {
    reqPerSec: Math.round(latencies.length / seconds),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    requests: latencies.length,
    failedAnswers: 0,
    errors,
    timeouts: 0,
    statusCodes: {},
    rssMaxMB: null,
    cpuMsPerRequest: null,
  };
}

/** Every request is an answer with data and no errors, or it counts as failed (a GraphQL error is a 200 too). */
async function checkAnswer(url: string, body: string): Promise<void> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
    body,
  });
  const answer = (await response.json()) as { data?: { transactionStats?: unknown[] }; errors?: unknown[] };
  if (response.status !== 200 || answer.errors || !answer.data?.transactionStats?.length)
    throw new Error(`transactionStats answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
}

export function analyticsScenario(options: AnalyticsScenarioOptions): BacklogScenario {
  const floorName = `bare SQL on the rollup (pg, ${options.connections} sessions)`;
  return {
    kind: 'backlog',
    name: options.name,
    target: options.target,
    // The rollup's build (about 2 s), then LOAD.rounds rounds of a warm-up and a run on each side.
    budgetMs: (10 + LOAD.rounds * 2 * (LOAD.firstWarmupSeconds + LOAD.durationSeconds + 4)) * 1000,
    async run({ servers, log }: BacklogContext): Promise<Row> {
      const pool = new pg.Pool({ connectionString: benchDatabaseUrl(), max: options.connections });
      try {
        await pool.query(`DELETE FROM "AnalyticsRollup" WHERE name = 'transactions'`);
        const gateway = await servers.get('gateway');
        const range = lastWholeDays(options.days);
        const body = JSON.stringify({ query: STATS_QUERY, variables: { from: range.from.toISOString(), to: range.to.toISOString() } });
        const built = performance.now();
        await checkAnswer(gateway.url, body);
        log(`  ${options.name}: first answer (the rollup built from scratch) in ${Math.round(performance.now() - built)} ms`);
        // The build emptied the change log of every row the seed's set-up changed (database.ts):
        // dead rows each freshness check would read until autovacuum (1,000 dead rows, its next
        // round) removes them. The bench does now what autovacuum does within its minute.
        await pool.query(`VACUUM "TransactionStatsChange"`);
        const request: RequestFactory = () => ({ method: 'POST', path: '/graphql', body });
        const target = { url: gateway.url, pid: gateway.pid, headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } };
        const gatewayRounds: Figures[] = [];
        const floorRounds: Figures[] = [];
        for (let round = 0; round < LOAD.rounds; round += 1) {
          await bareSql(pool, options.connections, LOAD.warmupSeconds, range);
          floorRounds.push(await bareSql(pool, options.connections, LOAD.durationSeconds, range));
          gatewayRounds.push(await measure(target, request, round === 0 ? LOAD.firstWarmupSeconds : LOAD.warmupSeconds, options.connections));
        }
        // Checked again after the load: the answers were answers, not errors with a 200.
        await checkAnswer(gateway.url, body);
        const gatewayFigures = combine(gatewayRounds);
        const floor = combine(floorRounds);
        log(`  baseline ${floorName}: ${floor.reqPerSec} req/s, p99 ${floor.p99} ms`);
        const invalid = [
          !isValid(gatewayFigures) &&
            `gateway: ${gatewayFigures.failedAnswers} failed answers ${JSON.stringify(gatewayFigures.statusCodes)}, ${gatewayFigures.errors} errors, ${gatewayFigures.timeouts} timeouts`,
          !isValid(floor) && `baseline: ${floor.errors} errors`,
        ]
          .filter(Boolean)
          .join('; ');
        return {
          scenario: options.name,
          baseline: floorName,
          gateway: gatewayFigures,
          floor,
          ...comparedWithFloor(gatewayFigures, floor),
          target: `p99 <=${options.target.maxMs} ms`,
          met: !invalid && gatewayFigures.p99 <= options.target.maxMs,
          ...(invalid && { invalid }),
        };
      } finally {
        await pool.end();
      }
    },
  };
}
