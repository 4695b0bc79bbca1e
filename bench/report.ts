/**
 * Judging and printing: each scenario against its baseline and target, memory against its bounds,
 * as a table on stdout and as JSON in bench/results/.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isValid } from './load.js';
import { LIMITS, ROOT } from './settings.js';
import type { CliFigures } from './cli.js';
import type { DrainFigures, Figures, Row, Scenario, Target, ThroughputTarget } from './shapes.js';

/** Issue 6's memory bounds for the gateway process. */
const RSS_TARGETS = { idleMB: 200, underLoadMB: 300 } as const;
/** The issue's start-up targets: /healthz after spawning (up-to-date database), an operator CLI command's wall time. */
const STARTUP_TARGETS = { healthzMs: 3_000, cliMs: 500 } as const;

const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

function describeTarget(target: Target): string {
  if (target.kind === 'ratio') return `>=${target.minReqRatio * 100}% req/s${target.maxP99Ratio ? `, p99 <=${target.maxP99Ratio}x` : ''}`;
  if (target.kind === 'addedP99') return `p99 +<=${target.maxMs} ms`;
  if (target.kind === 'throughput') return `>=${target.minPerSecond.toLocaleString('en')}/s, all in <=${target.maxSeconds} s`;
  return '-';
}

function judge(target: Target, row: Pick<Row, 'ratioReqPerSec' | 'ratioP99' | 'addedP99Ms'>): boolean | null {
  if (target.kind === 'ratio') return row.ratioReqPerSec >= target.minReqRatio && (target.maxP99Ratio === undefined || row.ratioP99 <= target.maxP99Ratio);
  if (target.kind === 'addedP99') return row.addedP99Ms <= target.maxMs;
  // 'throughput' is judged on the drain (backlogRow).
  return null;
}

function invalidity(gateway: Figures, floor: Figures): string | undefined {
  const problems = [
    ['gateway', gateway],
    ['baseline', floor],
  ]
    .filter(([, figures]) => !isValid(figures as Figures))
    .map(([who, f]) => {
      const figures = f as Figures;
      return `${who}: ${figures.failedAnswers} failed answers ${JSON.stringify(figures.statusCodes)}, ${figures.errors} errors, ${figures.timeouts} timeouts`;
    });
  return problems.length ? problems.join('; ') : undefined;
}

export function scenarioRow(scenario: Scenario, gateway: Figures, floor: Figures): Row {
  const figures = {
    ratioReqPerSec: round(gateway.reqPerSec / Math.max(floor.reqPerSec, 1)),
    ratioP99: round(gateway.p99 / Math.max(floor.p99, 0.01)),
    addedP99Ms: round(gateway.p99 - floor.p99),
  };
  const invalid = invalidity(gateway, floor);
  const met = invalid ? false : judge(scenario.target, figures);
  return {
    scenario: scenario.name,
    baseline: scenario.baseline.name,
    gateway,
    floor,
    ...figures,
    target: describeTarget(scenario.target),
    met,
    ...(invalid && { invalid }),
  };
}

/**
 * A backlog scenario's row: `gateway` holds the drain's rate (items/s), the gateway's own attempt
 * durations (p50, p99) and its answers; `floor` the receiver's floor. Judged on the absolute
 * target (issue 9 gives figures, not a ratio); the ratio to the floor is reported beside it.
 * A failed check (an item missing, sent twice, badly signed, not marked done) makes it invalid.
 */
export function backlogRow(scenario: { name: string; target: ThroughputTarget }, baseline: string, gateway: Figures, floor: Figures, drain: DrainFigures): Row {
  const figures = {
    ratioReqPerSec: round(gateway.reqPerSec / Math.max(floor.reqPerSec, 1)),
    ratioP99: round(gateway.p99 / Math.max(floor.p99, 0.01)),
    addedP99Ms: round(gateway.p99 - floor.p99),
  };
  const problems = [drain.problems.join('; '), invalidity(gateway, floor)].filter(Boolean).join('; ');
  const met = !problems && drain.seconds !== null && drain.seconds <= scenario.target.maxSeconds && drain.perSecond >= scenario.target.minPerSecond;
  return {
    scenario: scenario.name,
    baseline,
    gateway,
    floor,
    ...figures,
    target: describeTarget(scenario.target),
    met,
    ...(problems && { invalid: problems }),
    drain,
  };
}

/** The line under the table that says what a drain did (its time is not a column). */
function drainNote(row: Row): string | null {
  const drain = row.drain;
  if (!drain) return null;
  const time = drain.seconds === null ? 'NOT drained' : `drained in ${drain.seconds} s`;
  const checked = drain.problems.length ? `checks FAILED: ${drain.problems.join('; ')}` : 'each arrived once, signature valid, marked delivered';
  const cpu = `ms CPU/delivery: gateway ${drain.cpu.gatewayMsPerDelivery ?? '-'}, PostgreSQL ${drain.cpu.postgresMsPerDelivery ?? '-'}, receiver ${drain.cpu.receiverMsPerDelivery ?? '-'}; machine ${drain.cpu.machineBusy === null ? '-' : `${Math.round(drain.cpu.machineBusy * 100)} %`} busy`;
  return `${row.scenario}: ${drain.items.toLocaleString('en')} ${time} (${drain.perSecond}/s; ${drain.endpoints} endpoints, ${drain.bodyBytes}-byte bodies, ${drain.concurrency.overall} in flight, ${drain.receiverConnections} connections); ${checked}; ${cpu}`;
}

export interface Memory {
  idleMB: number | null;
  maxUnderLoadMB: number | null;
}

/** The gateway's and the CLI's start-up figures. */
export interface Startup {
  healthzAfterSpawnMs: number;
  cli: CliFigures;
}

export function startupVerdicts(startup: Startup) {
  const cliMet = (figures: CliFigures['answered']) => figures.ok && figures.medianMs <= STARTUP_TARGETS.cliMs;
  return {
    healthz: { ms: startup.healthzAfterSpawnMs, target: `<=${STARTUP_TARGETS.healthzMs} ms`, met: startup.healthzAfterSpawnMs <= STARTUP_TARGETS.healthzMs },
    cliAnswered: { ...startup.cli.answered, target: `median <=${STARTUP_TARGETS.cliMs} ms`, met: cliMet(startup.cli.answered) },
    cliRefused: { ...startup.cli.refused, target: `median <=${STARTUP_TARGETS.cliMs} ms`, met: cliMet(startup.cli.refused) },
  };
}

export function memoryVerdicts(memory: Memory) {
  return {
    idle: { mb: memory.idleMB, target: `<=${RSS_TARGETS.idleMB} MB`, met: memory.idleMB !== null && memory.idleMB <= RSS_TARGETS.idleMB },
    underLoad: {
      mb: memory.maxUnderLoadMB,
      target: `<=${RSS_TARGETS.underLoadMB} MB`,
      met: memory.maxUnderLoadMB !== null && memory.maxUnderLoadMB <= RSS_TARGETS.underLoadMB,
    },
  };
}

const HEADERS = ['scenario', 'req/s', 'p50', 'p99', 'RSS max', 'floor req/s', 'floor p99', 'ratio req/s', 'ratio p99', 'target', 'met?'];

const verdict = (met: boolean | null, invalid?: string): string => (invalid ? 'INVALID' : met === null ? '-' : met ? 'yes' : 'NO');

function tableLines(rows: Row[], memory: Memory, startup: Startup): string[][] {
  const cells = rows.map((row) => [
    row.scenario,
    String(row.gateway.reqPerSec),
    `${row.gateway.p50} ms`,
    `${row.gateway.p99} ms`,
    row.gateway.rssMaxMB === null ? '-' : `${row.gateway.rssMaxMB} MB`,
    String(row.floor.reqPerSec),
    `${row.floor.p99} ms`,
    row.ratioReqPerSec.toFixed(2),
    row.target.startsWith('p99 +') ? `${row.addedP99Ms >= 0 ? '+' : ''}${row.addedP99Ms} ms` : row.ratioP99.toFixed(2),
    row.target,
    verdict(row.met, row.invalid),
  ]);
  const verdicts = memoryVerdicts(memory);
  cells.push(['gateway RSS idle', '', '', '', `${verdicts.idle.mb ?? '-'} MB`, '', '', '', '', verdicts.idle.target, verdict(verdicts.idle.met)]);
  cells.push([
    'gateway RSS under load (max)',
    '',
    '',
    '',
    `${verdicts.underLoad.mb ?? '-'} MB`,
    '',
    '',
    '',
    '',
    verdicts.underLoad.target,
    verdict(verdicts.underLoad.met),
  ]);
  const started = startupVerdicts(startup);
  cells.push(['gateway /healthz after spawning', '', '', `${started.healthz.ms} ms`, '', '', '', '', '', started.healthz.target, verdict(started.healthz.met)]);
  for (const [name, cli] of [
    ['CLI org list (median, max)', started.cliAnswered],
    ['CLI on a closed port (median, max)', started.cliRefused],
  ] as const) {
    cells.push([name, '', `${cli.medianMs} ms`, `${cli.maxMs} ms`, '', '', '', '', '', cli.target, verdict(cli.met)]);
  }
  return cells;
}

/** A plain-text table, columns padded to their widest cell. */
export function formatTable(rows: Row[], memory: Memory, startup: Startup): string {
  const all = [HEADERS, ...tableLines(rows, memory, startup)];
  const widths = HEADERS.map((_, column) => Math.max(...all.map((line) => (line[column] ?? '').length)));
  const format = (line: string[]) =>
    line.map((cell, column) => (column === 0 || column >= 9 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ');
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  const notes = [
    ...rows.map(drainNote).filter((note): note is string => note !== null),
    ...rows.filter((row) => row.invalid).map((row) => `INVALID ${row.scenario}: ${row.invalid}`),
  ];
  return [format(HEADERS), rule, ...all.slice(1).map(format), ...notes].join('\n');
}

export function machine() {
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism(),
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryMB: Math.round(os.totalmem() / 2 ** 20),
    platform: `${os.platform()} ${os.release()}`,
    hostname: os.hostname(),
  };
}

/**
 * Writes the run under its date (and as latest.json for a full run: the one kept in git), keeping
 * the LIMITS.keptResults newest dated files. Returns the paths written.
 */
export async function writeResults(report: Record<string, unknown>, full: boolean): Promise<string[]> {
  const dir = path.join(ROOT, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const dated = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const paths = full ? [dated, path.join(dir, 'latest.json')] : [dated];
  for (const file of paths) await writeFile(file, text);
  const older = (await readdir(dir))
    .filter((name) => /^\d{4}-.*\.json$/.test(name))
    .sort()
    .slice(0, -LIMITS.keptResults);
  for (const name of older) await rm(path.join(dir, name));
  return paths;
}
