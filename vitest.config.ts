import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.js';

const require = createRequire(import.meta.url);

/**
 * What the fast inner loop (`npm run test:fast`) leaves out: files that start processes of their
 * own (gateway processes, browsers, PostgreSQL servers, the CLI's recipes) and the fault suite.
 * Everything else runs in the test workers against the run's PostgreSQL and the machine's Redis.
 */
const NEEDS_PROCESSES = [
  'test/e2e/**',
  'test/faults/**',
  'test/conformance/webhook-receivers.test.ts',
  'test/integration/exports/logs-hold-no-phone.test.ts',
  'test/integration/platform/read-replica.test.ts',
  'test/integration/privacy/logs-redaction.test.ts',
  'test/integration/refunds/crash-between-phases.test.ts',
];
const fastLoop = process.env.TEST_FAST === '1';

export default defineConfig({
  resolve: {
    // graphql 16 ships both index.js and index.mjs without an exports map: Vite would give our
    // sources the .mjs copy while Yoga and Pothos, loaded by Node, get the .js one, i.e. two
    // GraphQLError classes. Tests must load exactly what production loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: fastLoop ? [...configDefaults.exclude, ...NEEDS_PROCESSES] : configDefaults.exclude,
    globalSetup: ['test/support/globalSetup.ts'],
    // Each test file gets its own database cloned from a migrated template, so files run in
    // parallel safely. Four workers on two cores: a worker spends much of its time waiting on
    // other processes (gateways killed and restarted, claims running out, PostgreSQL, Chromium),
    // and the others fill it (idle ~14 CPU-s a run with four, ~44 with three). The load that puts
    // on the machine can hold an event loop past the Redis call deadline's 150 ms: the tests that
    // need a healthy Redis to answer in time give it a longer one (REDIS_CALL_TIMEOUT_MS).
    //
    // Threads rather than forked processes: the fast loop took 150-153 busy CPU-seconds against
    // 160-164 (84-85 s against 88-90; docs/development.md, seventeenth session), the whole suite
    // 212 s against 217-235. The threads share one process, so V8 flags come from the npm scripts'
    // `node --liftoff-only`: WebAssembly stays on its baseline compiler, as in the gateway
    // processes the tests start (TEST_NODE_FLAGS) — the workers instantiate Prisma's query
    // compiler and PGlite, and tiering them up cost more than a run earns back.
    pool: 'threads',
    isolate: false,
    // Transformed modules kept on disk between runs (node_modules/.experimental-vitest-cache,
    // keyed by each file's content): a second fast loop skips ~10 s of transforms and imports.
    experimental: { fsModuleCache: true },
    maxWorkers: 4,
    sequence: { sequencer: LongestFirstSequencer },
    // How long each file held its worker, for the sequencer's list (scripts/test-durations.mjs).
    reporters: ['default', './test/support/fileDurations.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
