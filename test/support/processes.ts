/** Real gateway processes for end-to-end tests: free ports, spawning, waiting, output capture. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, describe: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms${describe() ? `; output so far:\n${describe()}` : ''}`);
}

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves with the exit code, or the signal that ended the process. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/**
 * Starts the gateway as `npm start` does (the compiled dist/main.js, built by the test run's global
 * setup), with `env` on top of a clean environment. `nodeArgs` may preload TypeScript test hooks.
 */
export async function startGatewayProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<GatewayProcess> {
  const [port, checkoutPort] = [await freePort(), await freePort()];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), CHECKOUT_PORT: String(checkoutPort), LOG_LEVEL: 'warn', ...env };
  for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) if (!(name in env)) delete childEnv[name];
  const loader = nodeArgs.some((arg) => arg.endsWith('.ts')) ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, ['--enable-source-maps', ...loader, ...nodeArgs, 'dist/main.js'], { cwd: process.cwd(), env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  await Promise.race([
    waitFor(async () => (await fetch(`${url}/healthz`)).ok, 60_000, () => output),
    exited.then(({ code, signal }) => {
      throw new Error(`gateway exited (${code ?? signal}) before answering:\n${output}`);
    }),
  ]);
  return {
    child,
    url,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
