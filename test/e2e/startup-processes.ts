/**
 * Gateway processes that are expected to stop on their own (a refused or failed start), with
 * stdout and stderr kept apart: the contract is about what reaches stderr. Every process is
 * bounded in time and tracked, so a test file can kill whatever is left in afterAll.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { TEST_NODE_FLAGS, TEST_PROCESS_SETTINGS } from '../support/processes.js';

export interface FinishedProcess {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

const running = new Set<ChildProcess>();

/** Runs the gateway as `npm start` does (dist/main.js) until it exits, or kills it after `timeoutMs`. */
export async function runGatewayUntilExit(env: Record<string, string>, timeoutMs = 30_000): Promise<FinishedProcess> {
  // Port 0: the system picks a port nobody holds. A port found free and passed on could be taken by
  // another test's process before this one binds it, and the start would fail for the wrong reason.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', CHECKOUT_PORT: '0', ...TEST_PROCESS_SETTINGS, ...env };
  for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) if (!(name in env)) delete childEnv[name];
  const started = Date.now();
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, 'dist/main.js'], { cwd: process.cwd(), env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal })),
  );
  clearTimeout(timer);
  running.delete(child);
  return { code, signal, stdout, stderr, elapsedMs: Date.now() - started };
}

/** Lines of stderr that carry text. */
export const stderrLines = (finished: FinishedProcess): string[] => finished.stderr.split('\n').filter((line) => line.trim());

/** A line of a printed stack trace ("    at fn (file:1:2)"). */
export const looksLikeStackFrame = (line: string): boolean => /^\s+at\s/.test(line);

export async function killLeftovers(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
