/**
 * Once per test run: builds a template database with every migration applied. Each test file
 * then clones it (CREATE DATABASE ... TEMPLATE), which takes milliseconds instead of a migration.
 */
import pg from 'pg';
import { openDatabase } from '../../src/infra/prisma/database.js';
import { applyMigrations } from '../../src/infra/prisma/migrate.js';
import { TEMPLATE_DATABASE, TEST_POSTGRES_URL, databaseUrl } from './env.js';

export async function setup(): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
    // Leftovers of runs that were killed before their teardown.
    const stale = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'gateway_test_f_%' OR datname LIKE 'prisma_migrate_shadow_db_%'`);
    for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const db = await openDatabase({ url: databaseUrl(TEMPLATE_DATABASE), poolMax: 2 });
  try {
    await applyMigrations(db.adapterFactory);
  } finally {
    await db.close();
  }
}
