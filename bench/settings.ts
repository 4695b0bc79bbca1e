/**
 * Every knob and every limit of `npm run bench`, in one place. Durations and counts are bounded
 * here so a run always ends: the whole bench must finish in under 20 minutes on 2 cores (10 until
 * issue 19 added its five scenarios: analytics, exports of 1,000,000 rows, 1,000 live subscribers,
 * the Relay connection and the operator-token lookup).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';

/** The repository: servers run from here (dist/, openapi/ are found relative to it), results go under it. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

const env = process.env;
const seconds = (name: string, fallback: number, max: number): number => Math.min(Number(env[name]) || fallback, max);

/** PostgreSQL as the superuser the machine trusts; the bench makes its own database there. */
export const POSTGRES_ADMIN_URL = env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
/** Its own database name, so two checkouts benching at once (helpers, worktrees) do not share one. */
export const BENCH_DATABASE = env.BENCH_DATABASE ?? 'gateway_bench';
export const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * How the gateway is started: exactly what `npm start` runs (its `prestart` builds src/ into dist/,
 * then node runs dist/main.js). Change this one constant if `npm start` changes.
 *
 * The memory flags, each measured on this bench's machine (2 cores, 24 GB; idle RSS after start,
 * max RSS under the list/GraphQL/create load, CPU per request of the list scenario):
 * - `--max-old-space-size=512`: V8 scales how far it lets the old generation grow before a full GC
 *   with the heap limit, which is 4 GB on a 24 GB machine: garbage of in-flight requests piled up
 *   to 300-580 MB. Under a 512 MB limit it collects sooner: ~200-225 MB under the same load, CPU
 *   per request unchanged within the noise. The live heap under the bench is ~50-100 MB, far below
 *   the limit (reaching it would end the process).
 * - `--v8-pool-size=1`: one V8 background thread instead of four. With four, a worker thread kept a
 *   ~38 MB malloc arena of start-up's freed work at idle; 2 cores shared with PostgreSQL and Redis
 *   gain nothing from four. With the flag above: idle 160-193 MB instead of 202-218.
 * Not used: `--max-semi-space-size=4` (or 8) takes another 10-20 MB off idle, but a list request
 * then costs 20-25 % more CPU (more of each in-flight request is promoted to the old generation).
 */
export const GATEWAY_COMMAND = {
  build: ['scripts/build.mjs', '--quiet'],
  nodeArgs: ['--enable-source-maps', '--max-old-space-size=512', '--v8-pool-size=1', 'dist/main.js'],
} as const;
/** The floors are bench code, run through tsx (it only costs at import time). */
export const FLOOR_COMMAND = { nodeArgs: ['--import', 'tsx', 'bench/floors/server.ts'] } as const;
/** The webhook dispatch scenario's receiver (bench code too). */
export const RECEIVER_COMMAND = { nodeArgs: ['--import', 'tsx', 'bench/floors/receiver.ts'] } as const;

export const SEED = {
  transactions: 1_000_000,
  /** Rows per INSERT ... SELECT: big enough to be fast, small enough to report progress. */
  chunk: 50_000,
  /** Parallel sessions: one per core; PostgreSQL is the only busy process while seeding. */
  workers: Math.max(1, Math.min(os.availableParallelism(), 4)),
  /** Created_at spreads over this many days, ending when the seed ran. */
  spanDays: 365,
  /** Bump when the seed SQL changes: a database seeded by another version is reseeded. */
  version: 'v1',
  /** A chunk that takes longer than this is a broken machine, not a slow one. */
  statementTimeoutMs: 300_000,
} as const;

export const LOAD = {
  connections: 50,
  warmupSeconds: seconds('BENCH_WARMUP_S', 2, 10),
  /** A server's first measurement warms it longer: a fresh process is still compiling its hot paths. */
  firstWarmupSeconds: seconds('BENCH_FIRST_WARMUP_S', 5, 15),
  durationSeconds: seconds('BENCH_DURATION_S', 6, 30),
  /**
   * Baseline and gateway alternate this many times per scenario (B G B G) and their figures are
   * averaged: the machine is shared, and noise that comes and goes lands on both sides.
   */
  rounds: Math.max(1, Math.min(Number(env.BENCH_ROUNDS) || 2, 5)),
  /** autocannon gives up on a request after this (counted as a timeout, which flags the row). */
  requestTimeoutSeconds: 10,
  /** Quiet time between two runs, so one run's tail (autovacuum, GC) does not land in the next. */
  settleMs: 1_000,
  rssSampleMs: 200,
  /** Bound on a sequential run's requests (their latencies are kept to sort). */
  sequentialMaxRequests: 200_000,
} as const;

export const LIMITS = {
  /** The bound on the whole bench (the first one, issue 6's, was 10 minutes for its scenarios). */
  totalMs: 20 * 60_000,
  /** Kept for stopping the servers and writing the report: a scenario that would eat into it is skipped. */
  reserveMs: 30_000,
  /** A server must answer its health route within this after spawning. */
  startMs: 60_000,
  /** A server gets this long to exit on SIGTERM before it is killed (a CPU profile is written on exit). */
  stopMs: 10_000,
  /** Known transaction ids the get scenario picks from. */
  sampleIds: 20_000,
  /** Dated result files kept in bench/results (the oldest go first). */
  keptResults: 30,
  /** Output kept per child process, for error messages. */
  outputBytes: 64 * 1024,
} as const;

/** A high limit counted through Redis: the limiter runs on every request but never refuses. */
export const RATE_LIMIT_MAX = 1_000_000_000;
