/**
 * Once per test run: compiles src/ to dist/ (for the tests that start real processes), and makes
 * sure a template database with every migration applied exists. Each
 * test file then clones it (CREATE DATABASE ... TEMPLATE), which takes milliseconds instead of a
 * migration. The template is named after a hash of prisma/migrations and kept between runs, so
 * it is built (through the same schema engine as `npm start`) only when the migrations change.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/infra/prisma/database.js';
import { applyMigrations } from '../../src/infra/prisma/migrate.js';
import { GATEWAY_PROCESS_OF_RUN, SEEDED_PREFIX, TEMPLATE_PREFIX, TEST_DATABASE_PATTERN, TEST_POSTGRES_URL, THROWAWAY_SERVER, databaseUrl } from './env.js';
import { PG_BIN, startPostgresServer, type PostgresServer } from './postgresServer.js';

const run = promisify(execFile);

const MIGRATIONS = path.resolve('prisma/migrations');

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function withAdmin<T>(adminUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

const databasesLike = async (admin: pg.Client, prefix: string): Promise<string[]> =>
  (await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix])).rows.map((row) => row.datname);

/** Drops this run's databases, or (runPid undefined) those of runs that are no longer alive. */
async function dropTestDatabases(admin: pg.Client, runPid?: number): Promise<void> {
  for (const name of await databasesLike(admin, 'gateway_test_')) {
    const owner = Number(TEST_DATABASE_PATTERN.exec(name)?.[1]);
    const drop = runPid === undefined ? !owner || !isAlive(owner) : owner === runPid;
    if (drop) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

/** 16 hex digits of a SHA-256 over `parts`, each closed by a NUL: a name that changes with them. */
const shortHash = (parts: (string | Buffer)[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex').slice(0, 16);
};

/** A short hash of every migration's name and SQL, in order: the template's name. */
async function migrationsHash(): Promise<string> {
  const names = (await readdir(MIGRATIONS, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const sql = await Promise.all(names.map((name) => readFile(path.join(MIGRATIONS, name, 'migration.sql'))));
  return shortHash(names.flatMap((name, index) => [name, sql[index]!]));
}

/** What the seeded database is made by, besides the migrations: its name changes with them. */
const SEED_SOURCES = ['bench/seedSql.ts', 'test/support/seedTransactions.ts'];

/**
 * Where a throwaway server's cluster is kept between runs (test/support/postgresServer.ts
 * stopAndSave): a copy taken at the end of a run that made the seeded database, with it and the
 * migrated template in it. The next runs start from a copy of it (~0.3 s for its ~510 MB in
 * /dev/shm) instead of initdb, the template's migrations and the seed (1,000,000 transactions:
 * ~14 CPU-seconds of PostgreSQL on a quiet day, the fast loop's largest single piece of work).
 * Named after the server's version and the seeded database's name; other ones are removed.
 */
const SNAPSHOTS = path.resolve('node_modules/.cache/gateway-test-cluster');

const snapshotFolder = async (seeded: string): Promise<string> => {
  const { stdout: version } = await run(path.join(PG_BIN, 'postgres'), ['--version']);
  return path.join(SNAPSHOTS, shortHash([version, seeded]));
};

/** Keeps the cluster for the next runs, when this run made the seeded database and no copy has it yet. */
async function saveForNextRuns(server: PostgresServer, adminUrl: string, seeded: string, runPid: number): Promise<boolean> {
  // CI starts from a fresh clone every time: a copy would never be used.
  if (server.fromSnapshot || process.env.CI) return false;
  const started = performance.now();
  const target = await snapshotFolder(seeded);
  if (existsSync(target)) return false;
  const made = await withAdmin(adminUrl, async (admin) => {
    if (!(await databasesLike(admin, seeded)).includes(seeded)) return false;
    await dropTestDatabases(admin, runPid);
    return true;
  });
  if (!made) return false;
  await mkdir(SNAPSHOTS, { recursive: true });
  for (const other of await readdir(SNAPSHOTS)) rmSync(path.join(SNAPSHOTS, other), { recursive: true, force: true });
  await server.stopAndSave(target);
  console.info(
    `test run: kept its PostgreSQL cluster for the next runs (${path.relative(process.cwd(), target)}, ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  return true;
}

/**
 * Templates of other migration sets kept: a concurrent run on another checkout (a branch with one
 * more migration) may be cloning its template right now, so only the oldest beyond these go.
 */
const KEPT_OTHER_TEMPLATES = 3;

/** Templates other than `template`, oldest first (database OIDs grow as databases are created). */
const otherTemplatesOldestFirst = async (admin: pg.Client, template: string): Promise<string[]> =>
  (
    await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2 ORDER BY oid', [
      TEMPLATE_PREFIX,
      template,
    ])
  ).rows.map((row) => row.datname);

/**
 * Builds the template under a private name and renames it into place: a concurrent run either
 * sees no template or a complete one. Older templates are dropped when nobody uses them.
 */
async function ensureTemplate(admin: pg.Client, adminUrl: string, template: string, runPid: number): Promise<void> {
  const others = await otherTemplatesOldestFirst(admin, template);
  for (const other of others.slice(0, Math.max(0, others.length - KEPT_OTHER_TEMPLATES))) {
    const builder = Number(/_building_(\d+)$/.exec(other)?.[1]);
    if (builder && isAlive(builder)) continue; // another run is building it right now
    await admin.query(`DROP DATABASE IF EXISTS "${other}"`).catch(() => undefined);
  }
  if ((await databasesLike(admin, template)).includes(template)) return;
  const building = `${template}_building_${runPid}`;
  await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${building}"`);
  const db = await openDatabase({ url: databaseUrl(building, adminUrl), poolMax: 2 });
  try {
    await applyMigrations(db.adapterFactory);
  } finally {
    await db.close();
  }
  try {
    await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
  } catch {
    // Another run put the same template in place first: use theirs.
    await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
  }
}

/**
 * The run's PostgreSQL: TEST_DATABASE_URL's server when it is set (its template kept between runs),
 * otherwise a throwaway server of the run's own (test/support/postgresServer.ts): a copy of the
 * cluster an earlier run kept (SNAPSHOTS above), or a new one whose template is migrated afresh (a
 * few seconds, beside the build). It is stopped at the end, and kept when it is worth keeping.
 */
async function runDatabaseServer(snapshot: string): Promise<PostgresServer | null> {
  if (process.env.TEST_DATABASE_URL) return null;
  const server = await startPostgresServer({ snapshot: existsSync(snapshot) ? snapshot : undefined });
  // Read by the workers and the processes they spawn (test/support/env.ts): vitest forks its
  // workers after the global setup, with this process's environment.
  process.env.TEST_DATABASE_URL = server.adminUrl;
  process.env[THROWAWAY_SERVER] = '1';
  return server;
}

/**
 * Ends the gateway processes of this run still running at its end (found by the variable each
 * carries, in /proc). A file whose clean-up did not run (a hook that timed out, a worker ended
 * under it) once left one running for an hour, its jobs polling PostgreSQL on the CPU of every
 * later run; a worker's own exit handlers do not run when the pool ends it with a signal.
 */
async function endLeftoverGatewayProcesses(runPid: number): Promise<void> {
  const marker = `${GATEWAY_PROCESS_OF_RUN}=${runPid}\0`;
  const ended: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const environment = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (!environment.includes(marker)) continue;
    // The workers carry the variable too (forked with this environment): only gateways go.
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '')).split('\0');
    if (!argv.some((arg) => arg.endsWith('dist/main.js'))) continue;
    try {
      process.kill(pid, 'SIGKILL');
      ended.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  if (ended.length > 0) console.warn(`test run: ended ${ended.length} gateway process(es) a test left running (pids ${ended.join(', ')})`);
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runPid = process.pid;
  // Passed on to every gateway process a test starts (workers are forked after this, with this environment).
  process.env[GATEWAY_PROCESS_OF_RUN] = String(runPid);
  // Process tests run what `npm start` runs: the compiled dist/ of the sources under test.
  const built = run(process.execPath, ['scripts/build.mjs', '--quiet']);
  const migrations = await migrationsHash();
  const template = `${TEMPLATE_PREFIX}${migrations}`;
  const seeded = `${SEEDED_PREFIX}${shortHash([migrations, ...(await Promise.all(SEED_SOURCES.map((file) => readFile(file))))])}`;
  const server = await runDatabaseServer(await snapshotFolder(seeded));
  const adminUrl = server?.adminUrl ?? TEST_POSTGRES_URL;
  await withAdmin(adminUrl, async (admin) => {
    if (!server) await dropTestDatabases(admin);
    await ensureTemplate(admin, adminUrl, template, runPid);
    // Seeded databases of other migrations or seeds: each is ~500 MB. One in use (a run on
    // another checkout, on a shared server) refuses to go and is left for a later run.
    for (const other of await databasesLike(admin, SEEDED_PREFIX)) {
      if (other !== seeded) await admin.query(`DROP DATABASE IF EXISTS "${other}"`).catch(() => undefined);
    }
  });
  await built;
  project.provide('testRunPid', runPid);
  project.provide('templateDatabase', template);
  project.provide('seededDatabase', seeded);
  return async () => {
    await endLeftoverGatewayProcesses(runPid);
    if (!server) await withAdmin(adminUrl, (admin) => dropTestDatabases(admin, runPid));
    else if (!(await saveForNextRuns(server, adminUrl, seeded, runPid))) await server.stop();
  };
}
