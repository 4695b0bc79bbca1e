/**
 * Once per test run: builds a template database with every migration applied. Each test file
 * then clones it (CREATE DATABASE ... TEMPLATE), which takes milliseconds instead of a migration.
 */
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/infra/prisma/database.js';
import { applyMigrations } from '../../src/infra/prisma/migrate.js';
import { TEST_DATABASE_PATTERN, TEST_POSTGRES_URL, databaseUrl, templateDatabaseOf } from './env.js';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Drops this run's databases, or (runPid undefined) those of runs that are no longer alive. */
async function dropTestDatabases(admin: pg.Client, runPid?: number): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'gateway_test_%'`);
  for (const { datname } of rows) {
    const owner = Number(TEST_DATABASE_PATTERN.exec(datname)?.[1]);
    const drop = runPid === undefined ? !owner || !isAlive(owner) : owner === runPid;
    if (drop) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runPid = process.pid;
  const template = templateDatabaseOf(runPid);
  await withAdmin(async (admin) => {
    await dropTestDatabases(admin);
    await admin.query(`CREATE DATABASE "${template}"`);
  });
  const db = await openDatabase({ url: databaseUrl(template), poolMax: 2 });
  try {
    await applyMigrations(db.adapterFactory);
  } finally {
    await db.close();
  }
  project.provide('testRunPid', runPid);
  return () => withAdmin((admin) => dropTestDatabases(admin, runPid));
}
