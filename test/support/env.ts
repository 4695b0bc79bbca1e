/** Where the test services are: the machine's PostgreSQL and Redis unless overridden. */
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
export const fileDatabaseOf = (runPid: number, suffix: string): string => `gateway_test_${runPid}_f_${suffix}`;

/** The same server, another database. */
export function databaseUrl(name: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

declare module 'vitest' {
  export interface ProvidedContext {
    testRunPid: number;
    templateDatabase: string;
  }
}
