/**
 * The fault suite's harness: two (or more) real gateway processes (dist/main.js, spawned by
 * processes.ts) sharing ONE PostgreSQL database (the file's clone of the template, through
 * useGateway, whose in-process context sets up merchants and reads the database directly) and ONE
 * Redis, which may be a redis-server of the test's own, on a free port, that the test kills,
 * freezes (SIGSTOP) and flushes.
 *
 * Each process's PostgreSQL connections carry `application_name` = `gw_fault_<name>`, so a test
 * can terminate exactly the gateways' sessions (pg_terminate_backend) and not its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll } from 'vitest';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../env.js';
import { TEST_WEBHOOK_SERVER_KEY, useGateway, type GatewayOptions, type TestGateway } from '../gateway.js';
import { freePort, ownRedisKeyPrefix, startGatewayProcess, waitFor, type GatewayProcess } from '../processes.js';

export const FAULT_ADMIN_TOKEN = 'gw_op_fault_suite_token_0123456789abcdef';

/**
 * What every instance runs with: fast reconcilers (RECONCILE_*), fast webhook rules, private
 * webhook addresses allowed (the receiver is on 127.0.0.1), one operator token and one webhook key
 * for the whole deployment, and a rate limit no test reaches.
 */
export const FAULT_ENV: Record<string, string> = {
  GATEWAY_ADMIN_TOKEN: FAULT_ADMIN_TOKEN,
  WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_RETRY_DELAY_MS: '300',
  WEBHOOK_MAX_RETRIES: '5',
  RECONCILE_INTERVAL_MS: '300',
  RECONCILE_AFTER_MS: '1500',
  RATE_LIMIT_MAX: '1000000',
  RATE_LIMIT_WINDOW_MS: '60000',
};

export interface Instance extends GatewayProcess {
  name: string;
  pid: number;
}

interface StartOptions {
  /** Variables on top of the cluster's (FAULT_ENV + the file's). */
  env?: Record<string, string>;
  /** node arguments, e.g. ['--import', CRASH_INSIDE_PROVIDER_CALL]. */
  nodeArgs?: string[];
}

export interface Cluster {
  /** The in-process gateway on the same database: setup (merchants, keys) and direct reads. */
  gateway: TestGateway;
  /** The Redis every instance uses. */
  redisUrl: string;
  /** Our own redis-server, when the file asked for one. */
  redis: RedisServer | null;
  /** Starts one more instance of the deployment. */
  start(name: string, options?: StartOptions): Promise<Instance>;
  /** Instances started and not stopped. */
  running(): Instance[];
  /** SIGKILL (kill -9); resolves once it is gone. */
  kill(instance: Instance): Promise<void>;
}

export interface ClusterOptions {
  /** Variables every instance of this file gets (on top of FAULT_ENV). */
  env?: Record<string, string>;
  /** Run a redis-server of our own (for the tests that kill, freeze or flush it). */
  ownRedis?: boolean;
  gateway?: GatewayOptions;
}

/** The processes' connections to the file's database are named so (see terminateGatewaySessions). */
const APPLICATION_PREFIX = 'gw_fault_';

const withApplicationName = (url: string, name: string): string => {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', `${APPLICATION_PREFIX}${name}`);
  return parsed.toString();
};

/** Call at the top of a test file: the database and Redis are ready once its tests run. */
export function useCluster(options: ClusterOptions = {}): Cluster {
  const gateway = useGateway({ webhooks: { allowPrivateUrls: true }, ...options.gateway });
  const instances: Instance[] = [];
  let redis: RedisServer | null = null;
  // Keys of its own on the machine's Redis (see ownRedisKeyPrefix), or a server of its own.
  const redisKeyPrefix = ownRedisKeyPrefix('fault');
  let redisUrl = TEST_REDIS_URL;
  let prepared: Promise<void> | null = null;
  const prepare = () =>
    (prepared ??= (async () => {
      if (!options.ownRedis) return;
      redis = await startRedisServer();
      redisUrl = redis.url;
    })());

  afterAll(async () => {
    await Promise.allSettled(instances.map((instance) => instance.stop()));
    await (redis as RedisServer | null)?.stop();
  });

  const cluster: Cluster = {
    gateway,
    get redisUrl() {
      return redisUrl;
    },
    get redis() {
      return redis;
    },
    async start(name, startOptions = {}) {
      await prepare();
      const started = await startGatewayProcess(
        {
          ...FAULT_ENV,
          DATABASE_URL: withApplicationName(gateway.databaseUrl, name),
          REDIS_URL: redisUrl,
          REDIS_KEY_PREFIX: redisKeyPrefix,
          ...options.env,
          ...startOptions.env,
        },
        startOptions.nodeArgs ?? [],
      );
      const instance: Instance = { ...started, name, pid: started.child.pid! };
      instances.push(instance);
      return instance;
    },
    running: () => instances.filter((instance) => instance.child.exitCode === null && instance.child.signalCode === null),
    async kill(instance) {
      await instance.stop();
    },
  };
  return cluster;
}

/* ------------------------------------------------------------------------------------------ */
/* Talking to an instance                                                                      */
/* ------------------------------------------------------------------------------------------ */

export interface Answer<T = any> {
  /** 0: no answer (the connection failed, or `timeoutMs` passed). */
  status: number;
  body: T;
  headers: Headers | null;
  ms: number;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The client gives up after this (default 20 s): status 0. */
  timeoutMs?: number;
}

/** One HTTP call to an instance, never throwing: a lost connection is status 0. */
export async function call<T = any>(instance: { url: string }, method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  try {
    const response = await fetch(`${instance.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: body as T, headers: response.headers, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, body: String(error) as T, headers: null, ms: performance.now() - started };
  }
}

/** A GraphQL call as the deployment's operator. */
export const operatorGraphql = (instance: { url: string }, query: string, variables: Record<string, unknown> = {}, timeoutMs?: number) =>
  call(instance, 'POST', '/graphql', { headers: { authorization: `Bearer ${FAULT_ADMIN_TOKEN}` }, body: { query, variables }, timeoutMs });

export const SANDBOX_PAY = `mutation($orderId: ID!, $phone: String) {
  sandboxPay(orderId: $orderId, method: wave, phone: $phone) { outcome reason transaction { orderId status } }
}`;

/* ------------------------------------------------------------------------------------------ */
/* Faults                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * Terminates the gateway processes' PostgreSQL sessions on `database` (from a separate client):
 * what a database failover or an operator's pg_terminate_backend does. Returns how many.
 */
export async function terminateGatewaySessions(database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL, application_name: 'fault_suite_admin' });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ terminated: boolean }>(
      `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
       WHERE datname = $1 AND starts_with(application_name, $2) AND pid <> pg_backend_pid()`,
      [database, APPLICATION_PREFIX],
    );
    return rows.filter((row) => row.terminated).length;
  } finally {
    await admin.end();
  }
}

/**
 * Which of `pids` holds an established TCP connection to 127.0.0.1:`port` (e.g. the webhook
 * receiver's): read from /proc, so the test kills the instance that is sending, whichever it is.
 */
export function pidConnectedTo(port: number, pids: number[]): number | null {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const remotePort = parseInt(fields[2]!.split(':')[1] ?? '', 16);
      if (remotePort === port && fields[3] === '01') inodes.add(fields[9]!);
    }
  }
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/* ------------------------------------------------------------------------------------------ */
/* A redis-server of our own                                                                   */
/* ------------------------------------------------------------------------------------------ */

export interface RedisServer {
  url: string;
  port: number;
  /** kill -9: every connection drops, nothing is kept (no persistence). */
  kill(): Promise<void>;
  /** Starts it again on the same port (after kill). */
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing answers. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  flushAll(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let output = '';
  const url = `redis://127.0.0.1:${port}`;
  const ping = async () => {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
    client.on('error', () => undefined); // not up yet: waitFor asks again
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } finally {
      client.disconnect();
    }
  };
  const launch = async () => {
    output = '';
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const current = child;
    current.stdout?.on('data', (chunk) => (output += chunk));
    current.stderr?.on('data', (chunk) => (output += chunk));
    exited = new Promise((resolve) => current.on('exit', () => resolve()));
    // Its own "ready" line first: a PONG alone may come from another test's redis-server that took
    // the port found free before this one bound it.
    await waitFor(
      async () => output.includes('Ready to accept connections') && (await ping()),
      10_000,
      () => output,
    );
  };
  const signal = (name: NodeJS.Signals) => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(name);
  };
  await launch();
  return {
    url,
    port,
    async kill() {
      signal('SIGCONT');
      signal('SIGKILL');
      await exited;
    },
    restart: launch,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async flushAll() {
      const client = new Redis(url, { maxRetriesPerRequest: 1 });
      client.on('error', () => undefined);
      try {
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    async stop() {
      signal('SIGCONT');
      signal('SIGKILL');
      await exited;
    },
  };
}

/* ------------------------------------------------------------------------------------------ */
/* Small things                                                                                */
/* ------------------------------------------------------------------------------------------ */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts of answers by status, for messages and logs. */
export function statusCounts(answers: { status: number }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

/** The database name of a PostgreSQL URL. */
export const databaseNameOf = (url: string): string => new URL(url).pathname.slice(1);
