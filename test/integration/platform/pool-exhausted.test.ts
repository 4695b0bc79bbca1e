/**
 * Every connection of the pool busy past its wait (CONNECT_TIMEOUT_MS in production): the request
 * that could not get one ran nothing, so it answers the spec's retryable 503 ("please try again
 * shortly", Retry-After), never the 500 of a bug. Proven with the real driver stack the gateway
 * uses (pg's pool under Prisma's adapter) on a real PostgreSQL, with a short wait to keep it fast.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '../../../src/generated/prisma/client.js';
import { postgresPoolConfig } from '../../../src/infra/prisma/database.js';
import { toPublicError } from '../../../src/rest/errors.js';
import { cloneTemplateDatabase } from '../../support/gateway.js';

let clone: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let pool: pg.Pool;
let prisma: PrismaClient;

beforeAll(async () => {
  clone = await cloneTemplateDatabase();
  pool = new pg.Pool({ ...postgresPoolConfig(clone.url, 1), connectionTimeoutMillis: 200 });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

describe('a pool whose every connection stays busy', () => {
  it('fails the waiting query as the retryable 503, not a 500', async () => {
    const held = await pool.connect();
    try {
      const waited = await prisma.$queryRaw`SELECT 1`.then(
        () => null,
        (error: unknown) => error,
      );
      expect(waited).not.toBeNull();
      expect(toPublicError(waited)).toMatchObject({ status: 503, code: 'database_unavailable', unexpected: false });
    } finally {
      held.release();
    }
    // Once a connection is free again, queries run.
    expect(await prisma.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });
});
