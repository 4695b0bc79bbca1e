/**
 * The operator CLI's wall time, as an operator meets it: `bin/gateway.js` spawned as a fresh node
 * process (the compiled CLI the build made), once against the running gateway and once against a
 * port nothing listens on (it must fail fast, not retry: it took 2.3 s before the speed issue).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from './processes.js';
import { ROOT } from './settings.js';

/** Runs per case: the median is judged (a spawn on a shared 2-core VM has outliers), the slowest shown. */
const RUNS = 5;
/** A CLI run that takes longer than this is stopped (and counted at this). */
const RUN_TIMEOUT_MS = 10_000;

export interface CliFigures {
  /** `org list --limit 1` against the gateway: median and slowest wall ms, and whether each printed its answer. */
  answered: { medianMs: number; maxMs: number; ok: boolean };
  /** The same command against a closed port: it must exit 1 with its one-line error, fast. */
  refused: { medianMs: number; maxMs: number; ok: boolean };
}

async function runOnce(env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number | null; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'gateway.js'), 'org', 'list', '--limit', '1'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { ms: Math.round(performance.now() - started), code, stdout };
}

async function timed(env: NodeJS.ProcessEnv, ok: (run: { code: number | null; stdout: string }) => boolean) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await runOnce(env));
  const ms = runs.map((run) => run.ms).sort((a, b) => a - b);
  return { medianMs: ms[Math.floor(ms.length / 2)]!, maxMs: ms.at(-1)!, ok: runs.every(ok) };
}

export async function measureCli(gatewayUrl: string, adminToken: string): Promise<CliFigures> {
  const base = { PATH: process.env.PATH, GATEWAY_ADMIN_TOKEN: adminToken };
  const answered = await timed({ ...base, GATEWAY_URL: gatewayUrl }, (run) => run.code === 0 && run.stdout.includes('"organizations"'));
  const refused = await timed({ ...base, GATEWAY_URL: `http://127.0.0.1:${await freePort()}` }, (run) => run.code === 1 && run.stdout.includes('"error"'));
  return { answered, refused };
}
