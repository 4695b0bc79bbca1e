#!/usr/bin/env node
/**
 * How long `npm start` takes to answer GET /healthz, and how much memory the gateway keeps at
 * rest, as a newcomer meets it: the README's command, the embedded PGlite database (DATABASE_URL
 * and REDIS_URL unset), on a NEW data folder (cold: created and migrated) and on the same folder
 * again (warm). Issue 27's targets: <= 8 s cold, <= 3 s warm, idle RSS <= 300 MB.
 *
 *   node scripts/measure-start.mjs [--runs 3] [--idle-ms 5000] [--command "npm start"] [--json]
 *
 * Each run is one cold start then one warm start, each in a temp data folder of its own (removed
 * after), on free ports. Timing starts at the spawn of the command (npm's own start-up and the
 * prestart step included) and ends at the first 200 from /healthz. RSS is read from /proc after
 * --idle-ms of rest: the gateway's node process (the figure the target is about) and the whole
 * process tree (npm stays resident as its parent). Not a test: figures depend on the machine.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** A start that has not answered by then is counted as failed (the old cold start took up to 31 s). */
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;
const POLL_MS = 25;
const OUTPUT_KEPT = 16 * 1024;

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'idle-ms': { type: 'string', default: '5000' },
    command: { type: 'string', default: 'npm start' },
    json: { type: 'boolean', default: false },
  },
});
const runs = Math.max(1, Math.min(Number(flags.runs) || 3, 10));
const idleMs = Math.max(0, Math.min(Number(flags['idle-ms']) || 0, 60_000));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The environment of a newcomer's shell, less anything that would pick another database or Redis. */
function startEnv(dataDir, port, checkoutPort) {
  const env = { ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: String(port), CHECKOUT_PORT: String(checkoutPort), HOST: '127.0.0.1' };
  for (const name of ['DATABASE_URL', 'DATABASE_REPLICA_URL', 'REDIS_URL', 'GATEWAY_ADMIN_TOKEN', 'WEBHOOK_SECRET_KEY', 'NODE_OPTIONS']) delete env[name];
  return env;
}

/** Parent pid of every process, from /proc (Linux). */
function parentPids() {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 is the ppid; the command name (field 2) may hold spaces, so split after its ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return parents;
}

function descendants(root) {
  const parents = parentPids();
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU fields (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (ms) the tree has used so far, its finished children included (cutime, cstime: npm has
 * waited for its prestart build). Unlike wall time, barely moved by other work on a shared machine.
 */
function cpuMs(root) {
  let ticks = 0;
  for (const pid of descendants(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields 14-17 (utime, stime, cutime, cstime), counted after the command name's ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0);
    } catch {
      // gone meanwhile
    }
  }
  return Math.round((ticks * 1000) / TICKS_PER_SECOND);
}

function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const argv = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
};
/** node itself running dist/main.js, not the `sh -c "node ... dist/main.js"` npm puts in between. */
const isGateway = (pid) => {
  const [program = '', ...args] = argv(pid);
  return path.basename(program) === 'node' && args.includes('dist/main.js');
};

/** The gateway's node process (runs dist/main.js) and the whole tree, in MB. */
function memory(root) {
  const tree = descendants(root);
  const gateway = tree.find(isGateway);
  const mb = (kb) => Math.round(kb / 1024);
  return { gatewayMB: gateway ? mb(rssKb(gateway)) : null, treeMB: mb(tree.reduce((sum, pid) => sum + rssKb(pid), 0)) };
}

async function waitHealthy(url, child) {
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (performance.now() < deadline && child.exitCode === null && child.signalCode === null) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return false;
}

/**
 * SIGTERM to the whole group (npm, its shell, node), SIGKILL if it lingers; says which one ended
 * it (a gateway that needs SIGKILL did not shut down, which is worth knowing too).
 */
async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return 'exited';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  let killed = false;
  signal('SIGTERM');
  const timer = setTimeout(() => {
    killed = true;
    signal('SIGKILL');
  }, STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
  return killed ? 'SIGKILL' : 'SIGTERM';
}

async function startOnce(dataDir, kind) {
  const [port, checkoutPort] = [await freePort(), await freePort()];
  const [command, ...args] = flags.command.split(' ');
  const started = performance.now();
  // Its own process group, so that stopping it reaches node behind npm and sh.
  const child = spawn(command, args, { cwd: ROOT, env: startEnv(dataDir, port, checkoutPort), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  // Kept only to explain a failed start; never printed otherwise (a new folder's output holds the operator token).
  const keep = (chunk) => (output = (output + chunk).slice(-OUTPUT_KEPT));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let result;
  try {
    const healthy = await waitHealthy(`http://127.0.0.1:${port}/healthz`, child);
    const healthzMs = Math.round(performance.now() - started);
    const startCpuMs = cpuMs(child.pid);
    if (!healthy) throw new Error(`${kind} start did not answer /healthz within ${START_TIMEOUT_MS} ms:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    result = { kind, healthzMs, cpuMs: startCpuMs, ...memory(child.pid) };
  } finally {
    const stoppedBy = await stop(child);
    if (result) result.stoppedBy = stoppedBy;
  }
  return result;
}

const summary = (values) => {
  const sorted = values.filter((value) => value !== null).sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? null, min: sorted[0] ?? null, max: sorted.at(-1) ?? null };
};

const results = [];
for (let run = 1; run <= runs; run++) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-measure-start-'));
  try {
    for (const kind of ['cold', 'warm']) {
      const result = await startOnce(dataDir, kind);
      results.push(result);
      if (!flags.json)
        console.log(
          `run ${run} ${kind}: /healthz after ${result.healthzMs} ms (CPU ${result.cpuMs} ms); idle RSS gateway ${result.gatewayMB} MB, with npm ${result.treeMB} MB${result.stoppedBy === 'SIGKILL' ? `; did NOT stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM (killed)` : ''}`,
        );
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const report = Object.fromEntries(
  ['cold', 'warm'].map((kind) => {
    const of = results.filter((result) => result.kind === kind);
    return [
      kind,
      {
        healthzMs: summary(of.map((r) => r.healthzMs)),
        cpuMs: summary(of.map((r) => r.cpuMs)),
        gatewayMB: summary(of.map((r) => r.gatewayMB)),
        treeMB: summary(of.map((r) => r.treeMB)),
      },
    ];
  }),
);
// How busy the machine was: wall times on 2 shared cores stretch with it, CPU times much less.
const full = {
  date: new Date().toISOString(),
  node: process.version,
  command: flags.command,
  runs,
  idleMs,
  loadAverage: loadavg().map((load) => Math.round(load * 10) / 10),
  ...report,
  results,
};
if (flags.json) console.log(JSON.stringify(full, null, 2));
else console.log(`load average after the runs: ${full.loadAverage.join(' ')}`);
if (!flags.json)
  for (const kind of ['cold', 'warm'])
    console.log(
      `${kind}: /healthz median ${report[kind].healthzMs.median} ms (${report[kind].healthzMs.min}-${report[kind].healthzMs.max}), CPU median ${report[kind].cpuMs.median} ms; idle RSS median ${report[kind].gatewayMB.median} MB (${report[kind].gatewayMB.min}-${report[kind].gatewayMB.max})`,
    );
