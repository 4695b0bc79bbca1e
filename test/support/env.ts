/**
 * Where the test services are: Redis is the machine's unless overridden; PostgreSQL is the run's own
 * throwaway server (started by globalSetup, which sets TEST_DATABASE_URL for the workers), or the
 * server TEST_DATABASE_URL names when it is set before the run.
 */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Test databases are named after the run's process id, so that two runs on one machine never
 * drop each other's databases, and leftovers of killed runs can be recognised and dropped.
 */
export const TEST_DATABASE_PATTERN = /^gateway_test_(\d+)_/;
/**
 * The migrated template is kept between runs, named after the migrations it holds: a run whose
 * migrations have not changed clones it at once instead of migrating (about 8 s saved per run).
 */
export const TEMPLATE_PREFIX = 'gateway_tpl_';
/**
 * The 1,000,000-transaction database (test/support/seedTransactions.ts seededDatabase), named after
 * the migrations and the seed's code like the template, and kept like it.
 */
export const SEEDED_PREFIX = 'gateway_seed_';
export const fileDatabaseOf = (runPid: number, suffix: string): string => `gateway_test_${runPid}_f_${suffix}`;

/**
 * Set when TEST_POSTGRES_URL is the run's own throwaway server (test/support/globalSetup.ts): its
 * databases need no dropping, the whole server goes at the end of the run.
 */
export const THROWAWAY_SERVER = 'TEST_DATABASE_THROWAWAY';
export const onThrowawayServer = (): boolean => process.env[THROWAWAY_SERVER] === '1';

/** The same server, another database. */
export function databaseUrl(name: string, serverUrl = TEST_POSTGRES_URL): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

declare module 'vitest' {
  export interface ProvidedContext {
    testRunPid: number;
    templateDatabase: string;
    seededDatabase: string;
  }
}

/**
 * The environment variable naming the test run (its main process's pid) in every gateway process a
 * test starts (test/support/processes.ts): set by the global setup, passed on by each worker, and
 * the run's teardown ends any such process still running.
 */
export const GATEWAY_PROCESS_OF_RUN = 'GATEWAY_TEST_PROCESS_OF_RUN';
