/**
 * The export scenario (issue 19): GET /exports/transactions.csv?include_deleted=true streams the
 * seeded organisation's 1,000,000 transactions (and the few the run's money scenarios added to it) from the running gateway (compiled dist/main.js, as
 * every scenario's), against the floor: PostgreSQL's own `COPY (SELECT the same columns, same
 * filter, same order) TO STDOUT WITH (FORMAT csv)` read by psql, in the same run.
 *
 * Reported: rows/s of each (the whole file read, rows counted by line), their ratio, and the
 * gateway's RSS growth during the export (largest sample minus the sample just before it). The
 * issue's bounds: RSS growth <= 50 MB; the rate is judged against EXPORT_TARGETS.minRatio of the
 * floor. Rounds alternate floor / gateway (LOAD.rounds), as the other scenarios do; the best
 * round of each side is kept (an export is one long request: a noisy moment lands on one round).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import pg from 'pg';
import { benchDatabaseUrl } from './database.js';
import { cpuMs, rssMB, sampleRss } from './processes.js';
import { LOAD } from './settings.js';
import type { BacklogContext, BacklogScenario, Figures, Row, ThroughputTarget } from './shapes.js';

const EXPORT_TARGETS = {
  /** The issue: the gateway's resident memory grows by at most this while it streams the export. */
  maxRssGrowthMB: 50,
  /**
   * Rows/s as a share of COPY's. COPY writes CSV inside PostgreSQL with no protocol per row; the
   * export moves rows through the driver, JavaScript and HTTP: a few times slower is expected.
   */
  minRatio: 0.25,
} as const;

/** One side's figures for one round. */
interface Pass {
  rows: number;
  bytes: number;
  seconds: number;
  status: number;
}

/**
 * The export's SELECT (src/domain/transactions/store.ts, EXPORT_TRANSACTION_COLUMNS, with the
 * filter include_deleted=true leaves: the organisation only), as COPY runs it.
 */
const wireText = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const floorSql = (organizationId: string): string => `COPY (
  SELECT t.id, t."organizationId", t.amount::text AS amount, t.fees::text AS fees, t.currency, t.status::text AS status,
    array_to_string(t."methodOfPayment", ';') AS "methodOfPayment", t."selectedPaymentMethod"::text AS "selectedPaymentMethod",
    t."customerFirstName", t."customerLastName", t."customerPhone", t."isEscrow", t."isMerchant", t."feesCustomerSide",
    t."successUrl", t."errorUrl", ${wireText('t."createdAt"')} AS "createdAt", ${wireText('t."updatedAt"')} AS "updatedAt",
    ${wireText('t."paidAt"')} AS "paidAt", p."productCount", p."productNames"
  FROM "Transaction" t
  CROSS JOIN LATERAL (SELECT count(*)::int AS "productCount", COALESCE(string_agg(tp.name, '; ' ORDER BY tp.position), '') AS "productNames"
                      FROM "TransactionProduct" tp WHERE tp."transactionId" = t.id) p
  WHERE t."organizationId" = '${organizationId}'::uuid
  ORDER BY t."createdAt" DESC, t.id DESC
) TO STDOUT WITH (FORMAT csv, HEADER)`;

/** Counts the lines and bytes of a stream (no field of the seed holds a line break). */
function counter() {
  let bytes = 0;
  let lines = 0;
  return {
    add(chunk: Buffer) {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
    },
    result: () => ({ bytes, lines }),
  };
}

/** The floor: psql running COPY, its output read and counted here as the export's is. */
async function copyFloor(organizationId: string): Promise<Pass> {
  const started = performance.now();
  const child = spawn('psql', ['--no-psqlrc', '--quiet', '-v', 'ON_ERROR_STOP=1', '-d', benchDatabaseUrl(), '-c', floorSql(organizationId)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const count = counter();
  let errors = '';
  child.stdout.on('data', count.add);
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const { bytes, lines } = count.result();
  if (code !== 0) throw new Error(`psql COPY failed (${code}): ${errors.slice(0, 500)}`);
  return { rows: lines - 1, bytes, seconds: (performance.now() - started) / 1000, status: 200 };
}

/** The gateway's export, read as fast as this process can take it. */
async function gatewayExport(url: string, key: string, query = '?include_deleted=true'): Promise<Pass> {
  const started = performance.now();
  const count = counter();
  const status = await new Promise<number>((resolve, reject) => {
    http
      .get(`${url}/exports/transactions.csv${query}`, { headers: { authorization: `Bearer ${key}` } }, (response) => {
        response.on('data', count.add);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      })
      .on('error', reject);
  });
  const { bytes, lines } = count.result();
  return { rows: lines - 1, bytes, seconds: (performance.now() - started) / 1000, status };
}

const figuresOf = (pass: Pass, rssMaxMB: number | null, cpuMsPerThousandRows: number | null): Figures => ({
  reqPerSec: Math.round(pass.rows / pass.seconds),
  p50: Math.round(pass.seconds * 1000),
  p99: Math.round(pass.seconds * 1000),
  requests: pass.rows,
  failedAnswers: pass.status === 200 ? 0 : 1,
  errors: 0,
  timeouts: 0,
  statusCodes: { [pass.status]: 1 },
  rssMaxMB,
  cpuMsPerRequest: cpuMsPerThousandRows,
});

export function exportScenario(options: { name: string; rows: number }): BacklogScenario {
  // Not a backlog drain: the scenario kind that runs its own measurement and returns its row.
  // Its own target (EXPORT_TARGETS) is what the row is judged on; this one bounds nothing more.
  const target: ThroughputTarget = { kind: 'throughput', minPerSecond: 0, maxSeconds: 120 };
  const baseline = 'COPY (the same SELECT) TO STDOUT WITH (FORMAT csv), read through psql';
  return {
    kind: 'backlog',
    name: options.name,
    target,
    // Measured (2 shared cores, others busy): COPY of 1,120,000 rows 10-26 s, the export 18-48 s; a
    // warm-up export, then LOAD.rounds of each.
    budgetMs: 10_000 + LOAD.rounds * 40_000,
    async run({ servers, data, profiling, log }: BacklogContext): Promise<Row> {
      const gatewayProcess = await servers.get('gateway');
      const client = new pg.Client({ connectionString: benchDatabaseUrl() });
      await client.connect();
      const organizationId: string = await client
        .query(`SELECT organization_id FROM bench.seed LIMIT 1`)
        .then((result) => result.rows[0].organization_id)
        .finally(() => client.end());

      // A fresh gateway grows by tens of MB on its first requests of a kind (compiled code, lazily
      // loaded modules, pools filled): one smaller export first, so that the growth measured is
      // the export's, not the process warming up.
      const warmUp = await gatewayExport(gatewayProcess.url, data.key, '?include_deleted=true&min_amount=90000');
      log(`  warm-up: ${warmUp.rows.toLocaleString('en')} rows in ${warmUp.seconds.toFixed(2)} s, RSS now ${rssMB(gatewayProcess.pid)} MB`);
      const floors: Pass[] = [];
      const exports: { pass: Pass; growthMB: number | null; rssMaxMB: number | null; cpuMsPerThousandRows: number | null }[] = [];
      for (let round = 0; round < LOAD.rounds; round++) {
        floors.push(await copyFloor(organizationId));
        log(`  floor: ${floors.at(-1)!.rows.toLocaleString('en')} rows in ${floors.at(-1)!.seconds.toFixed(2)} s`);
        await new Promise((resolve) => setTimeout(resolve, LOAD.settleMs));
        const before = rssMB(gatewayProcess.pid);
        const cpuBefore = cpuMs(gatewayProcess.pid);
        const rss = sampleRss(gatewayProcess.pid, 100);
        const pass = await gatewayExport(gatewayProcess.url, data.key);
        const rssMaxMB = rss.stop();
        const cpuAfter = cpuMs(gatewayProcess.pid);
        const growthMB = before === null || rssMaxMB === null ? null : rssMaxMB - before;
        const cpuMsPerThousandRows =
          cpuBefore === null || cpuAfter === null || pass.rows === 0 ? null : Math.round(((cpuAfter - cpuBefore) / pass.rows) * 1000 * 100) / 100;
        exports.push({ pass, growthMB, rssMaxMB, cpuMsPerThousandRows });
        log(
          `  gateway: ${pass.rows.toLocaleString('en')} rows (${Math.round(pass.bytes / 2 ** 20)} MB) in ${pass.seconds.toFixed(2)} s, RSS ${before} -> max ${rssMaxMB} MB, ${cpuMsPerThousandRows} ms CPU per 1,000 rows`,
        );
        await new Promise((resolve) => setTimeout(resolve, LOAD.settleMs));
      }
      if (profiling) await servers.stop('gateway');

      const bestFloor = floors.reduce((best, pass) => (pass.seconds < best.seconds ? pass : best));
      const best = exports.reduce((chosen, round) => (round.pass.seconds < chosen.pass.seconds ? round : chosen));
      const growths = exports.map((round) => round.growthMB).filter((growth): growth is number => growth !== null);
      const worstGrowthMB = growths.length ? Math.max(...growths) : null;
      const gateway = figuresOf(best.pass, best.rssMaxMB, best.cpuMsPerThousandRows);
      const floor = figuresOf(bestFloor, null, null);
      const ratio = Math.round((gateway.reqPerSec / Math.max(floor.reqPerSec, 1)) * 100) / 100;
      const problems = [
        best.pass.status !== 200 ? `gateway answered ${best.pass.status}` : '',
        best.pass.rows !== bestFloor.rows ? `gateway exported ${best.pass.rows} rows, COPY ${bestFloor.rows}` : '',
        bestFloor.rows < options.rows ? `COPY gave ${bestFloor.rows} rows, fewer than the ${options.rows} seeded` : '',
      ].filter(Boolean);
      const met = problems.length === 0 && ratio >= EXPORT_TARGETS.minRatio && worstGrowthMB !== null && worstGrowthMB <= EXPORT_TARGETS.maxRssGrowthMB;
      log(
        `  export: ${gateway.reqPerSec.toLocaleString('en')} rows/s against COPY's ${floor.reqPerSec.toLocaleString('en')} (${ratio}); RSS growth at most ${worstGrowthMB} MB`,
      );
      const row: Row & { export: Record<string, unknown> } = {
        scenario: options.name,
        baseline,
        gateway,
        floor,
        ratioReqPerSec: ratio,
        ratioP99: Math.round((gateway.p99 / Math.max(floor.p99, 1)) * 100) / 100,
        addedP99Ms: gateway.p99 - floor.p99,
        target: `>=${EXPORT_TARGETS.minRatio * 100}% of COPY's rows/s, RSS +<=${EXPORT_TARGETS.maxRssGrowthMB} MB (was +${worstGrowthMB ?? '-'} MB)`,
        met,
        ...(problems.length && { invalid: problems.join('; ') }),
        export: {
          rows: best.pass.rows,
          bytes: best.pass.bytes,
          seconds: best.pass.seconds,
          floorSeconds: bestFloor.seconds,
          rssGrowthMB: growths,
          cpuMsPerThousandRows: best.cpuMsPerThousandRows,
        },
      };
      return row;
    },
  };
}
