/**
 * `npm run bench`: the gateway against its floors, measured in the same run on this machine.
 *
 *   1. build the gateway as `npm start` does; make, migrate (by starting the gateway once) and
 *      seed the bench database, or reuse it when its seed is intact (database.ts says why);
 *   2. start the floors and the gateway as processes of their own;
 *   3. per scenario: its baseline and the gateway in turn, LOAD.rounds times, each a warm-up
 *      and a fixed-duration run at the same concurrency (a baseline is measured once per run);
 *   4. print the table and write bench/results/ (latest.json for a full run).
 *
 * Flags: --fresh (drop and reseed), --only <text> (scenarios whose name contains it),
 * --cpu-prof <text> (the first matching scenario only, gateway under --cpu-prof: the profile
 * lands in bench/profiles/ and its top functions are printed), --count-statements (the gateway
 * tallies its SQL statements into bench/profiles/statements-<pid>.json: countStatements.cjs). The whole run is bounded by
 * LIMITS.totalMs.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createFormTokens } from '../src/checkout/csrf.js';
import {
  ensureDatabase,
  intactSeed,
  issueApiKey,
  prepareMoneyRows,
  preparePaymentLink,
  preparePayoutOrganizations,
  sampleTransactionIds,
  seed,
  type Seed,
} from './database.js';
import { combine, measure, measurePaired, type LoadTarget } from './load.js';
import { rssMB, runNode } from './processes.js';
import { summariseProfile } from './profile.js';
import { measureCli } from './cli.js';
import { formatTable, machine, memoryVerdicts, scenarioRow, startupVerdicts, writeResults } from './report.js';
import { SCENARIOS } from './scenarios.js';
import { BENCH_ADMIN_TOKEN, Servers, gatewayEnv, startGateway } from './servers.js';
import { GATEWAY_COMMAND, LIMITS, LOAD, RATE_LIMIT_MAX, REDIS_URL, ROOT, SEED } from './settings.js';
import { type AnyScenario, type BenchData, type Figures, isBacklogScenario, type RequestFactory, type Row, type Scenario, type ServerName } from './shapes.js';

const log = (line: string) => console.log(`bench: ${line}`);
const PROFILE_DIR = path.join(ROOT, 'bench', 'profiles');
const BUILD_TIMEOUT_MS = 120_000;
const DAY_MS = 86_400_000;
/** Quiet time after start before the idle RSS is read. */
const IDLE_SETTLE_MS = 2_000;

const { values: flags } = parseArgs({
  options: { fresh: { type: 'boolean' }, only: { type: 'string' }, 'cpu-prof': { type: 'string' }, 'count-statements': { type: 'boolean' } },
});

/** Migrated and seeded, or reused: the seed and how long this run spent on it. */
async function prepareSeed(fresh: boolean): Promise<Seed & { reused: boolean; seconds: number }> {
  const started = performance.now();
  if (await ensureDatabase(fresh)) log('created the bench database');
  const kept = await intactSeed().catch(() => null);
  if (kept) return { ...kept, reused: true, seconds: Math.round(performance.now() - started) / 1000 };
  log('migrating (starting the gateway once)');
  await (await startGateway('gateway (migration)', gatewayEnv(REDIS_URL))).stop();
  log(`seeding ${SEED.transactions.toLocaleString('en')} transactions with ${SEED.workers} sessions`);
  const made = await seed(log);
  log(`seeded in ${made.insertSeconds.toFixed(1)} s + ${made.vacuumSeconds.toFixed(1)} s VACUUM ANALYZE (${made.products.toLocaleString('en')} products)`);
  return { ...made, reused: false, seconds: Math.round(performance.now() - started) / 1000 };
}

/** The list scenarios' filters: wave payments during one month, a month before the seed ended. */
function listFilters(seededUntil: Date): BenchData['list'] {
  const end = new Date(seededUntil.getTime() - 30 * DAY_MS);
  const start = new Date(end.getTime() - 30 * DAY_MS);
  return { status: 'paid', paymentMethod: 'wave', startDate: start.toISOString(), endDate: end.toISOString() };
}

/** The server and its warm-up: a server's first measurement warms it longer (a fresh process still compiles its hot paths). */
async function loadTarget(servers: Servers, name: ServerName, data: BenchData): Promise<{ target: LoadTarget; warmupSeconds: number }> {
  const server = await servers.get(name);
  const warmupSeconds = servers.warmed.has(name) ? LOAD.warmupSeconds : LOAD.firstWarmupSeconds;
  servers.warmed.add(name);
  return { target: { url: server.url, pid: server.pid, headers: { authorization: `Bearer ${data.key}` } }, warmupSeconds };
}

async function measureOn(servers: Servers, name: ServerName, data: BenchData, factory: RequestFactory): Promise<Figures> {
  const { target, warmupSeconds } = await loadTarget(servers, name, data);
  return measure(target, factory, warmupSeconds);
}

/** Sequential scenarios: baseline and gateway take turns request by request, in one run. */
async function measurePairOn(servers: Servers, scenario: Scenario, data: BenchData): Promise<[Figures, Figures]> {
  const baseline = await loadTarget(servers, scenario.baseline.server, data);
  const gateway = await loadTarget(servers, scenario.server ?? 'gateway', data);
  return measurePaired(baseline.target, gateway.target, scenario.request(data), Math.max(baseline.warmupSeconds, gateway.warmupSeconds));
}

/**
 * A scenario's row: its baseline and the gateway, alternating for LOAD.rounds rounds (a baseline
 * already measured for an earlier scenario is reused; sequential ones are measured in pairs, see
 * measurePaired). When profiling: one round, the gateway first and stopped right after, so its
 * profile holds its own run and not its idle time during the baseline.
 */
async function runScenario(scenario: Scenario, servers: Servers, data: BenchData, baselines: Map<string, Figures>, profiling: boolean): Promise<Row> {
  const baselineRounds: Figures[] = [];
  const gatewayRounds: Figures[] = [];
  const known = scenario.sequential ? undefined : baselines.get(scenario.baseline.name);
  for (let round = 0; round < (profiling ? 1 : LOAD.rounds); round += 1) {
    if (scenario.sequential) {
      const [baseline, gateway] = await measurePairOn(servers, scenario, data);
      baselineRounds.push(baseline);
      gatewayRounds.push(gateway);
      continue;
    }
    if (profiling) gatewayRounds.push(await measureOn(servers, scenario.server ?? 'gateway', data, scenario.request(data)));
    if (profiling) await servers.stop('gateway');
    if (!known) baselineRounds.push(await measureOn(servers, scenario.baseline.server, data, scenario.baseline.request(data)));
    if (!profiling) gatewayRounds.push(await measureOn(servers, scenario.server ?? 'gateway', data, scenario.request(data)));
  }
  const baseline = known ?? combine(baselineRounds);
  if (!known)
    log(
      `  baseline ${scenario.baseline.name}${scenario.sequential ? ' (sequential)' : ''}: ${baseline.reqPerSec} req/s, p99 ${baseline.p99} ms, ${baseline.cpuMsPerRequest} ms CPU/request`,
    );
  if (!scenario.sequential) baselines.set(scenario.baseline.name, baseline);
  return scenarioRow(scenario, combine(gatewayRounds), baseline);
}

/** A baseline server no later scenario uses is stopped: an idle process still costs the others a little. */
async function stopUnneeded(servers: Servers, remaining: AnyScenario[]): Promise<void> {
  for (const name of ['floors', 'gatewayWithoutLimiter'] as const) {
    if (!remaining.some((scenario) => !isBacklogScenario(scenario) && scenario.baseline.server === name)) await servers.stop(name);
  }
}

/** What one scenario may take at most, from the settings: every run, its warm-up and settling, generously. */
const scenarioBudgetMs = (scenario: AnyScenario): number =>
  isBacklogScenario(scenario) ? scenario.budgetMs : LOAD.rounds * 2 * (LOAD.firstWarmupSeconds + LOAD.durationSeconds + 8) * 1000;

/** The scenarios in order; those that would not fit in the bench's time bound are skipped, and said so. */
async function runScenarios(scenarios: AnyScenario[], servers: Servers, data: BenchData, profiling: boolean, deadline: number) {
  const baselines = new Map<string, Figures>();
  const rows: Row[] = [];
  const skipped: string[] = [];
  for (const scenario of scenarios) {
    if (Date.now() + scenarioBudgetMs(scenario) > deadline) {
      skipped.push(scenario.name);
      log(`  SKIPPED ${scenario.name}: it would not finish within the bench's ${LIMITS.totalMs / 60_000} min`);
      continue;
    }
    const row = isBacklogScenario(scenario)
      ? await scenario.run({ servers, data, profiling, log, deadline })
      : await runScenario(scenario, servers, data, baselines, profiling);
    rows.push(row);
    await stopUnneeded(servers, scenarios.slice(scenarios.indexOf(scenario) + 1));
    log(
      `  ${scenario.name}: ${row.gateway.reqPerSec} req/s, p99 ${row.gateway.p99} ms, ${row.gateway.cpuMsPerRequest} ms CPU/request, ratio ${row.ratioReqPerSec}${row.invalid ? ` INVALID (${row.invalid})` : ''}`,
    );
    // An invalid row is usually a gateway that crashed or logged errors: show why, not only that.
    if (row.invalid) log(`  ${scenario.name}: the gateway's last output:\n${(await servers.get('gateway')).output().slice(-3000)}`);
  }
  return { rows, baselines: Object.fromEntries(baselines), skipped };
}

function selectScenarios(): AnyScenario[] {
  const pattern = flags['cpu-prof'] ?? flags.only;
  if (!pattern) return SCENARIOS;
  const selected = SCENARIOS.filter((scenario) => scenario.name.toLowerCase().includes(pattern.toLowerCase()));
  if (!selected.length) throw new Error(`no scenario matches "${pattern}": ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return flags['cpu-prof'] ? selected.slice(0, 1) : selected;
}

async function newestProfile(): Promise<string | undefined> {
  const files = (await readdir(PROFILE_DIR).catch(() => [])).filter((file) => file.endsWith('.cpuprofile')).sort();
  return files.length ? path.join(PROFILE_DIR, files.at(-1)!) : undefined;
}

/** Built, seeded, and what the scenarios draw on. */
async function prepare(): Promise<{ seeded: Awaited<ReturnType<typeof prepareSeed>>; data: BenchData }> {
  log(`building the gateway as npm start does (node ${GATEWAY_COMMAND.build.join(' ')})`);
  await runNode(GATEWAY_COMMAND.build, BUILD_TIMEOUT_MS);
  const seeded = await prepareSeed(flags.fresh ?? false);
  log(
    `seed ${seeded.reused ? 'reused (intact)' : 'made'}: ${seeded.transactions.toLocaleString('en')} transactions, ${seeded.products.toLocaleString('en')} products`,
  );
  const money = await prepareMoneyRows(seeded.organizationId);
  const data: BenchData = {
    key: await issueApiKey(seeded.organizationId),
    ids: await sampleTransactionIds(seeded.organizationId),
    list: listFilters(seeded.seededUntil),
    ...money,
    payoutKeys: await preparePayoutOrganizations(),
    formTokens: createFormTokens(BENCH_ADMIN_TOKEN),
    paymentLinkId: await preparePaymentLink(seeded.organizationId),
  };
  return { seeded, data };
}

/** The gateway's RSS at rest: started, answering, and left alone a moment (start-up work done). */
async function idleRss(servers: Servers): Promise<{ idleMB: number | null; startMs: number }> {
  const gateway = await servers.get('gateway');
  log(`gateway answered /healthz ${gateway.startMs} ms after spawning (pid ${gateway.pid})`);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  return { idleMB: rssMB(gateway.pid), startMs: gateway.startMs };
}

async function main(): Promise<void> {
  const started = Date.now();
  const scenarios = selectScenarios();
  const profiling = flags['cpu-prof'] !== undefined;
  const { seeded, data } = await prepare();
  const counting = flags['count-statements'] ? ['--require', path.join(ROOT, 'bench', 'countStatements.cjs')] : [];
  const servers = new Servers(data, profiling ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : counting);
  try {
    const idle = await idleRss(servers);
    const cli = await measureCli((await servers.get('gateway')).url, BENCH_ADMIN_TOKEN);
    log(`CLI: org list ${cli.answered.medianMs} ms (median of 5), on a closed port ${cli.refused.medianMs} ms`);
    const startup = { healthzAfterSpawnMs: idle.startMs, cli };
    const { rows, baselines, skipped } = await runScenarios(scenarios, servers, data, profiling, started + LIMITS.totalMs - LIMITS.reserveMs);
    await servers.stopAll();
    const memory = { idleMB: idle.idleMB, maxUnderLoadMB: Math.max(...rows.map((row) => row.gateway.rssMaxMB ?? 0)) };
    console.log(`\n${formatTable(rows, memory, startup)}\n`);
    const totalSeconds = Math.round((Date.now() - started) / 100) / 10;
    const full = !flags.only && !profiling && skipped.length === 0;
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      machine: machine(),
      settings: { load: LOAD, seed: SEED, gatewayCommand: GATEWAY_COMMAND, rateLimitMax: RATE_LIMIT_MAX, full },
      seed: seeded,
      gateway: { healthzAfterSpawnMs: idle.startMs, limiterOff: servers.limiterOff },
      memory: memoryVerdicts(memory),
      startup: startupVerdicts(startup),
      rows,
      baselines,
      summary: {
        met: rows.filter((row) => row.met === true).map((row) => row.scenario),
        notMet: rows.filter((row) => row.met === false).map((row) => row.scenario),
        skipped,
      },
      totalSeconds,
    };
    for (const file of await writeResults(report, full)) log(`wrote ${path.relative(ROOT, file)}`);
    if (profiling) await printProfile();
    log(`done in ${totalSeconds} s`);
  } finally {
    await servers.stopAll();
  }
}

async function printProfile(): Promise<void> {
  const file = await newestProfile();
  if (!file) return log('no CPU profile was written');
  log(`CPU profile: ${path.relative(ROOT, file)}`);
  console.log(await summariseProfile(file));
}

// The issue's bound: a bench that runs over is stopped (its servers die with it, see processes.ts).
const overall = setTimeout(() => {
  console.error(`bench: still running after ${LIMITS.totalMs / 60_000} min: stopped`);
  process.exit(2);
}, LIMITS.totalMs);

main()
  .then(() => {
    clearTimeout(overall);
    process.exit(0);
  })
  .catch((error: unknown) => {
    console.error('bench failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  });
