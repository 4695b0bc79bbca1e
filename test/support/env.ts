/** Where the test services are: the machine's PostgreSQL and Redis unless overridden. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TEMPLATE_DATABASE = `gateway_test_template`;

/** The same server, another database. */
export function databaseUrl(name: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
