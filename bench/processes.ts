/**
 * The servers under load run as processes of their own, as in production: the gateway exactly as
 * `npm start` runs it, the floors beside it. Each answers a health route before it is used, is
 * stopped with SIGTERM (so a CPU profile gets written) and killed if it does not stop in time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { LIMITS, ROOT } from './settings.js';

export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first healthy answer. */
  startMs: number;
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// Whatever happens to the bench, no server outlives it.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Spawns `node <nodeArgs>` with `env` (PORT set here) and waits for GET <healthPath> to answer 200. */
export async function startServer(name: string, nodeArgs: readonly string[], env: Record<string, string>, healthPath = '/healthz'): Promise<ServerProcess> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-LIMITS.outputBytes));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url + healthPath, exited, () => `${name}: ${output}`);
  return { name, url, pid: child.pid ?? 0, startMs: Math.round(performance.now() - started), output: () => output, stop: () => stopChild(child, exited) };
}

async function waitHealthy(url: string, exited: Promise<void>, describe: () => string): Promise<void> {
  const deadline = Date.now() + LIMITS.startMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${gone ? 'exited before answering' : `no answer within ${LIMITS.startMs} ms`} at ${url}\n${describe()}`);
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMITS.stopMs);
  await exited;
  clearTimeout(timer);
}

/** Resident memory of a process in MB, from /proc (Linux); null when it cannot be read. */
export function rssMB(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 per second on every usual kernel). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms, from /proc; null when it cannot be read. */
export function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "pid (comm) ": state is the first, utime the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; returns the largest sample. */
export function sampleRss(pid: number, everyMs: number): { stop(): number | null } {
  let max: number | null = rssMB(pid);
  const timer = setInterval(() => {
    const now = rssMB(pid);
    if (now !== null && (max === null || now > max)) max = now;
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return max;
    },
  };
}

/** Runs a node script to completion (the gateway's build), failing loudly with its output. */
export async function runNode(args: readonly string[], timeoutMs: number): Promise<void> {
  const child = spawn(process.execPath, [...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`node ${args.join(' ')} failed (${code}):\n${output.slice(-LIMITS.outputBytes)}`);
}
