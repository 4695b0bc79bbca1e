/** Real gateway processes for end-to-end tests: free ports, spawning, waiting, output capture. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { buildSync } from 'esbuild';

/**
 * Preloads written in TypeScript (the crash hooks) as plain JavaScript, compiled once per worker:
 * `--import tsx` cost each gateway process ~0.6 s of CPU and sent every module it then loaded
 * through tsx's loader. The output stays inside the project (node_modules/.cache) so that the
 * hooks' bare imports (`pg`) resolve as they do from test/support.
 */
const compiledPreloads = new Map<string, string>();
export function compiledPreload(file: string): string {
  let compiled = compiledPreloads.get(file);
  if (!compiled) {
    // Named by thread too: the test workers are threads of one process, each compiling its own.
    compiled = path.resolve('node_modules/.cache/test-preloads', `${process.pid}-${threadId}-${path.basename(file, '.ts')}.mjs`);
    buildSync({
      entryPoints: [file],
      outfile: compiled,
      bundle: true,
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    compiledPreloads.set(file, compiled);
  }
  return compiled;
}

/**
 * What every gateway process a test starts runs with, unless the test says otherwise: warnings and
 * errors only, and GraphQL loaded by the process's first /graphql request rather than before it
 * listens (about a third of a start's CPU; a run starts ~85). A test that times GraphQL answers,
 * or is about the default, sets GRAPHQL_PRELOAD to 'true'.
 */
export const TEST_PROCESS_SETTINGS = { LOG_LEVEL: 'warn', GRAPHQL_PRELOAD: 'false' } as const;

/**
 * Node flags of every gateway process a test starts (before its preloads and dist/main.js).
 * `--liftoff-only` keeps V8 from recompiling WebAssembly with its optimising compiler: Prisma's
 * query compiler (and PGlite, when embedded) is WebAssembly, and tiering it up cost a start about
 * 0.7 s of its 2.5 s of CPU (node dist/main.js to /healthz, three runs each way, on PostgreSQL and
 * on an embedded folder; docs/development.md). A test process lives seconds, not the hours that
 * pay the optimised code back; the WebAssembly's results are the same either way. Tests only:
 * `npm start` keeps V8's defaults.
 */
export const TEST_NODE_FLAGS = ['--enable-source-maps', '--liftoff-only'] as const;

/**
 * REDIS_KEY_PREFIX for the gateway processes of one test file (or fault cluster): keys and pub/sub
 * channels of their own on the machine's Redis, empty when they start. Files run in parallel; with
 * the default `gw:` two files' processes counted each other's requests against one rate limit
 * (127.0.0.1 to one endpoint: a 429 in a run with four workers) and a file that emptied "its"
 * logical database emptied another's.
 */
export const ownRedisKeyPrefix = (label: string): string => `test:${label}:${randomBytes(4).toString('hex')}:`;

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * `count` distinct ports free right now. Every listener stays open until all are known: a port
 * closed before the next listen(0) can come back from it (seen in a full run: a gateway told
 * to listen on one port twice, "PORT and CHECKOUT_PORT must differ").
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
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
  /** Where its checkout server listens. */
  checkoutUrl: string;
  output: () => string;
  /** Resolves with the exit code, or the signal that ended the process. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/**
 * Starts the gateway as `npm start` does (the compiled dist/main.js, built by the test run's global
 * setup), with `env` on top of a clean environment. `nodeArgs` may preload TypeScript test hooks
 * (compiled to JavaScript first). `{PORT}` and `{CHECKOUT_PORT}` in a value of `env` become the ports
 * the process listens on (e.g. `CHECKOUT_PUBLIC_URL: 'https://127.0.0.1:{CHECKOUT_PORT}'`, the
 * address a TLS-terminating proxy would give it).
 */
export async function startGatewayProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<GatewayProcess> {
  // A port found free can be taken by another test's process before the gateway binds it; when the
  // test did not choose the ports, that is not what it tests, so it starts again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startGatewayProcessOnce(env, nodeArgs);
    } catch (error) {
      const portsAreOurs = !('PORT' in env) && !('CHECKOUT_PORT' in env);
      if (!portsAreOurs || attempt === 3 || !String(error).includes('is already in use')) throw error;
    }
  }
}

/** The first line of the banner src/main.ts prints once both of its servers listen. */
const LISTENING_BANNER = 'Gateway API ';

async function startGatewayProcessOnce(env: Record<string, string>, nodeArgs: string[]): Promise<GatewayProcess> {
  const [port, checkoutPort] = (await freePorts(2)) as [number, number];
  const withPorts = Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value.replaceAll('{CHECKOUT_PORT}', String(checkoutPort)).replaceAll('{PORT}', String(port))]),
  );
  const childEnv: NodeJS.ProcessEnv = {
    // With the run's GATEWAY_TEST_PROCESS_OF_RUN (env.ts): the run's teardown ends it if a test does not.
    ...process.env,
    PORT: String(port),
    CHECKOUT_PORT: String(checkoutPort),
    ...TEST_PROCESS_SETTINGS,
    ...withPorts,
  };
  for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) if (!(name in env)) delete childEnv[name];
  const args = nodeArgs.map((arg) => (arg.endsWith('.ts') ? compiledPreload(arg) : arg));
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, ...args, 'dist/main.js'], {
    cwd: process.cwd(),
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const answering = Promise.race([
    waitFor(
      // Its banner first (printed once both its servers listen): a /healthz answer alone may come
      // from another test's gateway that took the port found free before this one bound it, and
      // a test then talked to the wrong gateway (a valid key answered 401, seen in a full run).
      async () => output.includes(LISTENING_BANNER) && (await fetch(`${url}/healthz`)).ok,
      60_000,
      () => output,
    ),
    exited.then(({ code, signal }) => {
      throw new Error(`gateway exited (${code ?? signal}) before answering:\n${output}`);
    }),
  ]);
  // A process that never answered is not left running (and holding its ports) for anyone.
  await answering.catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    child,
    url,
    checkoutUrl: `http://127.0.0.1:${checkoutPort}`,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
